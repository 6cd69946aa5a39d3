// passes: simplify
// select with a splat predicate picks its operand (when that has the result
// type); a dense predicate or a broadcasting pick stays.
module @m {
  func @f(%x: f32[3] {input}, %y: f32[3] {input}, %s: f32[] {input}) -> (f32[3], f32[3], f32[3], f32[3]) {
    %t = constant() {value = 1} : bool[]
    %f = constant() {value = 0} : bool[3]
    %d = constant() {value = [1, 0, 1]} : bool[3]
    %0 = select(%t, %x, %y) : f32[3]
    %1 = select(%f, %x, %y) : f32[3]
    %2 = select(%d, %x, %y) : f32[3]
    %3 = select(%t, %s, %y) : f32[3]
    return %0, %1, %2, %3
  }
}
