module @m {
  func @f(%x: f32[3] {input}, %y: f32[4] {input}) -> (f32[3]) {
    %0 = add(%x, %y) : f32[3]
    return %0
  }
}
