// passes: fold-constants,dce
// Data movement of a splat keeps its value; pad folds only when the fill
// value equals the splat; reduce_sum multiplies by the reduced count exactly
// and rounds once (ten f32 0.1s sum to 1.0 in the kernel's double
// accumulator, -0.0s sum to +0.0); argmax of a splat is 0; concat folds
// only equal splats.
module @m {
  func @f() -> (f32[2,3], f32[3,2], f32[3], f32[1,4], f32[4,4], f32[2,4], f32[], f32[], f32[], i32[], i64[2], f32[4], f32[3,4]) {
    %c = constant() {value = 0.1} : f32[]
    %z = constant() {value = 0} : f32[]
    %nz = constant() {value = -0.0} : f32[]
    %big = constant() {value = 1073741824} : i32[]
    %b = broadcast(%c) {dims = []} : f32[2,3]
    %t = transpose(%b) {perm = [1, 0]} : f32[3,2]
    %r = reshape(%b) : f32[6]
    %s = slice(%r) {start = [1], limit = [6], stride = [2]} : f32[3]
    %zb = broadcast(%z) {dims = []} : f32[2,2]
    %p1 = pad(%zb) {low = [0, 1], high = [2, 1], value = 0.0} : f32[4,4]
    %cb = broadcast(%c) {dims = []} : f32[2,2]
    %p2 = pad(%cb) {low = [0, 0], high = [0, 2], value = 0.0} : f32[2,4]
    %ten = broadcast(%c) {dims = []} : f32[10]
    %sum = reduce_sum(%ten) {dims = [0], keepdim = false} : f32[]
    %nzb = broadcast(%nz) {dims = []} : f32[3]
    %nzsum = reduce_sum(%nzb) {dims = [0], keepdim = false} : f32[]
    %mx = reduce_max(%ten) {dims = [-1], keepdim = false} : f32[]
    %four = broadcast(%big) {dims = []} : i32[4]
    %isum = reduce_sum(%four) {dims = [0], keepdim = false} : i32[]
    %am = argmax(%b) {axis = 1} : i64[2]
    %cat = concat(%s, %nzb) {axis = 0} : f32[6]
    %s1 = slice(%cat) {start = [0], limit = [1], stride = [1]} : f32[1]
    %cat2 = concat(%s1, %s1, %s1, %s1) {axis = 0} : f32[4]
    %row = reshape(%cat2) : f32[1,4]
    %cat3 = concat(%t, %t) {axis = 1} : f32[3,4]
    return %b, %t, %s, %row, %p1, %p2, %sum, %nzsum, %mx, %isum, %am, %cat2, %cat3
  }
}
