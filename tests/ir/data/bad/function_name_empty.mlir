module @m {
  func @ () -> () {
    return
  }
}
