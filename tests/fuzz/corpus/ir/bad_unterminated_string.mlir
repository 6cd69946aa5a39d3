module @m {
  func @f(%x: f32[3] {input}, %y: f32[4] {input}) -> (f32[3]) {
    %0 = neg(%x) : f32[3] loc("abc:1:1)
    return %0
  }
}
