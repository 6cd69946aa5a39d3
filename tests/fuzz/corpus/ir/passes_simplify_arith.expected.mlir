module @m {
  func @f(%x: f32[4] {input}, %i: i64[4] {input}) -> (f32[4], f32[4], f32[4], f32[4], i64[4], f32[4], f32[4], f32[4]) {
    %0 = constant() {value = -0.0} : f32[4]
    %1 = constant() {value = 0.0} : f32[4]
    %2 = constant() {value = 1} : f32[4]
    %3 = constant() {value = 0} : i64[4]
    %4 = neg(%x) : f32[4]
    %5 = add(%x, %1) : f32[4]
    %6 = sub(%1, %x) : f32[4]
    %7 = div(%2, %x) : f32[4]
    %8 = mul(%x, %1) : f32[4]
    return %x, %5, %6, %7, %i, %8, %4, %x
  }
}
