// passes: fold-constants,dce
// bf16 and f16 compute in float and round once to the dtype: f16 0.1 + 0.2
// is the f16 0.2998046875 (a tie rounded to even), written as the shortest
// decimal that reads back as it. Casts round once to the target.
module @m {
  func @f() -> (f16[], bf16[], f32[], bf16[], f16[]) {
    %a = constant() {value = 0.1} : f16[]
    %b = constant() {value = 0.2} : f16[]
    %s = add(%a, %b) : f16[]
    %x = constant() {value = 3.0} : bf16[]
    %l = log(%x) : bf16[]
    %w = cast(%l) : f32[]
    %big = constant() {value = 1.0e+30} : f32[]
    %h = cast(%big) : bf16[]
    %o = cast(%big) : f16[]
    return %s, %l, %w, %h, %o
  }
}
