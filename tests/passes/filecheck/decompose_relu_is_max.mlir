// passes: decompose
// relu is a composite: it becomes max(x, 0) over a splat zero.
module @m {
  func @f(%x: f32[2,2] {input}) -> (f32[2,2]) {
    %r = relu(%x) : f32[2,2]
    return %r
  }
}
// CHECK-LABEL: func @f(%x: f32[2,2] {input}) -> (f32[2,2]) {
// CHECK-NOT:     relu
// CHECK:         [[ZERO:%[0-9]+]] = constant() {value = 0.0} : f32[]
// CHECK-NEXT:    [[MAX:%[0-9]+]] = max(%x, [[ZERO]]) : f32[2,2]
// CHECK-NEXT:    return [[MAX]]
