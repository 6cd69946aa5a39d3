module @m attributes {stages = 2} {
}
