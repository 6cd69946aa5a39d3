// passes: decompose,canonicalize
// A transformer-style block (layer_norm, gelu, softmax, rms_norm, silu, mse,
// erf gelu) decomposed: equal constants merge (the three 8.0 counts, 0.5, 1.0)
// and the two gelus share x * 0.5.
module @block {
  func @f(%x: f32[4,8] {input}, %g: f32[8] {param}, %b: f32[8] {param}, %t: f32[4,8] {input}) -> (f32[], f32[4,8]) {
    %0 = layer_norm(%x, %g, %b) {eps = 1.0e-05} : f32[4,8]
    %1 = gelu(%0) {approximate = "tanh"} : f32[4,8]
    %2 = softmax(%1) {axis = -1} : f32[4,8]
    %3 = rms_norm(%2, %g) {eps = 1.0e-06} : f32[4,8]
    %4 = silu(%3) : f32[4,8]
    %5 = mse(%4, %t) {reduction = "mean"} : f32[]
    %6 = gelu(%0) {approximate = "none"} : f32[4,8]
    return %5, %6
  }
}
