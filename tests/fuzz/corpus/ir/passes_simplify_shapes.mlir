// passes: simplify
// Shape identities: reshape to the own shape, identity transpose, broadcast
// to the own shape, same-dtype cast, whole slice, empty pad, one-operand
// concat and select(c, x, x) are x; reshape(reshape(x)) reads x directly;
// transpose(transpose(x)) composes the perms (one pair composes to the
// identity, so it is x). Inner ops left unused stay for dce.
module @m {
  func @f(%x: f32[2,3,4] {input}, %c: bool[2,3,4] {input}) -> (f32[2,3,4], f32[24], f32[4,2,3], f32[2,3,4], f32[4,3,2]) {
    %0 = reshape(%x) : f32[2,3,4]
    %1 = transpose(%0) {perm = [0, 1, 2]} : f32[2,3,4]
    %2 = broadcast(%1) {dims = [0, 1, 2]} : f32[2,3,4]
    %3 = cast(%2) : f32[2,3,4]
    %4 = slice(%3) {start = [0, 0, 0], limit = [2, 3, 4], stride = [1, 1, 1]} : f32[2,3,4]
    %5 = pad(%4) {low = [0, 0, 0], high = [0, 0, 0], value = 1.0} : f32[2,3,4]
    %6 = concat(%5) {axis = 1} : f32[2,3,4]
    %7 = select(%c, %6, %6) : f32[2,3,4]
    %8 = reshape(%7) : f32[6,4]
    %9 = reshape(%8) : f32[24]
    %10 = transpose(%7) {perm = [2, 0, 1]} : f32[4,2,3]
    %11 = transpose(%10) {perm = [1, 2, 0]} : f32[2,3,4]
    %12 = transpose(%10) {perm = [0, 2, 1]} : f32[4,3,2]
    %13 = reshape(%8) : f32[2,3,4]
    return %7, %9, %10, %11, %12
  }
}
