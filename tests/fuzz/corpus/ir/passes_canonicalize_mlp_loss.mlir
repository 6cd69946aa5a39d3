// passes: decompose,canonicalize
// A two-layer MLP with a cross-entropy loss, decomposed: canonicalize merges
// the two 0.0 constants (relu and the target mask) and changes nothing else.
module @mlp {
  func @loss(%x: f32[8,16] {input}, %y: i64[8] {input}, %w1: f32[16,32] {param}, %b1: f32[32] {param}, %w2: f32[32,10] {param}, %b2: f32[10] {param}) -> (f32[]) {
    %0 = dot(%x, %w1) : f32[8,32]
    %1 = broadcast(%b1) {dims = [1]} : f32[8,32]
    %2 = add(%0, %1) : f32[8,32]
    %3 = relu(%2) : f32[8,32]
    %4 = dot(%3, %w2) : f32[8,10]
    %5 = broadcast(%b2) {dims = [1]} : f32[8,10]
    %6 = add(%4, %5) : f32[8,10]
    %7 = cross_entropy(%6, %y) : f32[]
    return %7
  }
}
