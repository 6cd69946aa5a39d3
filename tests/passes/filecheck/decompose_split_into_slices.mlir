// passes: decompose
// split is a composite: one slice per piece, consecutive along the axis; each
// use of a result follows its slice.
module @m {
  func @f(%x: f32[2,7] {input}) -> (f32[2,4], f32[2,0]) {
    %a, %b, %c = split(%x) {axis = -1, sizes = [3, 0, 4]} : (f32[2,3], f32[2,0], f32[2,4]) loc("m.json":3:5)
    return %c, %b
  }
}
// CHECK-LABEL: func @f(%x: f32[2,7] {input}) -> (f32[2,4], f32[2,0]) {
// CHECK-NEXT:    %0 = slice(%x) {start = [0, 0], limit = [2, 3], stride = [1, 1]} : f32[2,3] loc("m.json":3:5)
// CHECK-NEXT:    %1 = slice(%x) {start = [0, 3], limit = [2, 3], stride = [1, 1]} : f32[2,0] loc("m.json":3:5)
// CHECK-NEXT:    %2 = slice(%x) {start = [0, 3], limit = [2, 7], stride = [1, 1]} : f32[2,4] loc("m.json":3:5)
// CHECK-NEXT:    return %2, %1
