// passes: fold-constants,dce
// Elementwise ops of constants fold into one constant, with the value the
// interpreter computes; the inputs die.
module @m {
  func @f() -> (f32[3]) {
    %a = constant() {value = 1.5} : f32[3]
    %b = constant() {value = 2.0} : f32[3]
    %c = mul(%a, %b) : f32[3]
    %d = add(%c, %a) : f32[3]
    return %d
  }
}
// CHECK-LABEL: func @f() -> (f32[3]) {
// CHECK-NEXT:    %0 = constant() {value = 4.5} : f32[3]
// CHECK-NEXT:    return %0
