module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = fusion(%x) : f32[3]
    return %0
  }
}
