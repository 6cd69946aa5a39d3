// passes: simplify
// Exact identities: x + -0.0, x - 0.0, x * 1, 1 * x, x / 1, neg(neg(x)) and
// integer x + 0 are x. A float x + 0.0 stays (-0.0 + 0.0 is +0.0), as do
// 0.0 - x, 1 / x and x * 0. Users and results follow the replacement.
module @m {
  func @f(%x: f32[4] {input}, %i: i64[4] {input}) -> (f32[4], f32[4], f32[4], f32[4], i64[4], f32[4], f32[4], f32[4]) {
    %nz = constant() {value = -0.0} : f32[4]
    %z = constant() {value = 0.0} : f32[4]
    %one = constant() {value = 1} : f32[4]
    %iz = constant() {value = 0} : i64[4]
    %0 = add(%x, %nz) : f32[4]
    %1 = add(%nz, %0) : f32[4]
    %2 = sub(%1, %z) : f32[4]
    %3 = mul(%2, %one) : f32[4]
    %4 = mul(%one, %3) : f32[4]
    %5 = div(%4, %one) : f32[4]
    %6 = neg(%5) : f32[4]
    %7 = neg(%6) : f32[4]
    %8 = add(%i, %iz) : i64[4]
    %9 = add(%7, %z) : f32[4]
    %10 = sub(%z, %7) : f32[4]
    %11 = div(%one, %7) : f32[4]
    %12 = mul(%7, %z) : f32[4]
    return %7, %9, %10, %11, %8, %12, %6, %5
  }
}
