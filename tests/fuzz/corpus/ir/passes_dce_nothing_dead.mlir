// passes: dce
// Every op is used (one of them twice, one only by the results): no change.
module @m {
  func @f(%x: f32[2,3] {input}) -> (f32[3,2], f32[2,3]) {
    %0 = tanh(%x) : f32[2,3]
    %1 = add(%0, %0) : f32[2,3]
    %2 = transpose(%1) {perm = [1, 0]} : f32[3,2]
    return %2, %0
  }
}
