module @m {
  func @f(%x: f32[3] {input}, %x: f32[3] {param}) -> () {
    return
  }
}
