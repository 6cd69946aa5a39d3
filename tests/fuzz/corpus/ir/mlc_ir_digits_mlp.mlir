module @digits_mlp {
  func @loss(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %fc1.weight: f32[128,64] {param}, %fc1.bias: f32[128] {param}, %fc2.weight: f32[10,128] {param}, %fc2.bias: f32[10] {param}) -> (f32[]) {
    %0 = reshape(%x) : f32[32,64] loc("examples/digits_mlp.json":10:18)
    %1 = dot(%0, %fc1.weight) {transpose_a = false, transpose_b = true} : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %2 = add(%1, %fc1.bias) : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %3 = relu(%2) : f32[32,128] loc("examples/digits_mlp.json":12:15)
    %4 = dot(%3, %fc2.weight) {transpose_a = false, transpose_b = true} : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %5 = add(%4, %fc2.bias) : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %6 = cross_entropy(%5, %y) {reduction = "mean"} : f32[] loc("examples/digits_mlp.json":16:11)
    return %6
  }

  func @eval(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %fc1.weight: f32[128,64] {param}, %fc1.bias: f32[128] {param}, %fc2.weight: f32[10,128] {param}, %fc2.bias: f32[10] {param}) -> (f32[], i64[]) {
    %0 = reshape(%x) : f32[32,64] loc("examples/digits_mlp.json":10:18)
    %1 = dot(%0, %fc1.weight) {transpose_a = false, transpose_b = true} : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %2 = add(%1, %fc1.bias) : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %3 = relu(%2) : f32[32,128] loc("examples/digits_mlp.json":12:15)
    %4 = dot(%3, %fc2.weight) {transpose_a = false, transpose_b = true} : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %5 = add(%4, %fc2.bias) : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %6 = cross_entropy(%5, %y) {reduction = "sum"} : f32[] loc("examples/digits_mlp.json":16:11)
    %7 = argmax(%5) {axis = 1} : i64[32] loc("examples/digits_mlp.json":16:11)
    %8 = compare(%7, %y) {direction = "eq"} : bool[32] loc("examples/digits_mlp.json":16:11)
    %9 = cast(%8) : i64[32] loc("examples/digits_mlp.json":16:11)
    %10 = reduce_sum(%9) {dims = [0], keepdim = false} : i64[] loc("examples/digits_mlp.json":16:11)
    return %6, %10
  }
}
