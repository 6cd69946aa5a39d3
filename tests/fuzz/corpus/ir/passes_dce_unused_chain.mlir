// passes: dce
// Unused ops go, including chains whose only users are unused; unused
// arguments stay.
module @m {
  func @f(%x: f32[4] {input}, %unused: f32[4] {param}) -> (f32[4]) {
    %a = exp(%x) : f32[4]
    %dead1 = log(%x) : f32[4]
    %dead2 = mul(%dead1, %a) : f32[4]
    %b = neg(%a) : f32[4]
    %dead3 = reduce_sum(%dead2) {dims = [0], keepdim = false} : f32[]
    return %b
  }
}
