module @m {
  func @loss(%x: f32[4,8] {input}, %y: i64[4] {input}, %w: f32[8,8] {param}, %g: f32[8] {param}) -> (f32[]) {
    %0 = cast(%x) : bf16[4,8]
    %1 = cast(%w) : bf16[8,8]
    %2 = cast(%g) : bf16[8]
    %3 = dot(%0, %1) {transpose_a = false, transpose_b = true} : bf16[4,8]
    %4 = rms_norm(%3, %2) {eps = 1e-05} : bf16[4,8]
    %5 = cast(%4) : f32[4,8]
    %6 = cross_entropy(%5, %y) {reduction = "mean"} : f32[]
    return %6
  }
}
