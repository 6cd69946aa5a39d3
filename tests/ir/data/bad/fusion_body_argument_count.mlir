module @m {
  func @f(%x: f32[3] {input}, %y: f32[3] {input}) -> (f32[3]) {
    %0 = fusion(%x, %y) : f32[3] body(%in0: f32[3]) {
      return %in0
    }
    return %0
  }
}
