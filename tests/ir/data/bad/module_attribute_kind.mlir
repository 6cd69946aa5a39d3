module @m attributes {target = 1} {
}
