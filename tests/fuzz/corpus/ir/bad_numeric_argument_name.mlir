module @m {
  func @f(%0: f32[3] {input}) -> () {
    return
  }
}
