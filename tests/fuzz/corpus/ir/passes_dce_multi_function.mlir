// passes: dce
// Each function is cleaned on its own; values a dead op uses stay when
// something live uses them too.
module @m {
  func @loss(%p: f32[4] {input}, %t: f32[4] {input}) -> (f32[]) {
    %d = sub(%p, %t) : f32[4]
    %sq = mul(%d, %d) : f32[4]
    %abs = abs(%d) : f32[4]
    %l1 = reduce_sum(%abs) {dims = [0], keepdim = false} : f32[]
    %l2 = reduce_sum(%sq) {dims = [0], keepdim = false} : f32[]
    return %l2
  }

  func @eval(%p: f32[4] {input}) -> (i64[]) {
    %m = reduce_max(%p) {dims = [0], keepdim = false} : f32[]
    %i = argmax(%p) {axis = 0} : i64[]
    return %i
  }
}
