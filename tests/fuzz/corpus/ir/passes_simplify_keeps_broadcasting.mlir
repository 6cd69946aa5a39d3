// passes: simplify
// An identity is applied only when x has the op's result type: here the
// constant or the other operand broadcasts, so every op stays; so does
// select(c, x, x) whose predicate is wider than x.
module @m {
  func @f(%x: f32[] {input}, %y: f32[3] {input}, %c: bool[3] {input}) -> (f32[3], f32[3], f32[3], f32[3]) {
    %one = constant() {value = 1.0} : f32[3]
    %nz = constant() {value = -0.0} : f32[3]
    %0 = mul(%x, %one) : f32[3]
    %1 = add(%nz, %x) : f32[3]
    %2 = select(%c, %x, %x) : f32[3]
    %3 = sub(%y, %nz) : f32[3]
    return %0, %1, %2, %3
  }
}
