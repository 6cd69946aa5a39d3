// passes: canonicalize{max-rounds=1}
// One round (simplify, fold-constants, cse, dce) merges the two exps and
// folds the constant arithmetic, but the select of the merged exps and the
// multiply by the folded 1 are only simplified by a second round, which
// max-rounds=1 does not run. Without the option they go too (see
// tests/passes/data/canonicalize_cascade.mlir).
module @m {
  func @f(%x: f32[5] {input}, %c: bool[5] {input}) -> (f32[5]) {
    %a = exp(%x) : f32[5]
    %b = exp(%x) : f32[5]
    %s = select(%c, %a, %b) : f32[5]
    %z = constant() {value = 0.0} : f32[]
    %zz = mul(%z, %z) : f32[]
    %one = constant() {value = 1} : f32[]
    %u = add(%zz, %one) : f32[]
    %ub = broadcast(%u) {dims = []} : f32[5]
    %r = mul(%ub, %s) : f32[5]
    return %r
  }
}
// CHECK-LABEL: func @f(%x: f32[5] {input}, %c: bool[5] {input}) -> (f32[5]) {
// CHECK-NEXT:    %0 = exp(%x) : f32[5]
// CHECK-NEXT:    %1 = select(%c, %0, %0) : f32[5]
// CHECK-NEXT:    %2 = constant() {value = 1.0} : f32[5]
// CHECK-NEXT:    %3 = mul(%2, %1) : f32[5]
// CHECK-NEXT:    return %3
