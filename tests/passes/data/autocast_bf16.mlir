// passes: autocast{compute=bf16}
// torch.autocast("cpu", bfloat16) on a Linear + softmax + residual + cross-entropy:
// the dot and its bias add in bf16 (the weight cast once, though used twice), the
// scalar 0.5 taking the tensor's dtype, softmax computed in f32 and rounded once,
// the residual add promoted to f32, relu following its input, the loss in f32.
module @m {
  func @loss(%x: f32[4,8] {input}, %y: i64[4] {input}, %w: f32[8,8] {param}, %b: f32[8] {param}) -> (f32[]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,8] meta {scope = "fc"}
    %1 = add(%0, %b) : f32[4,8] meta {scope = "fc"}
    %2 = constant() {value = 0.5} : f32[]
    %3 = mul(%1, %2) : f32[4,8]
    %4 = softmax(%3) {axis = -1} : f32[4,8]
    %5 = relu(%4) : f32[4,8]
    %6 = dot(%5, %w) {transpose_a = false, transpose_b = true} : f32[4,8] meta {scope = "fc2"}
    %7 = add(%x, %6) : f32[4,8]
    %8 = cross_entropy(%7, %y) {reduction = "mean"} : f32[]
    return %8
  }
  func @other(%x: f32[4] {input}) -> (f32[4]) {
    %0 = exp(%x) : f32[4]
    return %0
  }
}
