// passes: canonicalize
// Hand-written attention scores as a frontend might emit them: the scale
// 1 / sqrt(8) folds to one f32 constant, the key's double transpose composes
// away, the reshape chain collapses, the multiply by a folded 1 disappears a
// round later, and the mask folds to all-true so its select goes too. Dead
// ops are removed.
module @attn {
  func @scores(%q: f32[2,4,8] {input}, %k: f32[2,4,8] {input}) -> (f32[2,4,4]) {
    %d = constant() {value = 8} : f32[]
    %sd = sqrt(%d) : f32[]
    %one = constant() {value = 1.0} : f32[]
    %scale = div(%one, %sd) : f32[]
    %kt = transpose(%k) {perm = [0, 2, 1]} : f32[2,8,4]
    %kk = transpose(%kt) {perm = [0, 2, 1]} : f32[2,4,8]
    %q2 = reshape(%q) : f32[8,8]
    %q3 = reshape(%q2) : f32[2,4,8]
    %s = dot(%q3, %kk) {transpose_b = true} : f32[2,4,4]
    %sb = broadcast(%scale) {dims = []} : f32[2,4,4]
    %scaled = mul(%s, %sb) : f32[2,4,4]
    %zero = constant() {value = 0.0} : f32[]
    %e0 = exp(%zero) : f32[]
    %ones = broadcast(%e0) {dims = []} : f32[2,4,4]
    %kept = mul(%scaled, %ones) : f32[2,4,4]
    %z3 = broadcast(%zero) {dims = []} : f32[2,4,4]
    %mask = compare(%z3, %z3) {direction = "eq"} : bool[2,4,4]
    %out = select(%mask, %kept, %z3) : f32[2,4,4]
    %unused = neg(%out) : f32[2,4,4]
    return %out
  }
}
