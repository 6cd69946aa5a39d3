module @m {
  func @f(%x: f32[2,3] {input}) -> (f32[2], f32[2], f32[2,3]) {
    %0 = exp(%x) : f32[2,3]
    %1 = reduce_sum(%0) {dims = [1], keepdim = false} : f32[2]
    %2 = neg(%0) : f32[2,3]
    return %1, %1, %2
  }
}
