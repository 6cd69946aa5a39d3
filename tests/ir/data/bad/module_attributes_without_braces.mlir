module @m attributes target {
}
