// passes: cse
// Look-alikes that differ in operand order, attributes or result type are
// not duplicates: nothing changes.
module @m {
  func @f(%x: f32[2,2] {input}, %y: f32[2,2] {input}) -> (f32[2,2], f32[2,2], f32[2,2], f32[2,2], f32[2], f32[2,1], bool[2,2], bool[2,2]) {
    %0 = sub(%x, %y) : f32[2,2]
    %1 = sub(%y, %x) : f32[2,2]
    %2 = transpose(%x) {perm = [1, 0]} : f32[2,2]
    %3 = transpose(%x) {perm = [0, 1]} : f32[2,2]
    %4 = reduce_max(%x) {dims = [1], keepdim = false} : f32[2]
    %5 = reduce_max(%x) {dims = [1], keepdim = true} : f32[2,1]
    %6 = compare(%x, %y) {direction = "lt"} : bool[2,2]
    %7 = compare(%x, %y) {direction = "le"} : bool[2,2]
    return %0, %1, %2, %3, %4, %5, %6, %7
  }
}
