module @m {
  func @f(%x: f32[4,6] {input}) -> (f32[4,2]) {
    %0, = split(%x) {axis = 1, sizes = [2, 4]} : (f32[4,2], f32[4,4])
    return %0
  }
}
