module @epilogue {
  func @step(%x: f32[4,8] {input}, %w: f32[6,8] {param}, %b: f32[6] {param}, %dy: f32[4,6] {input}) -> (f32[4,6], f32[6,8], f32[6]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,6] loc("mlp.json":3:5)
    %1 = add(%0, %b) : f32[4,6] loc("mlp.json":3:5)
    %2 = gelu(%1) {approximate = "tanh"} : f32[4,6] loc("mlp.json":4:5)
    %3 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : f32[6,8] loc("mlp.json":3:5)
    %4 = reduce_sum(%dy) {dims = [0], keepdim = false} : f32[6] loc("mlp.json":3:5)
    return %2, %3, %4
  }
}
