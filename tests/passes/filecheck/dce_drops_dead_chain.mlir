// passes: dce
// Ops whose results nothing uses go, chains included; the live op stays.
module @m {
  func @f(%x: f32[4] {input}) -> (f32[4]) {
    %a = exp(%x) : f32[4]
    %b = neg(%a) : f32[4]
    %c = tanh(%x) : f32[4]
    return %c
  }
}
// CHECK-LABEL: func @f(%x: f32[4] {input}) -> (f32[4]) {
// CHECK-NOT:     exp
// CHECK-NOT:     neg
// CHECK:         %0 = tanh(%x) : f32[4]
// CHECK-NEXT:    return %0
