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

  func @loss_grad(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %conv1.weight: f32[16,1,3,3] {param}, %conv1.bias: f32[16] {param}, %conv2.weight: f32[32,16,3,3] {param}, %conv2.bias: f32[32] {param}, %fc.weight: f32[10,128] {param}, %fc.bias: f32[10] {param}) -> (f32[], f32[16,1,3,3], f32[16], f32[32,16,3,3], f32[32], f32[10,128], f32[10]) {
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
    %13 = reduce_max(%12) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %14 = sub(%12, %13) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %15 = exp(%14) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %16 = reduce_sum(%15) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %17 = log(%16) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %18 = sub(%14, %17) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %19 = iota() {dim = 1} : i64[32,10] loc("examples/digits_cnn.json":20:11)
    %20 = reshape(%y) : i64[32,1] loc("examples/digits_cnn.json":20:11)
    %21 = compare(%19, %20) {direction = "eq"} : bool[32,10] loc("examples/digits_cnn.json":20:11)
    %22 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %23 = select(%21, %18, %22) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %24 = reduce_sum(%23) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_cnn.json":20:11)
    %25 = neg(%24) : f32[32] loc("examples/digits_cnn.json":20:11)
    %26 = reduce_sum(%25) {dims = [0], keepdim = false} : f32[] loc("examples/digits_cnn.json":20:11)
    %27 = constant() {value = 32.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %28 = div(%26, %27) : f32[] loc("examples/digits_cnn.json":20:11)
    %29 = constant() {value = 1.0} : f32[]
    %30 = mul(%27, %27) : f32[] loc("examples/digits_cnn.json":20:11)
    %31 = neg(%29) : f32[] loc("examples/digits_cnn.json":20:11)
    %32 = mul(%31, %26) : f32[] loc("examples/digits_cnn.json":20:11)
    %33 = div(%32, %30) : f32[] loc("examples/digits_cnn.json":20:11)
    %34 = div(%29, %27) : f32[] loc("examples/digits_cnn.json":20:11)
    %35 = reshape(%34) : f32[1] loc("examples/digits_cnn.json":20:11)
    %36 = broadcast(%35) {dims = [0]} : f32[32] loc("examples/digits_cnn.json":20:11)
    %37 = neg(%36) : f32[32] loc("examples/digits_cnn.json":20:11)
    %38 = reshape(%37) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %39 = broadcast(%38) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %40 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %41 = select(%21, %39, %40) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %42 = select(%21, %40, %39) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %43 = reduce_sum(%42) {dims = [0, 1], keepdim = false} : f32[] loc("examples/digits_cnn.json":20:11)
    %44 = neg(%41) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %45 = reduce_sum(%44) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_cnn.json":20:11)
    %46 = reshape(%45) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %47 = div(%46, %16) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %48 = broadcast(%47) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %49 = mul(%48, %15) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %50 = add(%41, %49) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %51 = neg(%50) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %52 = reduce_sum(%51) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_cnn.json":20:11)
    %53 = reshape(%52) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %54 = broadcast(%13) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %55 = compare(%12, %54) {direction = "eq"} : bool[32,10] loc("examples/digits_cnn.json":20:11)
    %56 = cast(%55) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %57 = reduce_sum(%56) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %58 = div(%53, %57) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %59 = broadcast(%58) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %60 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %61 = select(%55, %59, %60) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %62 = add(%50, %61) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %63 = reduce_sum(%62) {dims = [0], keepdim = false} : f32[10] loc("examples/digits_cnn.json":17:13)
    %64 = dot(%62, %fc.weight) {transpose_a = false, transpose_b = false} : f32[32,128] loc("examples/digits_cnn.json":17:13)
    %65 = dot(%62, %10) {transpose_a = true, transpose_b = false} : f32[10,128] loc("examples/digits_cnn.json":17:13)
    %66 = reshape(%64) : f32[32,32,2,2] loc("examples/digits_cnn.json":16:18)
    %67 = max_pool2d_grad(%8, %66) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,32,4,4] loc("examples/digits_cnn.json":15:16)
    %68 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":14:16)
    %69 = compare(%7, %68) {direction = "gt"} : bool[32,32,4,4] loc("examples/digits_cnn.json":14:16)
    %70 = select(%69, %67, %68) : f32[32,32,4,4] loc("examples/digits_cnn.json":14:16)
    %71 = reduce_sum(%70) {dims = [0, 2, 3], keepdim = false} : f32[32] loc("examples/digits_cnn.json":13:16)
    %72 = reshape(%71) : f32[32,1,1] loc("examples/digits_cnn.json":13:16)
    %73 = reshape(%72) : f32[32] loc("examples/digits_cnn.json":13:16)
    %74 = conv2d_input_grad(%70, %conv2.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,4,4] loc("examples/digits_cnn.json":13:16)
    %75 = conv2d_weight_grad(%4, %70) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,3,3] loc("examples/digits_cnn.json":13:16)
    %76 = max_pool2d_grad(%3, %74) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,16,8,8] loc("examples/digits_cnn.json":12:16)
    %77 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":11:16)
    %78 = compare(%2, %77) {direction = "gt"} : bool[32,16,8,8] loc("examples/digits_cnn.json":11:16)
    %79 = select(%78, %76, %77) : f32[32,16,8,8] loc("examples/digits_cnn.json":11:16)
    %80 = reduce_sum(%79) {dims = [0, 2, 3], keepdim = false} : f32[16] loc("examples/digits_cnn.json":10:16)
    %81 = reshape(%80) : f32[16,1,1] loc("examples/digits_cnn.json":10:16)
    %82 = reshape(%81) : f32[16] loc("examples/digits_cnn.json":10:16)
    %83 = conv2d_input_grad(%79, %conv1.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,1,8,8] loc("examples/digits_cnn.json":10:16)
    %84 = conv2d_weight_grad(%x, %79) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[16,1,3,3] loc("examples/digits_cnn.json":10:16)
    return %28, %84, %82, %75, %73, %65, %63
  }

  func @train_step(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %conv1.weight: f32[16,1,3,3] {param}, %conv1.bias: f32[16] {param}, %conv2.weight: f32[32,16,3,3] {param}, %conv2.bias: f32[32] {param}, %fc.weight: f32[10,128] {param}, %fc.bias: f32[10] {param}, %conv1.weight.momentum_buffer: f32[16,1,3,3] {state}, %conv1.bias.momentum_buffer: f32[16] {state}, %conv2.weight.momentum_buffer: f32[32,16,3,3] {state}, %conv2.bias.momentum_buffer: f32[32] {state}, %fc.weight.momentum_buffer: f32[10,128] {state}, %fc.bias.momentum_buffer: f32[10] {state}, %step: i64[] {input}) -> (f32[], f32[16,1,3,3], f32[16], f32[32,16,3,3], f32[32], f32[10,128], f32[10], f32[16,1,3,3], f32[16], f32[32,16,3,3], f32[32], f32[10,128], f32[10]) {
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
    %13 = reduce_max(%12) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %14 = sub(%12, %13) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %15 = exp(%14) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %16 = reduce_sum(%15) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %17 = log(%16) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %18 = sub(%14, %17) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %19 = iota() {dim = 1} : i64[32,10] loc("examples/digits_cnn.json":20:11)
    %20 = reshape(%y) : i64[32,1] loc("examples/digits_cnn.json":20:11)
    %21 = compare(%19, %20) {direction = "eq"} : bool[32,10] loc("examples/digits_cnn.json":20:11)
    %22 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %23 = select(%21, %18, %22) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %24 = reduce_sum(%23) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_cnn.json":20:11)
    %25 = neg(%24) : f32[32] loc("examples/digits_cnn.json":20:11)
    %26 = reduce_sum(%25) {dims = [0], keepdim = false} : f32[] loc("examples/digits_cnn.json":20:11)
    %27 = constant() {value = 32.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %28 = div(%26, %27) : f32[] loc("examples/digits_cnn.json":20:11)
    %29 = constant() {value = 1.0} : f32[]
    %30 = mul(%27, %27) : f32[] loc("examples/digits_cnn.json":20:11)
    %31 = neg(%29) : f32[] loc("examples/digits_cnn.json":20:11)
    %32 = mul(%31, %26) : f32[] loc("examples/digits_cnn.json":20:11)
    %33 = div(%32, %30) : f32[] loc("examples/digits_cnn.json":20:11)
    %34 = div(%29, %27) : f32[] loc("examples/digits_cnn.json":20:11)
    %35 = reshape(%34) : f32[1] loc("examples/digits_cnn.json":20:11)
    %36 = broadcast(%35) {dims = [0]} : f32[32] loc("examples/digits_cnn.json":20:11)
    %37 = neg(%36) : f32[32] loc("examples/digits_cnn.json":20:11)
    %38 = reshape(%37) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %39 = broadcast(%38) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %40 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %41 = select(%21, %39, %40) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %42 = select(%21, %40, %39) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %43 = reduce_sum(%42) {dims = [0, 1], keepdim = false} : f32[] loc("examples/digits_cnn.json":20:11)
    %44 = neg(%41) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %45 = reduce_sum(%44) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_cnn.json":20:11)
    %46 = reshape(%45) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %47 = div(%46, %16) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %48 = broadcast(%47) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %49 = mul(%48, %15) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %50 = add(%41, %49) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %51 = neg(%50) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %52 = reduce_sum(%51) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_cnn.json":20:11)
    %53 = reshape(%52) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %54 = broadcast(%13) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %55 = compare(%12, %54) {direction = "eq"} : bool[32,10] loc("examples/digits_cnn.json":20:11)
    %56 = cast(%55) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %57 = reduce_sum(%56) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %58 = div(%53, %57) : f32[32,1] loc("examples/digits_cnn.json":20:11)
    %59 = broadcast(%58) {dims = [0, 1]} : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %60 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":20:11)
    %61 = select(%55, %59, %60) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %62 = add(%50, %61) : f32[32,10] loc("examples/digits_cnn.json":20:11)
    %63 = reduce_sum(%62) {dims = [0], keepdim = false} : f32[10] loc("examples/digits_cnn.json":17:13)
    %64 = dot(%62, %fc.weight) {transpose_a = false, transpose_b = false} : f32[32,128] loc("examples/digits_cnn.json":17:13)
    %65 = dot(%62, %10) {transpose_a = true, transpose_b = false} : f32[10,128] loc("examples/digits_cnn.json":17:13)
    %66 = reshape(%64) : f32[32,32,2,2] loc("examples/digits_cnn.json":16:18)
    %67 = max_pool2d_grad(%8, %66) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,32,4,4] loc("examples/digits_cnn.json":15:16)
    %68 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":14:16)
    %69 = compare(%7, %68) {direction = "gt"} : bool[32,32,4,4] loc("examples/digits_cnn.json":14:16)
    %70 = select(%69, %67, %68) : f32[32,32,4,4] loc("examples/digits_cnn.json":14:16)
    %71 = reduce_sum(%70) {dims = [0, 2, 3], keepdim = false} : f32[32] loc("examples/digits_cnn.json":13:16)
    %72 = reshape(%71) : f32[32,1,1] loc("examples/digits_cnn.json":13:16)
    %73 = reshape(%72) : f32[32] loc("examples/digits_cnn.json":13:16)
    %74 = conv2d_input_grad(%70, %conv2.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,4,4] loc("examples/digits_cnn.json":13:16)
    %75 = conv2d_weight_grad(%4, %70) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,16,3,3] loc("examples/digits_cnn.json":13:16)
    %76 = max_pool2d_grad(%3, %74) {kernel = [2, 2], stride = [2, 2], padding = [0, 0]} : f32[32,16,8,8] loc("examples/digits_cnn.json":12:16)
    %77 = constant() {value = 0.0} : f32[] loc("examples/digits_cnn.json":11:16)
    %78 = compare(%2, %77) {direction = "gt"} : bool[32,16,8,8] loc("examples/digits_cnn.json":11:16)
    %79 = select(%78, %76, %77) : f32[32,16,8,8] loc("examples/digits_cnn.json":11:16)
    %80 = reduce_sum(%79) {dims = [0, 2, 3], keepdim = false} : f32[16] loc("examples/digits_cnn.json":10:16)
    %81 = reshape(%80) : f32[16,1,1] loc("examples/digits_cnn.json":10:16)
    %82 = reshape(%81) : f32[16] loc("examples/digits_cnn.json":10:16)
    %83 = conv2d_input_grad(%79, %conv1.weight) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[32,1,8,8] loc("examples/digits_cnn.json":10:16)
    %84 = conv2d_weight_grad(%x, %79) {stride = [1, 1], padding = [1, 1], dilation = [1, 1], groups = 1} : f32[16,1,3,3] loc("examples/digits_cnn.json":10:16)
    %85 = constant() {value = 0.1} : f64[]
    %86 = neg(%85) : f64[]
    %87 = cast(%86) : f32[]
    %88 = constant() {value = 0.9} : f32[]
    %89 = mul(%conv1.weight.momentum_buffer, %88) : f32[16,1,3,3]
    %90 = add(%89, %84) : f32[16,1,3,3]
    %91 = mul(%90, %87) : f32[16,1,3,3]
    %92 = add(%conv1.weight, %91) : f32[16,1,3,3]
    %93 = constant() {value = 0.9} : f32[]
    %94 = mul(%conv1.bias.momentum_buffer, %93) : f32[16]
    %95 = add(%94, %82) : f32[16]
    %96 = mul(%95, %87) : f32[16]
    %97 = add(%conv1.bias, %96) : f32[16]
    %98 = constant() {value = 0.9} : f32[]
    %99 = mul(%conv2.weight.momentum_buffer, %98) : f32[32,16,3,3]
    %100 = add(%99, %75) : f32[32,16,3,3]
    %101 = mul(%100, %87) : f32[32,16,3,3]
    %102 = add(%conv2.weight, %101) : f32[32,16,3,3]
    %103 = constant() {value = 0.9} : f32[]
    %104 = mul(%conv2.bias.momentum_buffer, %103) : f32[32]
    %105 = add(%104, %73) : f32[32]
    %106 = mul(%105, %87) : f32[32]
    %107 = add(%conv2.bias, %106) : f32[32]
    %108 = constant() {value = 0.9} : f32[]
    %109 = mul(%fc.weight.momentum_buffer, %108) : f32[10,128]
    %110 = add(%109, %65) : f32[10,128]
    %111 = mul(%110, %87) : f32[10,128]
    %112 = add(%fc.weight, %111) : f32[10,128]
    %113 = constant() {value = 0.9} : f32[]
    %114 = mul(%fc.bias.momentum_buffer, %113) : f32[10]
    %115 = add(%114, %63) : f32[10]
    %116 = mul(%115, %87) : f32[10]
    %117 = add(%fc.bias, %116) : f32[10]
    return %28, %92, %97, %102, %107, %112, %117, %90, %95, %100, %105, %110, %115
  }

  func @optimizer_init() -> (f32[16,1,3,3], f32[16], f32[32,16,3,3], f32[32], f32[10,128], f32[10]) {
    %0 = constant() {value = 0.0} : f32[]
    %1 = broadcast(%0) {dims = []} : f32[16,1,3,3]
    %2 = constant() {value = 0.0} : f32[]
    %3 = broadcast(%2) {dims = []} : f32[16]
    %4 = constant() {value = 0.0} : f32[]
    %5 = broadcast(%4) {dims = []} : f32[32,16,3,3]
    %6 = constant() {value = 0.0} : f32[]
    %7 = broadcast(%6) {dims = []} : f32[32]
    %8 = constant() {value = 0.0} : f32[]
    %9 = broadcast(%8) {dims = []} : f32[10,128]
    %10 = constant() {value = 0.0} : f32[]
    %11 = broadcast(%10) {dims = []} : f32[10]
    return %1, %3, %5, %7, %9, %11
  }
}
