module @m attributes {mesh = "dp=2"} {
}
