// passes: dce
// An op with several results lives while any one of them is used, and goes
// when none is.
module @m {
  func @f(%x: f32[6] {input}) -> (f32[2]) {
    %a, %b, %c = split(%x) {axis = 0, sizes = [1, 2, 3]} : (f32[1], f32[2], f32[3])
    %d, %e = split(%x) {axis = 0, sizes = [3, 3]} : (f32[3], f32[3])
    %n = neg(%e) : f32[3]
    return %b
  }
}
// CHECK-LABEL: func @f(%x: f32[6] {input}) -> (f32[2]) {
// CHECK-NEXT:    %0, %1, %2 = split(%x) {axis = 0, sizes = [1, 2, 3]} : (f32[1], f32[2], f32[3])
// CHECK-NEXT:    return %1
