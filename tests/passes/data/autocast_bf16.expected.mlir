module @m {
  func @loss(%x: f32[4,8] {input}, %y: i64[4] {input}, %w: f32[8,8] {param}, %b: f32[8] {param}) -> (f32[]) {
    %0 = cast(%x) : bf16[4,8] meta {scope = "fc"}
    %1 = cast(%w) : bf16[8,8] meta {scope = "fc"}
    %2 = dot(%0, %1) {transpose_a = false, transpose_b = true} : bf16[4,8] meta {scope = "fc"}
    %3 = cast(%b) : bf16[8] meta {scope = "fc"}
    %4 = add(%2, %3) : bf16[4,8] meta {scope = "fc"}
    %5 = constant() {value = 0.5} : f32[]
    %6 = cast(%5) : bf16[]
    %7 = mul(%4, %6) : bf16[4,8]
    %8 = cast(%7) : f32[4,8]
    %9 = softmax(%8) {axis = -1} : f32[4,8]
    %10 = cast(%9) : bf16[4,8]
    %11 = relu(%10) : bf16[4,8]
    %12 = dot(%11, %1) {transpose_a = false, transpose_b = true} : bf16[4,8] meta {scope = "fc2"}
    %13 = cast(%12) : f32[4,8]
    %14 = add(%x, %13) : f32[4,8]
    %15 = cross_entropy(%14, %y) {reduction = "mean"} : f32[]
    return %15
  }

  func @other(%x: f32[4] {input}) -> (f32[4]) {
    %0 = exp(%x) : f32[4]
    return %0
  }
}
