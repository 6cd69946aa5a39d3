module @m {
  func @f(%x: f32[3] {input}, %y: f32[4] {input}) -> (f32[3]) {
    %0 = broadcast(%x) {dims = [2]} : f32[1048576,1048576,3]
    return %0
  }
}
