module @m {
  func @f(%x: f32[4,6] {input}) -> (f32[4,2]) {
    %0, %1 = split(%x) {axis = 1, sizes = [2, 3]} : (f32[4,2], f32[4,3])
    return %0
  }
}
