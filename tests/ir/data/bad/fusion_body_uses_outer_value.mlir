module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = fusion(%x) : f32[3] body(%in0: f32[3]) {
      %0 = add(%in0, %x) : f32[3]
      return %0
    }
    return %0
  }
}
