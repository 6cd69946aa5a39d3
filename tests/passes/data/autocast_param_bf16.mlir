// passes: autocast{param=bf16}
// FSDP2's MixedPrecisionPolicy(param_dtype=bf16) without autocast: parameters and
// float inputs cast once at the top (integer inputs untouched), every op following
// its operands, the loss in f32 (a bf16 loss near 2 would be rounded to 2^-6).
module @m {
  func @loss(%x: f32[4,8] {input}, %y: i64[4] {input}, %w: f32[8,8] {param}, %g: f32[8] {param}) -> (f32[]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,8]
    %1 = rms_norm(%0, %g) {eps = 1e-05} : f32[4,8]
    %2 = cross_entropy(%1, %y) {reduction = "mean"} : f32[]
    return %2
  }
}
