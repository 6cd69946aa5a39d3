module @m attributes {target = "tpu"} {
}
