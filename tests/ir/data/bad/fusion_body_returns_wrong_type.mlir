module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = fusion(%x) : f32[3] body(%in0: f32[3]) {
      %0 = reduce_sum(%in0) {dims = [0], keepdim = false} : f32[]
      return %0
    }
    return %0
  }
}
