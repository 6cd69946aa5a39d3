module @digits_cnn {
  func @loss(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %conv1.weight: f32[16,1,3,3] {param}, %conv1.bias: f32[16] {param}, %conv2.weight: f32[32,16,3,3] {param}, %conv2.bias: f32[32] {param}, %fc.weight: f32[10,128] {param}, %fc.bias: f32[10] {param}) -> (f32[]) {
    %0 = conv2d(%x, %conv1.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,8,8] loc("examples/digits_cnn.json":10:16)
    %1 = reshape(%conv1.bias) : f32[16,1,1] loc("examples/digits_cnn.json":10:16)
    %2 = add(%0, %1) : f32[32,16,8,8] loc("examples/digits_cnn.json":10:16)
    %3 = relu(%2) : f32[32,16,8,8] loc("examples/digits_cnn.json":11:16)
    %4 = max_pool2d(%3) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,16,4,4] loc("examples/digits_cnn.json":12:16)
    %5 = conv2d(%4, %conv2.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,32,4,4] loc("examples/digits_cnn.json":13:16)
    %6 = reshape(%conv2.bias) : f32[32,1,1] loc("examples/digits_cnn.json":13:16)
    %7 = add(%5, %6) : f32[32,32,4,4] loc("examples/digits_cnn.json":13:16)
    %8 = relu(%7) : f32[32,32,4,4] loc("examples/digits_cnn.json":14:16)
    %9 = max_pool2d(%8) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,32,2,2] loc("examples/digits_cnn.json":15:16)
    %10 = reshape(%9) : f32[32,128] loc("examples/digits_cnn.json":16:18)
    %11 = dot(%10, %fc.weight) {transpose_a = false, transpose_b = true} : f32[32,10] loc("examples/digits_cnn.json":17:13)
    %12 = add(%11, %fc.bias) : f32[32,10] loc("examples/digits_cnn.json":17:13)
    %13 = cross_entropy(%12, %y) {reduction = "mean"} : f32[] loc("examples/digits_cnn.json":20:11)
    return %13
  }

  func @eval(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %conv1.weight: f32[16,1,3,3] {param}, %conv1.bias: f32[16] {param}, %conv2.weight: f32[32,16,3,3] {param}, %conv2.bias: f32[32] {param}, %fc.weight: f32[10,128] {param}, %fc.bias: f32[10] {param}) -> (f32[], i64[]) {
    %0 = conv2d(%x, %conv1.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,8,8] loc("examples/digits_cnn.json":10:16)
    %1 = reshape(%conv1.bias) : f32[16,1,1] loc("examples/digits_cnn.json":10:16)
    %2 = add(%0, %1) : f32[32,16,8,8] loc("examples/digits_cnn.json":10:16)
    %3 = relu(%2) : f32[32,16,8,8] loc("examples/digits_cnn.json":11:16)
    %4 = max_pool2d(%3) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,16,4,4] loc("examples/digits_cnn.json":12:16)
    %5 = conv2d(%4, %conv2.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,32,4,4] loc("examples/digits_cnn.json":13:16)
    %6 = reshape(%conv2.bias) : f32[32,1,1] loc("examples/digits_cnn.json":13:16)
    %7 = add(%5, %6) : f32[32,32,4,4] loc("examples/digits_cnn.json":13:16)
    %8 = relu(%7) : f32[32,32,4,4] loc("examples/digits_cnn.json":14:16)
    %9 = max_pool2d(%8) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,32,2,2] loc("examples/digits_cnn.json":15:16)
    %10 = reshape(%9) : f32[32,128] loc("examples/digits_cnn.json":16:18)
    %11 = dot(%10, %fc.weight) {transpose_a = false, transpose_b = true} : f32[32,10] loc("examples/digits_cnn.json":17:13)
    %12 = add(%11, %fc.bias) : f32[32,10] loc("examples/digits_cnn.json":17:13)
    %13 = cross_entropy(%12, %y) {reduction = "sum"} : f32[] loc("examples/digits_cnn.json":20:11)
    %14 = argmax(%12) {axis = 1} : i64[32] loc("examples/digits_cnn.json":20:11)
    %15 = compare(%14, %y) {direction = "eq"} : bool[32] loc("examples/digits_cnn.json":20:11)
    %16 = cast(%15) : i64[32] loc("examples/digits_cnn.json":20:11)
    %17 = reduce_sum(%16) {dims = [0], keepdim = false} : i64[] loc("examples/digits_cnn.json":20:11)
    return %13, %17
  }
}
