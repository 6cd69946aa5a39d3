// passes: cse
// Two equal splits merge into the first: every result of the second follows
// the result of the first with the same index.
module @m {
  func @f(%x: f32[2,5] {input}) -> (f32[2,2], f32[2,3]) {
    %a, %b = split(%x) {axis = 1, sizes = [2, 3]} : (f32[2,2], f32[2,3])
    %c, %d = split(%x) {axis = 1, sizes = [2, 3]} : (f32[2,2], f32[2,3])
    %e, %f = split(%x) {axis = 1, sizes = [3, 2]} : (f32[2,3], f32[2,2])
    %s = add(%a, %c) : f32[2,2]
    %t = mul(%d, %e) : f32[2,3]
    %u = add(%s, %f) : f32[2,2]
    return %u, %t
  }
}
// CHECK-LABEL: func @f(%x: f32[2,5] {input}) -> (f32[2,2], f32[2,3]) {
// CHECK-NEXT:    %0, %1 = split(%x) {axis = 1, sizes = [2, 3]} : (f32[2,2], f32[2,3])
// CHECK-NEXT:    %2, %3 = split(%x) {axis = 1, sizes = [3, 2]} : (f32[2,3], f32[2,2])
// CHECK-NEXT:    %4 = add(%0, %0) : f32[2,2]
// CHECK-NEXT:    %5 = mul(%1, %2) : f32[2,3]
// CHECK-NEXT:    %6 = add(%4, %3) : f32[2,2]
// CHECK-NEXT:    return %6, %5
