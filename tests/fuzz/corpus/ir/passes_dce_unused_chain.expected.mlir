module @m {
  func @f(%x: f32[4] {input}, %unused: f32[4] {param}) -> (f32[4]) {
    %0 = exp(%x) : f32[4]
    %1 = neg(%0) : f32[4]
    return %1
  }
}
