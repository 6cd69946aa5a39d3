module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = fusion(%x) : f32[3] body(%in0: f32[3]) {
      %0 = fusion(%in0) : f32[3] body(%a: f32[3]) {
        return %a
      }
      return %0
    }
    return %0
  }
}
