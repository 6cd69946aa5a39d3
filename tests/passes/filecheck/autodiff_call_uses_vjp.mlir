// passes: autodiff
// The gradient of a call is the call of its callee's @<callee>_vjp on the
// operands, the result and the result's gradient (a custom op's declared
// backward, ir/ops.def call); the callee itself is not differentiated.
module @m {
  func @loss(%x: f32[3] {input}, %w: f32[3] {param}) -> (f32[]) {
    %0 = mul(%x, %w) : f32[3]
    %1 = call(%0) {callee = "cube"} : f32[3]
    %2 = reduce_sum(%1) {dims = [0], keepdim = false} : f32[]
    return %2
  }

  func @cube(%x: f32[3] {input}) -> (f32[3]) {
    %0 = mul(%x, %x) : f32[3]
    %1 = mul(%0, %x) : f32[3]
    return %1
  }

  func @cube_vjp(%x: f32[3] {input}, %out: f32[3] {input}, %grad: f32[3] {input}) -> (f32[3]) {
    %0 = constant() {value = 3.0} : f32[]
    %1 = broadcast(%0) {dims = []} : f32[3]
    %2 = mul(%1, %x) : f32[3]
    %3 = mul(%2, %x) : f32[3]
    %4 = mul(%grad, %3) : f32[3]
    return %4
  }
}
// CHECK-LABEL: func @loss_grad(%x: f32[3] {input}, %w: f32[3] {param}) -> (f32[], f32[3]) {
// CHECK-NEXT:    %0 = mul(%x, %w) : f32[3]
// CHECK-NEXT:    %1 = call(%0) {callee = "cube"} : f32[3]
// CHECK:         %6 = call(%0, %1, %5) {callee = "cube_vjp"} : f32[3]
// CHECK-NEXT:    %7 = mul(%6, %x) : f32[3]
