module @m {
  func @f(%x: f32[3] {output}) -> () {
    return
  }
}
