module @attn {
  func @scores(%q: f32[2,4,8] {input}, %k: f32[2,4,8] {input}) -> (f32[2,4,4]) {
    %0 = dot(%q, %k) {transpose_a = false, transpose_b = true} : f32[2,4,4]
    %1 = constant() {value = 0.35355338} : f32[2,4,4]
    %2 = mul(%0, %1) : f32[2,4,4]
    return %2
  }
}
