// passes: canonicalize
// Already canonical: no duplicates, nothing dead, nothing foldable or
// simplifiable. Nothing changes.
module @m {
  func @f(%x: f32[4,4] {input}, %w: f32[4,4] {param}) -> (f32[4], f32[4,4]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = false} : f32[4,4]
    %1 = constant() {value = 0.0} : f32[]
    %2 = max(%0, %1) : f32[4,4]
    %3 = reduce_sum(%2) {dims = [1], keepdim = false} : f32[4]
    %4 = constant() {value = 4.0} : f32[]
    %5 = div(%3, %4) : f32[4]
    %6 = transpose(%2) {perm = [1, 0]} : f32[4,4]
    return %5, %6
  }
}
