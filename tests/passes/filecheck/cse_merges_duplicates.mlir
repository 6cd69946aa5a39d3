// passes: cse
// Duplicates merge into the first; later uses, results included, follow.
module @m {
  func @f(%x: f32[2,3] {input}) -> (f32[2], f32[2]) {
    %e1 = exp(%x) : f32[2,3]
    %e2 = exp(%x) : f32[2,3]
    %s1 = reduce_sum(%e1) {dims = [1], keepdim = false} : f32[2]
    %s2 = reduce_sum(%e2) {dims = [1], keepdim = false} : f32[2]
    return %s1, %s2
  }
}
// CHECK-LABEL: func @f(%x: f32[2,3] {input}) -> (f32[2], f32[2]) {
// CHECK-NEXT:    %0 = exp(%x) : f32[2,3]
// CHECK-NEXT:    %1 = reduce_sum(%0) {dims = [1], keepdim = false} : f32[2]
// CHECK-NEXT:    return %1, %1
// CHECK-NOT:     exp
