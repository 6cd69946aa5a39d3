module @digits_cnn {
  func @loss(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %conv1.weight: f32[16,1,3,3] {param}, %conv1.bias: f32[16] {param}, %fc.weight: f32[256,10] {param}, %fc.bias: f32[10] {param}) -> (f32[]) {
    %0 = conv2d(%x, %conv1.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,8,8] loc("examples/digits_cnn.json":9:7)
    %1 = broadcast(%conv1.bias) {dims = [1]} : f32[32,16,8,8] loc("examples/digits_cnn.json":9:7)
    %2 = add(%0, %1) : f32[32,16,8,8] loc("examples/digits_cnn.json":9:7)
    %3 = relu(%2) : f32[32,16,8,8] loc("examples/digits_cnn.json":10:7)
    %4 = max_pool2d(%3) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,16,4,4] loc("examples/digits_cnn.json":11:7)
    %5 = reshape(%4) : f32[32,256] loc("examples/digits_cnn.json":12:7)
    %6 = dot(%5, %fc.weight) {transpose_a = false, transpose_b = false} : f32[32,10] loc("examples/digits_cnn.json":13:7)
    %7 = broadcast(%fc.bias) {dims = [1]} : f32[32,10] loc("examples/digits_cnn.json":13:7)
    %8 = add(%6, %7) : f32[32,10] loc("examples/digits_cnn.json":13:7)
    %9 = cross_entropy(%8, %y) {reduction = "mean"} : f32[]
    return %9
  }

  func @eval(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %conv1.weight: f32[16,1,3,3] {param}, %conv1.bias: f32[16] {param}, %fc.weight: f32[256,10] {param}, %fc.bias: f32[10] {param}) -> (f32[], i64[]) {
    %0 = conv2d(%x, %conv1.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,8,8]
    %1 = broadcast(%conv1.bias) {dims = [1]} : f32[32,16,8,8]
    %2 = add(%0, %1) : f32[32,16,8,8]
    %3 = constant() {value = 0.0} : f32[]
    %4 = max(%2, %3) : f32[32,16,8,8]
    %5 = avg_pool2d(%4) {kernel = [2, 2], stride = [2, 2], padding = [0, 0], count_include_pad = true} : f32[32,16,4,4]
    %6 = reshape(%5) : f32[32,256]
    %7 = dot(%6, %fc.weight) {transpose_a = false, transpose_b = false} : f32[32,10]
    %8 = broadcast(%fc.bias) {dims = [1]} : f32[32,10]
    %9 = add(%7, %8) : f32[32,10]
    %10 = cross_entropy(%9, %y) {reduction = "sum"} : f32[]
    %11 = argmax(%9) {axis = 1} : i64[32]
    %12 = compare(%11, %y) {direction = "eq"} : bool[32]
    %13 = cast(%12) : i64[32]
    %14 = reduce_sum(%13) {dims = [0], keepdim = false} : i64[]
    return %10, %14
  }
}
