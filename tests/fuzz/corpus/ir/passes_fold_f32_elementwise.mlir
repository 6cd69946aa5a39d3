// passes: fold-constants
// Elementwise ops on f32 splats become splat constants of their result type,
// computed in float (exp(1) is the float 2.7182817; 0.1 + 0.2 is the float
// 0.3 with one float rounding). Operand constants stay (dce removes them).
// The partly constant add is left alone.
module @m {
  func @f(%x: f32[2] {input}) -> (f32[], f32[2], f32[], bool[2], f32[2], i32[], f32[2]) {
    %one = constant() {value = 1} : f32[]
    %a = constant() {value = 0.1} : f32[]
    %b = constant() {value = 0.2} : f32[]
    %e = exp(%one) : f32[]
    %ab = add(%a, %b) : f32[]
    %v = broadcast(%ab) {dims = []} : f32[2]
    %w = broadcast(%one) {dims = []} : f32[2]
    %d = div(%one, %e) : f32[]
    %lt = compare(%v, %w) {direction = "lt"} : bool[2]
    %s = select(%lt, %v, %w) : f32[2]
    %c = cast(%e) : i32[]
    %partial = add(%x, %w) : f32[2]
    return %e, %v, %d, %lt, %s, %c, %partial
  }
}
