// passes: cse
// Duplicates (same op, operands, attributes and type) merge into the first;
// uses of the later ones, the function results included, follow. Chains
// collapse in one run.
module @m {
  func @f(%x: f32[2,3] {input}) -> (f32[2], f32[2], f32[2,3]) {
    %e1 = exp(%x) : f32[2,3]
    %e2 = exp(%x) : f32[2,3]
    %s1 = reduce_sum(%e1) {dims = [1], keepdim = false} : f32[2]
    %s2 = reduce_sum(%e2) {dims = [1], keepdim = false} : f32[2]
    %n = neg(%e2) : f32[2,3]
    return %s1, %s2, %n
  }
}
