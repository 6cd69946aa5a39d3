module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = fusion(%x) : f32[3] body(%in0: f32[3]) {
      %0 = exp(%in0) : f32[3]
    }
    return %0
  }
}
