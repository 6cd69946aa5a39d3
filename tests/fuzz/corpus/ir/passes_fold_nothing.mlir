// passes: fold-constants
// Nothing folds: dense (list) constants and iota are not splats, one operand
// is an argument, dot of splats is not folded, and an integer division by a
// zero splat fails at run time, so it stays.
module @m {
  func @f(%x: f32[3] {input}) -> (f32[3], i64[3], f32[3], f32[2,2], i64[3]) {
    %0 = constant() {value = [1.0, 2.0, 3.0]} : f32[3]
    %1 = exp(%0) : f32[3]
    %2 = iota() {dim = 0} : i64[3]
    %3 = neg(%2) : i64[3]
    %4 = constant() {value = 1.0} : f32[3]
    %5 = add(%x, %4) : f32[3]
    %6 = constant() {value = 1.0} : f32[2,2]
    %7 = dot(%6, %6) {transpose_a = false, transpose_b = false} : f32[2,2]
    %8 = constant() {value = 0} : i64[3]
    %9 = constant() {value = 5} : i64[3]
    %10 = div(%9, %8) : i64[3]
    return %1, %3, %5, %7, %10
  }
}
