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

  func @loss_grad(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %fc1.weight: f32[128,64] {param}, %fc1.bias: f32[128] {param}, %fc2.weight: f32[10,128] {param}, %fc2.bias: f32[10] {param}) -> (f32[], f32[128,64], f32[128], f32[10,128], f32[10]) {
    %0 = reshape(%x) : f32[32,64] loc("examples/digits_mlp.json":10:18)
    %1 = dot(%0, %fc1.weight) {transpose_a = false, transpose_b = true} : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %2 = add(%1, %fc1.bias) : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %3 = relu(%2) : f32[32,128] loc("examples/digits_mlp.json":12:15)
    %4 = dot(%3, %fc2.weight) {transpose_a = false, transpose_b = true} : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %5 = add(%4, %fc2.bias) : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %6 = reduce_max(%5) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %7 = sub(%5, %6) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %8 = exp(%7) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %9 = reduce_sum(%8) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %10 = log(%9) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %11 = sub(%7, %10) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %12 = iota() {dim = 1} : i64[32,10] loc("examples/digits_mlp.json":16:11)
    %13 = reshape(%y) : i64[32,1] loc("examples/digits_mlp.json":16:11)
    %14 = compare(%12, %13) {direction = "eq"} : bool[32,10] loc("examples/digits_mlp.json":16:11)
    %15 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %16 = select(%14, %11, %15) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %17 = reduce_sum(%16) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_mlp.json":16:11)
    %18 = neg(%17) : f32[32] loc("examples/digits_mlp.json":16:11)
    %19 = reduce_sum(%18) {dims = [0], keepdim = false} : f32[] loc("examples/digits_mlp.json":16:11)
    %20 = constant() {value = 32.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %21 = div(%19, %20) : f32[] loc("examples/digits_mlp.json":16:11)
    %22 = constant() {value = 1.0} : f32[]
    %23 = mul(%20, %20) : f32[] loc("examples/digits_mlp.json":16:11)
    %24 = neg(%22) : f32[] loc("examples/digits_mlp.json":16:11)
    %25 = mul(%24, %19) : f32[] loc("examples/digits_mlp.json":16:11)
    %26 = div(%25, %23) : f32[] loc("examples/digits_mlp.json":16:11)
    %27 = div(%22, %20) : f32[] loc("examples/digits_mlp.json":16:11)
    %28 = reshape(%27) : f32[1] loc("examples/digits_mlp.json":16:11)
    %29 = broadcast(%28) {dims = [0]} : f32[32] loc("examples/digits_mlp.json":16:11)
    %30 = neg(%29) : f32[32] loc("examples/digits_mlp.json":16:11)
    %31 = reshape(%30) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %32 = broadcast(%31) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %33 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %34 = select(%14, %32, %33) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %35 = select(%14, %33, %32) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %36 = reduce_sum(%35) {dims = [0, 1], keepdim = false} : f32[] loc("examples/digits_mlp.json":16:11)
    %37 = neg(%34) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %38 = reduce_sum(%37) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_mlp.json":16:11)
    %39 = reshape(%38) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %40 = div(%39, %9) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %41 = broadcast(%40) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %42 = mul(%41, %8) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %43 = add(%34, %42) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %44 = neg(%43) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %45 = reduce_sum(%44) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_mlp.json":16:11)
    %46 = reshape(%45) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %47 = broadcast(%6) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %48 = compare(%5, %47) {direction = "eq"} : bool[32,10] loc("examples/digits_mlp.json":16:11)
    %49 = cast(%48) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %50 = reduce_sum(%49) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %51 = div(%46, %50) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %52 = broadcast(%51) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %53 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %54 = select(%48, %52, %53) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %55 = add(%43, %54) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %56 = reduce_sum(%55) {dims = [0], keepdim = false} : f32[10] loc("examples/digits_mlp.json":13:14)
    %57 = dot(%55, %fc2.weight) {transpose_a = false, transpose_b = false} : f32[32,128] loc("examples/digits_mlp.json":13:14)
    %58 = dot(%55, %3) {transpose_a = true, transpose_b = false} : f32[10,128] loc("examples/digits_mlp.json":13:14)
    %59 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":12:15)
    %60 = compare(%2, %59) {direction = "gt"} : bool[32,128] loc("examples/digits_mlp.json":12:15)
    %61 = select(%60, %57, %59) : f32[32,128] loc("examples/digits_mlp.json":12:15)
    %62 = reduce_sum(%61) {dims = [0], keepdim = false} : f32[128] loc("examples/digits_mlp.json":11:14)
    %63 = dot(%61, %fc1.weight) {transpose_a = false, transpose_b = false} : f32[32,64] loc("examples/digits_mlp.json":11:14)
    %64 = dot(%61, %0) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/digits_mlp.json":11:14)
    return %21, %64, %62, %58, %56
  }

  func @train_step(%x: f32[32,1,8,8] {input}, %y: i64[32] {input}, %fc1.weight: f32[128,64] {param}, %fc1.bias: f32[128] {param}, %fc2.weight: f32[10,128] {param}, %fc2.bias: f32[10] {param}, %fc1.weight.momentum_buffer: f32[128,64] {state}, %fc1.bias.momentum_buffer: f32[128] {state}, %fc2.weight.momentum_buffer: f32[10,128] {state}, %fc2.bias.momentum_buffer: f32[10] {state}, %step: i64[] {input}) -> (f32[], f32[128,64], f32[128], f32[10,128], f32[10], f32[128,64], f32[128], f32[10,128], f32[10]) {
    %0 = reshape(%x) : f32[32,64] loc("examples/digits_mlp.json":10:18)
    %1 = dot(%0, %fc1.weight) {transpose_a = false, transpose_b = true} : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %2 = add(%1, %fc1.bias) : f32[32,128] loc("examples/digits_mlp.json":11:14)
    %3 = relu(%2) : f32[32,128] loc("examples/digits_mlp.json":12:15)
    %4 = dot(%3, %fc2.weight) {transpose_a = false, transpose_b = true} : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %5 = add(%4, %fc2.bias) : f32[32,10] loc("examples/digits_mlp.json":13:14)
    %6 = reduce_max(%5) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %7 = sub(%5, %6) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %8 = exp(%7) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %9 = reduce_sum(%8) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %10 = log(%9) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %11 = sub(%7, %10) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %12 = iota() {dim = 1} : i64[32,10] loc("examples/digits_mlp.json":16:11)
    %13 = reshape(%y) : i64[32,1] loc("examples/digits_mlp.json":16:11)
    %14 = compare(%12, %13) {direction = "eq"} : bool[32,10] loc("examples/digits_mlp.json":16:11)
    %15 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %16 = select(%14, %11, %15) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %17 = reduce_sum(%16) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_mlp.json":16:11)
    %18 = neg(%17) : f32[32] loc("examples/digits_mlp.json":16:11)
    %19 = reduce_sum(%18) {dims = [0], keepdim = false} : f32[] loc("examples/digits_mlp.json":16:11)
    %20 = constant() {value = 32.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %21 = div(%19, %20) : f32[] loc("examples/digits_mlp.json":16:11)
    %22 = constant() {value = 1.0} : f32[]
    %23 = mul(%20, %20) : f32[] loc("examples/digits_mlp.json":16:11)
    %24 = neg(%22) : f32[] loc("examples/digits_mlp.json":16:11)
    %25 = mul(%24, %19) : f32[] loc("examples/digits_mlp.json":16:11)
    %26 = div(%25, %23) : f32[] loc("examples/digits_mlp.json":16:11)
    %27 = div(%22, %20) : f32[] loc("examples/digits_mlp.json":16:11)
    %28 = reshape(%27) : f32[1] loc("examples/digits_mlp.json":16:11)
    %29 = broadcast(%28) {dims = [0]} : f32[32] loc("examples/digits_mlp.json":16:11)
    %30 = neg(%29) : f32[32] loc("examples/digits_mlp.json":16:11)
    %31 = reshape(%30) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %32 = broadcast(%31) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %33 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %34 = select(%14, %32, %33) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %35 = select(%14, %33, %32) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %36 = reduce_sum(%35) {dims = [0, 1], keepdim = false} : f32[] loc("examples/digits_mlp.json":16:11)
    %37 = neg(%34) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %38 = reduce_sum(%37) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_mlp.json":16:11)
    %39 = reshape(%38) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %40 = div(%39, %9) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %41 = broadcast(%40) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %42 = mul(%41, %8) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %43 = add(%34, %42) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %44 = neg(%43) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %45 = reduce_sum(%44) {dims = [1], keepdim = false} : f32[32] loc("examples/digits_mlp.json":16:11)
    %46 = reshape(%45) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %47 = broadcast(%6) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %48 = compare(%5, %47) {direction = "eq"} : bool[32,10] loc("examples/digits_mlp.json":16:11)
    %49 = cast(%48) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %50 = reduce_sum(%49) {dims = [1], keepdim = true} : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %51 = div(%46, %50) : f32[32,1] loc("examples/digits_mlp.json":16:11)
    %52 = broadcast(%51) {dims = [0, 1]} : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %53 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":16:11)
    %54 = select(%48, %52, %53) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %55 = add(%43, %54) : f32[32,10] loc("examples/digits_mlp.json":16:11)
    %56 = reduce_sum(%55) {dims = [0], keepdim = false} : f32[10] loc("examples/digits_mlp.json":13:14)
    %57 = dot(%55, %fc2.weight) {transpose_a = false, transpose_b = false} : f32[32,128] loc("examples/digits_mlp.json":13:14)
    %58 = dot(%55, %3) {transpose_a = true, transpose_b = false} : f32[10,128] loc("examples/digits_mlp.json":13:14)
    %59 = constant() {value = 0.0} : f32[] loc("examples/digits_mlp.json":12:15)
    %60 = compare(%2, %59) {direction = "gt"} : bool[32,128] loc("examples/digits_mlp.json":12:15)
    %61 = select(%60, %57, %59) : f32[32,128] loc("examples/digits_mlp.json":12:15)
    %62 = reduce_sum(%61) {dims = [0], keepdim = false} : f32[128] loc("examples/digits_mlp.json":11:14)
    %63 = dot(%61, %fc1.weight) {transpose_a = false, transpose_b = false} : f32[32,64] loc("examples/digits_mlp.json":11:14)
    %64 = dot(%61, %0) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/digits_mlp.json":11:14)
    %65 = constant() {value = 0.1} : f64[]
    %66 = neg(%65) : f64[]
    %67 = cast(%66) : f32[]
    %68 = constant() {value = 0.9} : f32[]
    %69 = mul(%fc1.weight.momentum_buffer, %68) : f32[128,64]
    %70 = add(%69, %64) : f32[128,64]
    %71 = mul(%70, %67) : f32[128,64]
    %72 = add(%fc1.weight, %71) : f32[128,64]
    %73 = constant() {value = 0.9} : f32[]
    %74 = mul(%fc1.bias.momentum_buffer, %73) : f32[128]
    %75 = add(%74, %62) : f32[128]
    %76 = mul(%75, %67) : f32[128]
    %77 = add(%fc1.bias, %76) : f32[128]
    %78 = constant() {value = 0.9} : f32[]
    %79 = mul(%fc2.weight.momentum_buffer, %78) : f32[10,128]
    %80 = add(%79, %58) : f32[10,128]
    %81 = mul(%80, %67) : f32[10,128]
    %82 = add(%fc2.weight, %81) : f32[10,128]
    %83 = constant() {value = 0.9} : f32[]
    %84 = mul(%fc2.bias.momentum_buffer, %83) : f32[10]
    %85 = add(%84, %56) : f32[10]
    %86 = mul(%85, %67) : f32[10]
    %87 = add(%fc2.bias, %86) : f32[10]
    return %21, %72, %77, %82, %87, %70, %75, %80, %85
  }

  func @optimizer_init() -> (f32[128,64], f32[128], f32[10,128], f32[10]) {
    %0 = constant() {value = 0.0} : f32[]
    %1 = broadcast(%0) {dims = []} : f32[128,64]
    %2 = constant() {value = 0.0} : f32[]
    %3 = broadcast(%2) {dims = []} : f32[128]
    %4 = constant() {value = 0.0} : f32[]
    %5 = broadcast(%4) {dims = []} : f32[10,128]
    %6 = constant() {value = 0.0} : f32[]
    %7 = broadcast(%6) {dims = []} : f32[10]
    return %1, %3, %5, %7
  }
}
