module @m {
  func @f(%x: f32[2,3,4] {input}, %c: bool[2,3,4] {input}) -> (f32[2,3,4], f32[24], f32[4,2,3], f32[2,3,4], f32[4,3,2]) {
    %0 = reshape(%x) : f32[6,4]
    %1 = reshape(%x) : f32[24]
    %2 = transpose(%x) {perm = [2, 0, 1]} : f32[4,2,3]
    %3 = transpose(%x) {perm = [2, 1, 0]} : f32[4,3,2]
    return %x, %1, %2, %x, %3
  }
}
