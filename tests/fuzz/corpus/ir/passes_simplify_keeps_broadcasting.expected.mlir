module @m {
  func @f(%x: f32[] {input}, %y: f32[3] {input}, %c: bool[3] {input}) -> (f32[3], f32[3], f32[3], f32[3]) {
    %0 = constant() {value = 1.0} : f32[3]
    %1 = constant() {value = -0.0} : f32[3]
    %2 = mul(%x, %0) : f32[3]
    %3 = add(%1, %x) : f32[3]
    %4 = select(%c, %x, %x) : f32[3]
    %5 = sub(%y, %1) : f32[3]
    return %2, %3, %4, %5
  }
}
