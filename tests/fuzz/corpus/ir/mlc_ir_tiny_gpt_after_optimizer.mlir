module @tiny_gpt {
  func @loss(%tokens: i64[16,32] {input}, %targets: i64[16,32] {input}, %tok_emb.weight: f32[64,64] {param}, %pos_emb.weight: f32[32,64] {param}, %layers.0.attn_norm.weight: f32[64] {param}, %layers.0.attn.wq.weight: f32[64,64] {param}, %layers.0.attn.wk.weight: f32[64,64] {param}, %layers.0.attn.wv.weight: f32[64,64] {param}, %layers.0.attn.wo.weight: f32[64,64] {param}, %layers.0.mlp_norm.weight: f32[64] {param}, %layers.0.mlp.w1.weight: f32[128,64] {param}, %layers.0.mlp.w3.weight: f32[128,64] {param}, %layers.0.mlp.w2.weight: f32[64,128] {param}, %layers.1.attn_norm.weight: f32[64] {param}, %layers.1.attn.wq.weight: f32[64,64] {param}, %layers.1.attn.wk.weight: f32[64,64] {param}, %layers.1.attn.wv.weight: f32[64,64] {param}, %layers.1.attn.wo.weight: f32[64,64] {param}, %layers.1.mlp_norm.weight: f32[64] {param}, %layers.1.mlp.w1.weight: f32[128,64] {param}, %layers.1.mlp.w3.weight: f32[128,64] {param}, %layers.1.mlp.w2.weight: f32[64,128] {param}, %norm.weight: f32[64] {param}, %head.weight: f32[64,64] {param}) -> (f32[]) {
    %0 = gather(%tok_emb.weight, %tokens) {axis = 0} : f32[16,32,64] loc("examples/tiny_gpt.json":10:18)
    %1 = iota() {dim = 0} : i64[32] loc("examples/tiny_gpt.json":31:7)
    %2 = gather(%pos_emb.weight, %1) {axis = 0} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %3 = add(%0, %2) : f32[16,32,64] loc("examples/tiny_gpt.json":31:7)
    %4 = rms_norm(%3, %layers.0.attn_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %5 = dot(%4, %layers.0.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %6 = reshape(%5) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %7 = transpose(%6) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %8 = dot(%4, %layers.0.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %9 = reshape(%8) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %10 = transpose(%9) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %11 = dot(%4, %layers.0.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %12 = reshape(%11) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %13 = transpose(%12) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %14 = dot(%7, %10) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %15 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %16 = mul(%14, %15) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %17 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %18 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %19 = compare(%18, %17) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %20 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %21 = select(%19, %20, %16) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %22 = softmax(%21) {axis = -1} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %23 = dot(%22, %13) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %24 = transpose(%23) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %25 = reshape(%24) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %26 = dot(%25, %layers.0.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %27 = add(%3, %26) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %28 = rms_norm(%27, %layers.0.mlp_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %29 = dot(%28, %layers.0.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %30 = silu(%29) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %31 = dot(%28, %layers.0.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %32 = mul(%30, %31) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %33 = dot(%32, %layers.0.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %34 = add(%27, %33) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %35 = rms_norm(%34, %layers.1.attn_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %36 = dot(%35, %layers.1.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %37 = reshape(%36) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %38 = transpose(%37) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %39 = dot(%35, %layers.1.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %40 = reshape(%39) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %41 = transpose(%40) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %42 = dot(%35, %layers.1.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %43 = reshape(%42) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %44 = transpose(%43) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %45 = dot(%38, %41) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %46 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %47 = mul(%45, %46) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %48 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %49 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %50 = compare(%49, %48) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %51 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %52 = select(%50, %51, %47) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %53 = softmax(%52) {axis = -1} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %54 = dot(%53, %44) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %55 = transpose(%54) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %56 = reshape(%55) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %57 = dot(%56, %layers.1.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %58 = add(%34, %57) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %59 = rms_norm(%58, %layers.1.mlp_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %60 = dot(%59, %layers.1.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %61 = silu(%60) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %62 = dot(%59, %layers.1.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %63 = mul(%61, %62) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %64 = dot(%63, %layers.1.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %65 = add(%58, %64) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %66 = rms_norm(%65, %norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %67 = dot(%66, %head.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":28:15)
    %68 = cross_entropy(%67, %targets) {reduction = "mean"} : f32[] loc("examples/tiny_gpt.json":36:11)
    return %68
  }

  func @eval(%tokens: i64[16,32] {input}, %targets: i64[16,32] {input}, %tok_emb.weight: f32[64,64] {param}, %pos_emb.weight: f32[32,64] {param}, %layers.0.attn_norm.weight: f32[64] {param}, %layers.0.attn.wq.weight: f32[64,64] {param}, %layers.0.attn.wk.weight: f32[64,64] {param}, %layers.0.attn.wv.weight: f32[64,64] {param}, %layers.0.attn.wo.weight: f32[64,64] {param}, %layers.0.mlp_norm.weight: f32[64] {param}, %layers.0.mlp.w1.weight: f32[128,64] {param}, %layers.0.mlp.w3.weight: f32[128,64] {param}, %layers.0.mlp.w2.weight: f32[64,128] {param}, %layers.1.attn_norm.weight: f32[64] {param}, %layers.1.attn.wq.weight: f32[64,64] {param}, %layers.1.attn.wk.weight: f32[64,64] {param}, %layers.1.attn.wv.weight: f32[64,64] {param}, %layers.1.attn.wo.weight: f32[64,64] {param}, %layers.1.mlp_norm.weight: f32[64] {param}, %layers.1.mlp.w1.weight: f32[128,64] {param}, %layers.1.mlp.w3.weight: f32[128,64] {param}, %layers.1.mlp.w2.weight: f32[64,128] {param}, %norm.weight: f32[64] {param}, %head.weight: f32[64,64] {param}) -> (f32[], i64[]) {
    %0 = gather(%tok_emb.weight, %tokens) {axis = 0} : f32[16,32,64] loc("examples/tiny_gpt.json":10:18)
    %1 = iota() {dim = 0} : i64[32] loc("examples/tiny_gpt.json":31:7)
    %2 = gather(%pos_emb.weight, %1) {axis = 0} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %3 = add(%0, %2) : f32[16,32,64] loc("examples/tiny_gpt.json":31:7)
    %4 = rms_norm(%3, %layers.0.attn_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %5 = dot(%4, %layers.0.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %6 = reshape(%5) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %7 = transpose(%6) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %8 = dot(%4, %layers.0.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %9 = reshape(%8) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %10 = transpose(%9) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %11 = dot(%4, %layers.0.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %12 = reshape(%11) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %13 = transpose(%12) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %14 = dot(%7, %10) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %15 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %16 = mul(%14, %15) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %17 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %18 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %19 = compare(%18, %17) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %20 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %21 = select(%19, %20, %16) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %22 = softmax(%21) {axis = -1} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %23 = dot(%22, %13) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %24 = transpose(%23) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %25 = reshape(%24) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %26 = dot(%25, %layers.0.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %27 = add(%3, %26) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %28 = rms_norm(%27, %layers.0.mlp_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %29 = dot(%28, %layers.0.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %30 = silu(%29) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %31 = dot(%28, %layers.0.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %32 = mul(%30, %31) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %33 = dot(%32, %layers.0.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %34 = add(%27, %33) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %35 = rms_norm(%34, %layers.1.attn_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %36 = dot(%35, %layers.1.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %37 = reshape(%36) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %38 = transpose(%37) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %39 = dot(%35, %layers.1.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %40 = reshape(%39) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %41 = transpose(%40) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %42 = dot(%35, %layers.1.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %43 = reshape(%42) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %44 = transpose(%43) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %45 = dot(%38, %41) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %46 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %47 = mul(%45, %46) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %48 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %49 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %50 = compare(%49, %48) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %51 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %52 = select(%50, %51, %47) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %53 = softmax(%52) {axis = -1} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %54 = dot(%53, %44) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %55 = transpose(%54) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %56 = reshape(%55) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %57 = dot(%56, %layers.1.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %58 = add(%34, %57) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %59 = rms_norm(%58, %layers.1.mlp_norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %60 = dot(%59, %layers.1.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %61 = silu(%60) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %62 = dot(%59, %layers.1.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %63 = mul(%61, %62) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %64 = dot(%63, %layers.1.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %65 = add(%58, %64) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %66 = rms_norm(%65, %norm.weight) {eps = 1e-05} : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %67 = dot(%66, %head.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":28:15)
    %68 = cross_entropy(%67, %targets) {reduction = "sum"} : f32[] loc("examples/tiny_gpt.json":36:11)
    %69 = argmax(%67) {axis = 2} : i64[16,32] loc("examples/tiny_gpt.json":36:11)
    %70 = compare(%69, %targets) {direction = "eq"} : bool[16,32] loc("examples/tiny_gpt.json":36:11)
    %71 = cast(%70) : i64[16,32] loc("examples/tiny_gpt.json":36:11)
    %72 = reduce_sum(%71) {dims = [0, 1], keepdim = false} : i64[] loc("examples/tiny_gpt.json":36:11)
    return %68, %72
  }

  func @loss_grad(%tokens: i64[16,32] {input}, %targets: i64[16,32] {input}, %tok_emb.weight: f32[64,64] {param}, %pos_emb.weight: f32[32,64] {param}, %layers.0.attn_norm.weight: f32[64] {param}, %layers.0.attn.wq.weight: f32[64,64] {param}, %layers.0.attn.wk.weight: f32[64,64] {param}, %layers.0.attn.wv.weight: f32[64,64] {param}, %layers.0.attn.wo.weight: f32[64,64] {param}, %layers.0.mlp_norm.weight: f32[64] {param}, %layers.0.mlp.w1.weight: f32[128,64] {param}, %layers.0.mlp.w3.weight: f32[128,64] {param}, %layers.0.mlp.w2.weight: f32[64,128] {param}, %layers.1.attn_norm.weight: f32[64] {param}, %layers.1.attn.wq.weight: f32[64,64] {param}, %layers.1.attn.wk.weight: f32[64,64] {param}, %layers.1.attn.wv.weight: f32[64,64] {param}, %layers.1.attn.wo.weight: f32[64,64] {param}, %layers.1.mlp_norm.weight: f32[64] {param}, %layers.1.mlp.w1.weight: f32[128,64] {param}, %layers.1.mlp.w3.weight: f32[128,64] {param}, %layers.1.mlp.w2.weight: f32[64,128] {param}, %norm.weight: f32[64] {param}, %head.weight: f32[64,64] {param}) -> (f32[], f32[64,64], f32[32,64], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[128,64], f32[128,64], f32[64,128], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[128,64], f32[128,64], f32[64,128], f32[64], f32[64,64]) {
    %0 = gather(%tok_emb.weight, %tokens) {axis = 0} : f32[16,32,64] loc("examples/tiny_gpt.json":10:18)
    %1 = iota() {dim = 0} : i64[32] loc("examples/tiny_gpt.json":31:7)
    %2 = gather(%pos_emb.weight, %1) {axis = 0} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %3 = add(%0, %2) : f32[16,32,64] loc("examples/tiny_gpt.json":31:7)
    %4 = mul(%3, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %5 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":16:26)
    %6 = reduce_sum(%4) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %7 = div(%6, %5) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %8 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":16:26)
    %9 = add(%7, %8) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %10 = rsqrt(%9) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %11 = mul(%3, %10) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %12 = mul(%11, %layers.0.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %13 = dot(%12, %layers.0.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %14 = reshape(%13) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %15 = transpose(%14) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %16 = dot(%12, %layers.0.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %17 = reshape(%16) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %18 = transpose(%17) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %19 = dot(%12, %layers.0.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %20 = reshape(%19) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %21 = transpose(%20) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %22 = dot(%15, %18) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %23 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %24 = mul(%22, %23) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %25 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %26 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %27 = compare(%26, %25) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %28 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %29 = select(%27, %28, %24) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %30 = reduce_max(%29) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %31 = sub(%29, %30) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %32 = exp(%31) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %33 = reduce_sum(%32) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %34 = div(%32, %33) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %35 = dot(%34, %21) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %36 = transpose(%35) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %37 = reshape(%36) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %38 = dot(%37, %layers.0.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %39 = add(%3, %38) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %40 = mul(%39, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %41 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":18:25)
    %42 = reduce_sum(%40) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %43 = div(%42, %41) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %44 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":18:25)
    %45 = add(%43, %44) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %46 = rsqrt(%45) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %47 = mul(%39, %46) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %48 = mul(%47, %layers.0.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %49 = dot(%48, %layers.0.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %50 = sigmoid(%49) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %51 = mul(%49, %50) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %52 = dot(%48, %layers.0.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %53 = mul(%51, %52) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %54 = dot(%53, %layers.0.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %55 = add(%39, %54) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %56 = mul(%55, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %57 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":16:26)
    %58 = reduce_sum(%56) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %59 = div(%58, %57) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %60 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":16:26)
    %61 = add(%59, %60) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %62 = rsqrt(%61) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %63 = mul(%55, %62) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %64 = mul(%63, %layers.1.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %65 = dot(%64, %layers.1.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %66 = reshape(%65) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %67 = transpose(%66) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %68 = dot(%64, %layers.1.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %69 = reshape(%68) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %70 = transpose(%69) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %71 = dot(%64, %layers.1.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %72 = reshape(%71) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %73 = transpose(%72) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %74 = dot(%67, %70) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %75 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %76 = mul(%74, %75) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %77 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %78 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %79 = compare(%78, %77) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %80 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %81 = select(%79, %80, %76) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %82 = reduce_max(%81) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %83 = sub(%81, %82) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %84 = exp(%83) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %85 = reduce_sum(%84) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %86 = div(%84, %85) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %87 = dot(%86, %73) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %88 = transpose(%87) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %89 = reshape(%88) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %90 = dot(%89, %layers.1.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %91 = add(%55, %90) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %92 = mul(%91, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %93 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":18:25)
    %94 = reduce_sum(%92) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %95 = div(%94, %93) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %96 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":18:25)
    %97 = add(%95, %96) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %98 = rsqrt(%97) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %99 = mul(%91, %98) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %100 = mul(%99, %layers.1.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %101 = dot(%100, %layers.1.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %102 = sigmoid(%101) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %103 = mul(%101, %102) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %104 = dot(%100, %layers.1.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %105 = mul(%103, %104) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %106 = dot(%105, %layers.1.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %107 = add(%91, %106) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %108 = mul(%107, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %109 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":27:15)
    %110 = reduce_sum(%108) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %111 = div(%110, %109) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %112 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":27:15)
    %113 = add(%111, %112) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %114 = rsqrt(%113) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %115 = mul(%107, %114) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %116 = mul(%115, %norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %117 = dot(%116, %head.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":28:15)
    %118 = reduce_max(%117) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %119 = sub(%117, %118) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %120 = exp(%119) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %121 = reduce_sum(%120) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %122 = log(%121) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %123 = sub(%119, %122) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %124 = iota() {dim = 2} : i64[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %125 = reshape(%targets) : i64[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %126 = compare(%124, %125) {direction = "eq"} : bool[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %127 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %128 = select(%126, %123, %127) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %129 = reduce_sum(%128) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %130 = neg(%129) : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %131 = reduce_sum(%130) {dims = [0, 1], keepdim = false} : f32[] loc("examples/tiny_gpt.json":36:11)
    %132 = constant() {value = 512.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %133 = div(%131, %132) : f32[] loc("examples/tiny_gpt.json":36:11)
    %134 = constant() {value = 1.0} : f32[]
    %135 = mul(%132, %132) : f32[] loc("examples/tiny_gpt.json":36:11)
    %136 = neg(%134) : f32[] loc("examples/tiny_gpt.json":36:11)
    %137 = mul(%136, %131) : f32[] loc("examples/tiny_gpt.json":36:11)
    %138 = div(%137, %135) : f32[] loc("examples/tiny_gpt.json":36:11)
    %139 = div(%134, %132) : f32[] loc("examples/tiny_gpt.json":36:11)
    %140 = reshape(%139) : f32[1,1] loc("examples/tiny_gpt.json":36:11)
    %141 = broadcast(%140) {dims = [0, 1]} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %142 = neg(%141) : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %143 = reshape(%142) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %144 = broadcast(%143) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %145 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %146 = select(%126, %144, %145) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %147 = select(%126, %145, %144) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %148 = reduce_sum(%147) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":36:11)
    %149 = neg(%146) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %150 = reduce_sum(%149) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %151 = reshape(%150) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %152 = div(%151, %121) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %153 = broadcast(%152) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %154 = mul(%153, %120) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %155 = add(%146, %154) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %156 = neg(%155) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %157 = reduce_sum(%156) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %158 = reshape(%157) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %159 = broadcast(%118) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %160 = compare(%117, %159) {direction = "eq"} : bool[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %161 = cast(%160) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %162 = reduce_sum(%161) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %163 = div(%158, %162) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %164 = broadcast(%163) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %165 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %166 = select(%160, %164, %165) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %167 = add(%155, %166) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %168 = dot(%167, %head.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":28:15)
    %169 = reshape(%116) : f32[512,64] loc("examples/tiny_gpt.json":28:15)
    %170 = reshape(%167) : f32[512,64] loc("examples/tiny_gpt.json":28:15)
    %171 = dot(%170, %169) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":28:15)
    %172 = mul(%168, %115) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %173 = mul(%168, %norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %174 = reduce_sum(%172) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":27:15)
    %175 = mul(%173, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %176 = mul(%173, %114) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %177 = reduce_sum(%175) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":27:15)
    %178 = reshape(%177) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %179 = mul(%114, %114) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %180 = mul(%179, %114) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %181 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":27:15)
    %182 = mul(%178, %180) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %183 = mul(%182, %181) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %184 = reduce_sum(%183) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":27:15)
    %185 = mul(%109, %109) : f32[] loc("examples/tiny_gpt.json":27:15)
    %186 = neg(%183) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %187 = mul(%186, %110) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %188 = div(%187, %185) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %189 = div(%183, %109) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %190 = reduce_sum(%188) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":27:15)
    %191 = broadcast(%189) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %192 = mul(%191, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %193 = mul(%191, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %194 = add(%176, %193) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %195 = add(%194, %192) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %196 = dot(%195, %layers.1.mlp.w2.weight) {transpose_a = false, transpose_b = false} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %197 = reshape(%105) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %198 = reshape(%195) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %199 = dot(%198, %197) {transpose_a = true, transpose_b = false} : f32[64,128] loc("examples/tiny_gpt.json":19:20)
    %200 = mul(%196, %103) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %201 = mul(%196, %104) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %202 = dot(%200, %layers.1.mlp.w3.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %203 = reshape(%100) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %204 = reshape(%200) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %205 = dot(%204, %203) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %206 = mul(%201, %101) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %207 = mul(%201, %102) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %208 = constant() {value = 1.0} : f32[] loc("examples/tiny_gpt.json":19:20)
    %209 = sub(%208, %102) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %210 = mul(%102, %209) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %211 = mul(%206, %210) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %212 = add(%207, %211) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %213 = dot(%212, %layers.1.mlp.w1.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %214 = reshape(%100) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %215 = reshape(%212) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %216 = dot(%215, %214) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %217 = add(%202, %213) : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %218 = mul(%217, %99) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %219 = mul(%217, %layers.1.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %220 = reduce_sum(%218) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":18:25)
    %221 = mul(%219, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %222 = mul(%219, %98) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %223 = reduce_sum(%221) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":18:25)
    %224 = reshape(%223) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %225 = add(%195, %222) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %226 = mul(%98, %98) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %227 = mul(%226, %98) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %228 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":18:25)
    %229 = mul(%224, %227) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %230 = mul(%229, %228) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %231 = reduce_sum(%230) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %232 = mul(%93, %93) : f32[] loc("examples/tiny_gpt.json":18:25)
    %233 = neg(%230) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %234 = mul(%233, %94) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %235 = div(%234, %232) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %236 = div(%230, %93) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %237 = reduce_sum(%235) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %238 = broadcast(%236) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %239 = mul(%238, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %240 = mul(%238, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %241 = add(%225, %240) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %242 = add(%241, %239) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %243 = dot(%242, %layers.1.attn.wo.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %244 = reshape(%89) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %245 = reshape(%242) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %246 = dot(%245, %244) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %247 = reshape(%243) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %248 = transpose(%247) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %249 = dot(%248, %73) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %250 = dot(%86, %248) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %251 = mul(%85, %85) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %252 = neg(%249) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %253 = mul(%252, %84) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %254 = div(%253, %251) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %255 = div(%249, %85) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %256 = reduce_sum(%254) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %257 = reshape(%256) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %258 = broadcast(%257) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %259 = add(%255, %258) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %260 = mul(%259, %84) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %261 = neg(%260) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %262 = reduce_sum(%261) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %263 = reshape(%262) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %264 = broadcast(%82) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %265 = compare(%81, %264) {direction = "eq"} : bool[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %266 = cast(%265) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %267 = reduce_sum(%266) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %268 = div(%263, %267) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %269 = broadcast(%268) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %270 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %271 = select(%265, %269, %270) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %272 = add(%260, %271) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %273 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %274 = select(%79, %272, %273) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %275 = reduce_sum(%274) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %276 = select(%79, %273, %272) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %277 = mul(%276, %74) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %278 = mul(%276, %75) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %279 = reduce_sum(%277) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %280 = dot(%278, %70) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %281 = dot(%278, %67) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %282 = transpose(%250) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %283 = reshape(%282) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %284 = dot(%283, %layers.1.attn.wv.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %285 = reshape(%64) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %286 = reshape(%283) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %287 = dot(%286, %285) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %288 = transpose(%281) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %289 = reshape(%288) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %290 = dot(%289, %layers.1.attn.wk.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %291 = reshape(%64) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %292 = reshape(%289) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %293 = dot(%292, %291) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %294 = add(%284, %290) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %295 = transpose(%280) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %296 = reshape(%295) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %297 = dot(%296, %layers.1.attn.wq.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %298 = reshape(%64) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %299 = reshape(%296) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %300 = dot(%299, %298) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %301 = add(%294, %297) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %302 = mul(%301, %63) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %303 = mul(%301, %layers.1.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %304 = reduce_sum(%302) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":16:26)
    %305 = mul(%303, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %306 = mul(%303, %62) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %307 = reduce_sum(%305) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":16:26)
    %308 = reshape(%307) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %309 = add(%242, %306) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %310 = mul(%62, %62) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %311 = mul(%310, %62) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %312 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":16:26)
    %313 = mul(%308, %311) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %314 = mul(%313, %312) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %315 = reduce_sum(%314) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %316 = mul(%57, %57) : f32[] loc("examples/tiny_gpt.json":16:26)
    %317 = neg(%314) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %318 = mul(%317, %58) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %319 = div(%318, %316) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %320 = div(%314, %57) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %321 = reduce_sum(%319) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %322 = broadcast(%320) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %323 = mul(%322, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %324 = mul(%322, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %325 = add(%309, %324) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %326 = add(%325, %323) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %327 = dot(%326, %layers.0.mlp.w2.weight) {transpose_a = false, transpose_b = false} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %328 = reshape(%53) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %329 = reshape(%326) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %330 = dot(%329, %328) {transpose_a = true, transpose_b = false} : f32[64,128] loc("examples/tiny_gpt.json":19:20)
    %331 = mul(%327, %51) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %332 = mul(%327, %52) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %333 = dot(%331, %layers.0.mlp.w3.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %334 = reshape(%48) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %335 = reshape(%331) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %336 = dot(%335, %334) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %337 = mul(%332, %49) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %338 = mul(%332, %50) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %339 = constant() {value = 1.0} : f32[] loc("examples/tiny_gpt.json":19:20)
    %340 = sub(%339, %50) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %341 = mul(%50, %340) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %342 = mul(%337, %341) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %343 = add(%338, %342) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %344 = dot(%343, %layers.0.mlp.w1.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %345 = reshape(%48) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %346 = reshape(%343) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %347 = dot(%346, %345) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %348 = add(%333, %344) : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %349 = mul(%348, %47) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %350 = mul(%348, %layers.0.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %351 = reduce_sum(%349) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":18:25)
    %352 = mul(%350, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %353 = mul(%350, %46) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %354 = reduce_sum(%352) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":18:25)
    %355 = reshape(%354) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %356 = add(%326, %353) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %357 = mul(%46, %46) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %358 = mul(%357, %46) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %359 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":18:25)
    %360 = mul(%355, %358) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %361 = mul(%360, %359) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %362 = reduce_sum(%361) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %363 = mul(%41, %41) : f32[] loc("examples/tiny_gpt.json":18:25)
    %364 = neg(%361) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %365 = mul(%364, %42) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %366 = div(%365, %363) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %367 = div(%361, %41) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %368 = reduce_sum(%366) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %369 = broadcast(%367) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %370 = mul(%369, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %371 = mul(%369, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %372 = add(%356, %371) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %373 = add(%372, %370) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %374 = dot(%373, %layers.0.attn.wo.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %375 = reshape(%37) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %376 = reshape(%373) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %377 = dot(%376, %375) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %378 = reshape(%374) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %379 = transpose(%378) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %380 = dot(%379, %21) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %381 = dot(%34, %379) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %382 = mul(%33, %33) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %383 = neg(%380) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %384 = mul(%383, %32) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %385 = div(%384, %382) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %386 = div(%380, %33) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %387 = reduce_sum(%385) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %388 = reshape(%387) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %389 = broadcast(%388) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %390 = add(%386, %389) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %391 = mul(%390, %32) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %392 = neg(%391) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %393 = reduce_sum(%392) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %394 = reshape(%393) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %395 = broadcast(%30) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %396 = compare(%29, %395) {direction = "eq"} : bool[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %397 = cast(%396) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %398 = reduce_sum(%397) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %399 = div(%394, %398) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %400 = broadcast(%399) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %401 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %402 = select(%396, %400, %401) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %403 = add(%391, %402) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %404 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %405 = select(%27, %403, %404) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %406 = reduce_sum(%405) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %407 = select(%27, %404, %403) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %408 = mul(%407, %22) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %409 = mul(%407, %23) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %410 = reduce_sum(%408) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %411 = dot(%409, %18) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %412 = dot(%409, %15) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %413 = transpose(%381) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %414 = reshape(%413) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %415 = dot(%414, %layers.0.attn.wv.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %416 = reshape(%12) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %417 = reshape(%414) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %418 = dot(%417, %416) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %419 = transpose(%412) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %420 = reshape(%419) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %421 = dot(%420, %layers.0.attn.wk.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %422 = reshape(%12) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %423 = reshape(%420) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %424 = dot(%423, %422) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %425 = add(%415, %421) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %426 = transpose(%411) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %427 = reshape(%426) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %428 = dot(%427, %layers.0.attn.wq.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %429 = reshape(%12) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %430 = reshape(%427) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %431 = dot(%430, %429) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %432 = add(%425, %428) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %433 = mul(%432, %11) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %434 = mul(%432, %layers.0.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %435 = reduce_sum(%433) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":16:26)
    %436 = mul(%434, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %437 = mul(%434, %10) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %438 = reduce_sum(%436) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":16:26)
    %439 = reshape(%438) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %440 = add(%373, %437) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %441 = mul(%10, %10) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %442 = mul(%441, %10) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %443 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":16:26)
    %444 = mul(%439, %442) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %445 = mul(%444, %443) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %446 = reduce_sum(%445) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %447 = mul(%5, %5) : f32[] loc("examples/tiny_gpt.json":16:26)
    %448 = neg(%445) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %449 = mul(%448, %6) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %450 = div(%449, %447) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %451 = div(%445, %5) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %452 = reduce_sum(%450) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %453 = broadcast(%451) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %454 = mul(%453, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %455 = mul(%453, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %456 = add(%440, %455) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %457 = add(%456, %454) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %458 = reduce_sum(%457) {dims = [0], keepdim = false} : f32[32,64] loc("examples/tiny_gpt.json":31:7)
    %459 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":11:18)
    %460 = broadcast(%459) {dims = []} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %461 = scatter_add(%460, %1, %458) {axis = 0} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %462 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":10:18)
    %463 = broadcast(%462) {dims = []} : f32[64,64] loc("examples/tiny_gpt.json":10:18)
    %464 = scatter_add(%463, %tokens, %457) {axis = 0} : f32[64,64] loc("examples/tiny_gpt.json":10:18)
    return %133, %464, %461, %435, %431, %424, %418, %377, %351, %347, %336, %330, %304, %300, %293, %287, %246, %220, %216, %205, %199, %174, %171
  }

  func @train_step(%tokens: i64[16,32] {input}, %targets: i64[16,32] {input}, %tok_emb.weight: f32[64,64] {param}, %pos_emb.weight: f32[32,64] {param}, %layers.0.attn_norm.weight: f32[64] {param}, %layers.0.attn.wq.weight: f32[64,64] {param}, %layers.0.attn.wk.weight: f32[64,64] {param}, %layers.0.attn.wv.weight: f32[64,64] {param}, %layers.0.attn.wo.weight: f32[64,64] {param}, %layers.0.mlp_norm.weight: f32[64] {param}, %layers.0.mlp.w1.weight: f32[128,64] {param}, %layers.0.mlp.w3.weight: f32[128,64] {param}, %layers.0.mlp.w2.weight: f32[64,128] {param}, %layers.1.attn_norm.weight: f32[64] {param}, %layers.1.attn.wq.weight: f32[64,64] {param}, %layers.1.attn.wk.weight: f32[64,64] {param}, %layers.1.attn.wv.weight: f32[64,64] {param}, %layers.1.attn.wo.weight: f32[64,64] {param}, %layers.1.mlp_norm.weight: f32[64] {param}, %layers.1.mlp.w1.weight: f32[128,64] {param}, %layers.1.mlp.w3.weight: f32[128,64] {param}, %layers.1.mlp.w2.weight: f32[64,128] {param}, %norm.weight: f32[64] {param}, %head.weight: f32[64,64] {param}, %tok_emb.weight.exp_avg: f32[64,64] {state}, %tok_emb.weight.exp_avg_sq: f32[64,64] {state}, %pos_emb.weight.exp_avg: f32[32,64] {state}, %pos_emb.weight.exp_avg_sq: f32[32,64] {state}, %layers.0.attn_norm.weight.exp_avg: f32[64] {state}, %layers.0.attn_norm.weight.exp_avg_sq: f32[64] {state}, %layers.0.attn.wq.weight.exp_avg: f32[64,64] {state}, %layers.0.attn.wq.weight.exp_avg_sq: f32[64,64] {state}, %layers.0.attn.wk.weight.exp_avg: f32[64,64] {state}, %layers.0.attn.wk.weight.exp_avg_sq: f32[64,64] {state}, %layers.0.attn.wv.weight.exp_avg: f32[64,64] {state}, %layers.0.attn.wv.weight.exp_avg_sq: f32[64,64] {state}, %layers.0.attn.wo.weight.exp_avg: f32[64,64] {state}, %layers.0.attn.wo.weight.exp_avg_sq: f32[64,64] {state}, %layers.0.mlp_norm.weight.exp_avg: f32[64] {state}, %layers.0.mlp_norm.weight.exp_avg_sq: f32[64] {state}, %layers.0.mlp.w1.weight.exp_avg: f32[128,64] {state}, %layers.0.mlp.w1.weight.exp_avg_sq: f32[128,64] {state}, %layers.0.mlp.w3.weight.exp_avg: f32[128,64] {state}, %layers.0.mlp.w3.weight.exp_avg_sq: f32[128,64] {state}, %layers.0.mlp.w2.weight.exp_avg: f32[64,128] {state}, %layers.0.mlp.w2.weight.exp_avg_sq: f32[64,128] {state}, %layers.1.attn_norm.weight.exp_avg: f32[64] {state}, %layers.1.attn_norm.weight.exp_avg_sq: f32[64] {state}, %layers.1.attn.wq.weight.exp_avg: f32[64,64] {state}, %layers.1.attn.wq.weight.exp_avg_sq: f32[64,64] {state}, %layers.1.attn.wk.weight.exp_avg: f32[64,64] {state}, %layers.1.attn.wk.weight.exp_avg_sq: f32[64,64] {state}, %layers.1.attn.wv.weight.exp_avg: f32[64,64] {state}, %layers.1.attn.wv.weight.exp_avg_sq: f32[64,64] {state}, %layers.1.attn.wo.weight.exp_avg: f32[64,64] {state}, %layers.1.attn.wo.weight.exp_avg_sq: f32[64,64] {state}, %layers.1.mlp_norm.weight.exp_avg: f32[64] {state}, %layers.1.mlp_norm.weight.exp_avg_sq: f32[64] {state}, %layers.1.mlp.w1.weight.exp_avg: f32[128,64] {state}, %layers.1.mlp.w1.weight.exp_avg_sq: f32[128,64] {state}, %layers.1.mlp.w3.weight.exp_avg: f32[128,64] {state}, %layers.1.mlp.w3.weight.exp_avg_sq: f32[128,64] {state}, %layers.1.mlp.w2.weight.exp_avg: f32[64,128] {state}, %layers.1.mlp.w2.weight.exp_avg_sq: f32[64,128] {state}, %norm.weight.exp_avg: f32[64] {state}, %norm.weight.exp_avg_sq: f32[64] {state}, %head.weight.exp_avg: f32[64,64] {state}, %head.weight.exp_avg_sq: f32[64,64] {state}, %step: i64[] {input}) -> (f32[], f32[64,64], f32[32,64], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[128,64], f32[128,64], f32[64,128], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[128,64], f32[128,64], f32[64,128], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[32,64], f32[32,64], f32[64], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[64], f32[128,64], f32[128,64], f32[128,64], f32[128,64], f32[64,128], f32[64,128], f32[64], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[64], f32[128,64], f32[128,64], f32[128,64], f32[128,64], f32[64,128], f32[64,128], f32[64], f32[64], f32[64,64], f32[64,64]) {
    %0 = gather(%tok_emb.weight, %tokens) {axis = 0} : f32[16,32,64] loc("examples/tiny_gpt.json":10:18)
    %1 = iota() {dim = 0} : i64[32] loc("examples/tiny_gpt.json":31:7)
    %2 = gather(%pos_emb.weight, %1) {axis = 0} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %3 = add(%0, %2) : f32[16,32,64] loc("examples/tiny_gpt.json":31:7)
    %4 = mul(%3, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %5 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":16:26)
    %6 = reduce_sum(%4) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %7 = div(%6, %5) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %8 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":16:26)
    %9 = add(%7, %8) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %10 = rsqrt(%9) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %11 = mul(%3, %10) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %12 = mul(%11, %layers.0.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %13 = dot(%12, %layers.0.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %14 = reshape(%13) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %15 = transpose(%14) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %16 = dot(%12, %layers.0.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %17 = reshape(%16) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %18 = transpose(%17) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %19 = dot(%12, %layers.0.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %20 = reshape(%19) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %21 = transpose(%20) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %22 = dot(%15, %18) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %23 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %24 = mul(%22, %23) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %25 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %26 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %27 = compare(%26, %25) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %28 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %29 = select(%27, %28, %24) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %30 = reduce_max(%29) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %31 = sub(%29, %30) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %32 = exp(%31) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %33 = reduce_sum(%32) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %34 = div(%32, %33) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %35 = dot(%34, %21) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %36 = transpose(%35) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %37 = reshape(%36) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %38 = dot(%37, %layers.0.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %39 = add(%3, %38) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %40 = mul(%39, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %41 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":18:25)
    %42 = reduce_sum(%40) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %43 = div(%42, %41) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %44 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":18:25)
    %45 = add(%43, %44) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %46 = rsqrt(%45) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %47 = mul(%39, %46) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %48 = mul(%47, %layers.0.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %49 = dot(%48, %layers.0.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %50 = sigmoid(%49) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %51 = mul(%49, %50) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %52 = dot(%48, %layers.0.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %53 = mul(%51, %52) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %54 = dot(%53, %layers.0.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %55 = add(%39, %54) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %56 = mul(%55, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %57 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":16:26)
    %58 = reduce_sum(%56) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %59 = div(%58, %57) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %60 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":16:26)
    %61 = add(%59, %60) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %62 = rsqrt(%61) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %63 = mul(%55, %62) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %64 = mul(%63, %layers.1.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %65 = dot(%64, %layers.1.attn.wq.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %66 = reshape(%65) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %67 = transpose(%66) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %68 = dot(%64, %layers.1.attn.wk.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %69 = reshape(%68) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %70 = transpose(%69) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %71 = dot(%64, %layers.1.attn.wv.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %72 = reshape(%71) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %73 = transpose(%72) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %74 = dot(%67, %70) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %75 = constant() {value = 0.25} : f32[] loc("examples/tiny_gpt.json":17:21)
    %76 = mul(%74, %75) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %77 = iota() {dim = 0} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %78 = iota() {dim = 1} : i64[32,32] loc("examples/tiny_gpt.json":17:21)
    %79 = compare(%78, %77) {direction = "gt"} : bool[32,32] loc("examples/tiny_gpt.json":17:21)
    %80 = constant() {value = -inf} : f32[] loc("examples/tiny_gpt.json":17:21)
    %81 = select(%79, %80, %76) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %82 = reduce_max(%81) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %83 = sub(%81, %82) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %84 = exp(%83) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %85 = reduce_sum(%84) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %86 = div(%84, %85) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %87 = dot(%86, %73) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %88 = transpose(%87) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %89 = reshape(%88) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %90 = dot(%89, %layers.1.attn.wo.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %91 = add(%55, %90) : f32[16,32,64] loc("examples/tiny_gpt.json":22:13)
    %92 = mul(%91, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %93 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":18:25)
    %94 = reduce_sum(%92) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %95 = div(%94, %93) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %96 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":18:25)
    %97 = add(%95, %96) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %98 = rsqrt(%97) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %99 = mul(%91, %98) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %100 = mul(%99, %layers.1.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %101 = dot(%100, %layers.1.mlp.w1.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %102 = sigmoid(%101) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %103 = mul(%101, %102) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %104 = dot(%100, %layers.1.mlp.w3.weight) {transpose_a = false, transpose_b = true} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %105 = mul(%103, %104) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %106 = dot(%105, %layers.1.mlp.w2.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %107 = add(%91, %106) : f32[16,32,64] loc("examples/tiny_gpt.json":23:13)
    %108 = mul(%107, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %109 = constant() {value = 64.0} : f32[] loc("examples/tiny_gpt.json":27:15)
    %110 = reduce_sum(%108) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %111 = div(%110, %109) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %112 = constant() {value = 1e-05} : f32[] loc("examples/tiny_gpt.json":27:15)
    %113 = add(%111, %112) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %114 = rsqrt(%113) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %115 = mul(%107, %114) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %116 = mul(%115, %norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %117 = dot(%116, %head.weight) {transpose_a = false, transpose_b = true} : f32[16,32,64] loc("examples/tiny_gpt.json":28:15)
    %118 = reduce_max(%117) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %119 = sub(%117, %118) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %120 = exp(%119) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %121 = reduce_sum(%120) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %122 = log(%121) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %123 = sub(%119, %122) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %124 = iota() {dim = 2} : i64[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %125 = reshape(%targets) : i64[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %126 = compare(%124, %125) {direction = "eq"} : bool[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %127 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %128 = select(%126, %123, %127) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %129 = reduce_sum(%128) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %130 = neg(%129) : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %131 = reduce_sum(%130) {dims = [0, 1], keepdim = false} : f32[] loc("examples/tiny_gpt.json":36:11)
    %132 = constant() {value = 512.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %133 = div(%131, %132) : f32[] loc("examples/tiny_gpt.json":36:11)
    %134 = constant() {value = 1.0} : f32[]
    %135 = mul(%132, %132) : f32[] loc("examples/tiny_gpt.json":36:11)
    %136 = neg(%134) : f32[] loc("examples/tiny_gpt.json":36:11)
    %137 = mul(%136, %131) : f32[] loc("examples/tiny_gpt.json":36:11)
    %138 = div(%137, %135) : f32[] loc("examples/tiny_gpt.json":36:11)
    %139 = div(%134, %132) : f32[] loc("examples/tiny_gpt.json":36:11)
    %140 = reshape(%139) : f32[1,1] loc("examples/tiny_gpt.json":36:11)
    %141 = broadcast(%140) {dims = [0, 1]} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %142 = neg(%141) : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %143 = reshape(%142) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %144 = broadcast(%143) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %145 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %146 = select(%126, %144, %145) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %147 = select(%126, %145, %144) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %148 = reduce_sum(%147) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":36:11)
    %149 = neg(%146) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %150 = reduce_sum(%149) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %151 = reshape(%150) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %152 = div(%151, %121) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %153 = broadcast(%152) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %154 = mul(%153, %120) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %155 = add(%146, %154) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %156 = neg(%155) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %157 = reduce_sum(%156) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":36:11)
    %158 = reshape(%157) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %159 = broadcast(%118) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %160 = compare(%117, %159) {direction = "eq"} : bool[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %161 = cast(%160) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %162 = reduce_sum(%161) {dims = [2], keepdim = true} : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %163 = div(%158, %162) : f32[16,32,1] loc("examples/tiny_gpt.json":36:11)
    %164 = broadcast(%163) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %165 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":36:11)
    %166 = select(%160, %164, %165) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %167 = add(%155, %166) : f32[16,32,64] loc("examples/tiny_gpt.json":36:11)
    %168 = dot(%167, %head.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":28:15)
    %169 = reshape(%116) : f32[512,64] loc("examples/tiny_gpt.json":28:15)
    %170 = reshape(%167) : f32[512,64] loc("examples/tiny_gpt.json":28:15)
    %171 = dot(%170, %169) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":28:15)
    %172 = mul(%168, %115) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %173 = mul(%168, %norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %174 = reduce_sum(%172) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":27:15)
    %175 = mul(%173, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %176 = mul(%173, %114) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %177 = reduce_sum(%175) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":27:15)
    %178 = reshape(%177) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %179 = mul(%114, %114) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %180 = mul(%179, %114) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %181 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":27:15)
    %182 = mul(%178, %180) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %183 = mul(%182, %181) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %184 = reduce_sum(%183) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":27:15)
    %185 = mul(%109, %109) : f32[] loc("examples/tiny_gpt.json":27:15)
    %186 = neg(%183) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %187 = mul(%186, %110) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %188 = div(%187, %185) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %189 = div(%183, %109) : f32[16,32,1] loc("examples/tiny_gpt.json":27:15)
    %190 = reduce_sum(%188) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":27:15)
    %191 = broadcast(%189) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %192 = mul(%191, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %193 = mul(%191, %107) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %194 = add(%176, %193) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %195 = add(%194, %192) : f32[16,32,64] loc("examples/tiny_gpt.json":27:15)
    %196 = dot(%195, %layers.1.mlp.w2.weight) {transpose_a = false, transpose_b = false} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %197 = reshape(%105) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %198 = reshape(%195) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %199 = dot(%198, %197) {transpose_a = true, transpose_b = false} : f32[64,128] loc("examples/tiny_gpt.json":19:20)
    %200 = mul(%196, %103) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %201 = mul(%196, %104) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %202 = dot(%200, %layers.1.mlp.w3.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %203 = reshape(%100) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %204 = reshape(%200) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %205 = dot(%204, %203) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %206 = mul(%201, %101) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %207 = mul(%201, %102) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %208 = constant() {value = 1.0} : f32[] loc("examples/tiny_gpt.json":19:20)
    %209 = sub(%208, %102) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %210 = mul(%102, %209) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %211 = mul(%206, %210) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %212 = add(%207, %211) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %213 = dot(%212, %layers.1.mlp.w1.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %214 = reshape(%100) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %215 = reshape(%212) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %216 = dot(%215, %214) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %217 = add(%202, %213) : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %218 = mul(%217, %99) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %219 = mul(%217, %layers.1.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %220 = reduce_sum(%218) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":18:25)
    %221 = mul(%219, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %222 = mul(%219, %98) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %223 = reduce_sum(%221) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":18:25)
    %224 = reshape(%223) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %225 = add(%195, %222) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %226 = mul(%98, %98) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %227 = mul(%226, %98) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %228 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":18:25)
    %229 = mul(%224, %227) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %230 = mul(%229, %228) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %231 = reduce_sum(%230) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %232 = mul(%93, %93) : f32[] loc("examples/tiny_gpt.json":18:25)
    %233 = neg(%230) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %234 = mul(%233, %94) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %235 = div(%234, %232) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %236 = div(%230, %93) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %237 = reduce_sum(%235) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %238 = broadcast(%236) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %239 = mul(%238, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %240 = mul(%238, %91) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %241 = add(%225, %240) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %242 = add(%241, %239) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %243 = dot(%242, %layers.1.attn.wo.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %244 = reshape(%89) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %245 = reshape(%242) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %246 = dot(%245, %244) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %247 = reshape(%243) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %248 = transpose(%247) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %249 = dot(%248, %73) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %250 = dot(%86, %248) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %251 = mul(%85, %85) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %252 = neg(%249) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %253 = mul(%252, %84) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %254 = div(%253, %251) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %255 = div(%249, %85) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %256 = reduce_sum(%254) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %257 = reshape(%256) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %258 = broadcast(%257) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %259 = add(%255, %258) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %260 = mul(%259, %84) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %261 = neg(%260) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %262 = reduce_sum(%261) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %263 = reshape(%262) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %264 = broadcast(%82) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %265 = compare(%81, %264) {direction = "eq"} : bool[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %266 = cast(%265) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %267 = reduce_sum(%266) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %268 = div(%263, %267) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %269 = broadcast(%268) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %270 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %271 = select(%265, %269, %270) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %272 = add(%260, %271) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %273 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %274 = select(%79, %272, %273) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %275 = reduce_sum(%274) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %276 = select(%79, %273, %272) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %277 = mul(%276, %74) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %278 = mul(%276, %75) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %279 = reduce_sum(%277) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %280 = dot(%278, %70) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %281 = dot(%278, %67) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %282 = transpose(%250) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %283 = reshape(%282) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %284 = dot(%283, %layers.1.attn.wv.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %285 = reshape(%64) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %286 = reshape(%283) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %287 = dot(%286, %285) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %288 = transpose(%281) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %289 = reshape(%288) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %290 = dot(%289, %layers.1.attn.wk.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %291 = reshape(%64) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %292 = reshape(%289) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %293 = dot(%292, %291) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %294 = add(%284, %290) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %295 = transpose(%280) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %296 = reshape(%295) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %297 = dot(%296, %layers.1.attn.wq.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %298 = reshape(%64) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %299 = reshape(%296) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %300 = dot(%299, %298) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %301 = add(%294, %297) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %302 = mul(%301, %63) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %303 = mul(%301, %layers.1.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %304 = reduce_sum(%302) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":16:26)
    %305 = mul(%303, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %306 = mul(%303, %62) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %307 = reduce_sum(%305) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":16:26)
    %308 = reshape(%307) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %309 = add(%242, %306) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %310 = mul(%62, %62) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %311 = mul(%310, %62) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %312 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":16:26)
    %313 = mul(%308, %311) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %314 = mul(%313, %312) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %315 = reduce_sum(%314) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %316 = mul(%57, %57) : f32[] loc("examples/tiny_gpt.json":16:26)
    %317 = neg(%314) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %318 = mul(%317, %58) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %319 = div(%318, %316) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %320 = div(%314, %57) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %321 = reduce_sum(%319) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %322 = broadcast(%320) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %323 = mul(%322, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %324 = mul(%322, %55) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %325 = add(%309, %324) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %326 = add(%325, %323) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %327 = dot(%326, %layers.0.mlp.w2.weight) {transpose_a = false, transpose_b = false} : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %328 = reshape(%53) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %329 = reshape(%326) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %330 = dot(%329, %328) {transpose_a = true, transpose_b = false} : f32[64,128] loc("examples/tiny_gpt.json":19:20)
    %331 = mul(%327, %51) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %332 = mul(%327, %52) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %333 = dot(%331, %layers.0.mlp.w3.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %334 = reshape(%48) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %335 = reshape(%331) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %336 = dot(%335, %334) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %337 = mul(%332, %49) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %338 = mul(%332, %50) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %339 = constant() {value = 1.0} : f32[] loc("examples/tiny_gpt.json":19:20)
    %340 = sub(%339, %50) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %341 = mul(%50, %340) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %342 = mul(%337, %341) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %343 = add(%338, %342) : f32[16,32,128] loc("examples/tiny_gpt.json":19:20)
    %344 = dot(%343, %layers.0.mlp.w1.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %345 = reshape(%48) : f32[512,64] loc("examples/tiny_gpt.json":19:20)
    %346 = reshape(%343) : f32[512,128] loc("examples/tiny_gpt.json":19:20)
    %347 = dot(%346, %345) {transpose_a = true, transpose_b = false} : f32[128,64] loc("examples/tiny_gpt.json":19:20)
    %348 = add(%333, %344) : f32[16,32,64] loc("examples/tiny_gpt.json":19:20)
    %349 = mul(%348, %47) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %350 = mul(%348, %layers.0.mlp_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %351 = reduce_sum(%349) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":18:25)
    %352 = mul(%350, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %353 = mul(%350, %46) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %354 = reduce_sum(%352) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":18:25)
    %355 = reshape(%354) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %356 = add(%326, %353) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %357 = mul(%46, %46) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %358 = mul(%357, %46) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %359 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":18:25)
    %360 = mul(%355, %358) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %361 = mul(%360, %359) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %362 = reduce_sum(%361) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %363 = mul(%41, %41) : f32[] loc("examples/tiny_gpt.json":18:25)
    %364 = neg(%361) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %365 = mul(%364, %42) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %366 = div(%365, %363) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %367 = div(%361, %41) : f32[16,32,1] loc("examples/tiny_gpt.json":18:25)
    %368 = reduce_sum(%366) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":18:25)
    %369 = broadcast(%367) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %370 = mul(%369, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %371 = mul(%369, %39) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %372 = add(%356, %371) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %373 = add(%372, %370) : f32[16,32,64] loc("examples/tiny_gpt.json":18:25)
    %374 = dot(%373, %layers.0.attn.wo.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %375 = reshape(%37) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %376 = reshape(%373) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %377 = dot(%376, %375) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %378 = reshape(%374) : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %379 = transpose(%378) {perm = [0, 2, 1, 3]} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %380 = dot(%379, %21) {transpose_a = false, transpose_b = true} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %381 = dot(%34, %379) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %382 = mul(%33, %33) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %383 = neg(%380) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %384 = mul(%383, %32) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %385 = div(%384, %382) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %386 = div(%380, %33) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %387 = reduce_sum(%385) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %388 = reshape(%387) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %389 = broadcast(%388) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %390 = add(%386, %389) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %391 = mul(%390, %32) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %392 = neg(%391) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %393 = reduce_sum(%392) {dims = [3], keepdim = false} : f32[16,4,32] loc("examples/tiny_gpt.json":17:21)
    %394 = reshape(%393) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %395 = broadcast(%30) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %396 = compare(%29, %395) {direction = "eq"} : bool[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %397 = cast(%396) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %398 = reduce_sum(%397) {dims = [3], keepdim = true} : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %399 = div(%394, %398) : f32[16,4,32,1] loc("examples/tiny_gpt.json":17:21)
    %400 = broadcast(%399) {dims = [0, 1, 2, 3]} : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %401 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %402 = select(%396, %400, %401) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %403 = add(%391, %402) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %404 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":17:21)
    %405 = select(%27, %403, %404) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %406 = reduce_sum(%405) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %407 = select(%27, %404, %403) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %408 = mul(%407, %22) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %409 = mul(%407, %23) : f32[16,4,32,32] loc("examples/tiny_gpt.json":17:21)
    %410 = reduce_sum(%408) {dims = [0, 1, 2, 3], keepdim = false} : f32[] loc("examples/tiny_gpt.json":17:21)
    %411 = dot(%409, %18) {transpose_a = false, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %412 = dot(%409, %15) {transpose_a = true, transpose_b = false} : f32[16,4,32,16] loc("examples/tiny_gpt.json":17:21)
    %413 = transpose(%381) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %414 = reshape(%413) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %415 = dot(%414, %layers.0.attn.wv.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %416 = reshape(%12) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %417 = reshape(%414) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %418 = dot(%417, %416) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %419 = transpose(%412) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %420 = reshape(%419) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %421 = dot(%420, %layers.0.attn.wk.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %422 = reshape(%12) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %423 = reshape(%420) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %424 = dot(%423, %422) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %425 = add(%415, %421) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %426 = transpose(%411) {perm = [0, 2, 1, 3]} : f32[16,32,4,16] loc("examples/tiny_gpt.json":17:21)
    %427 = reshape(%426) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %428 = dot(%427, %layers.0.attn.wq.weight) {transpose_a = false, transpose_b = false} : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %429 = reshape(%12) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %430 = reshape(%427) : f32[512,64] loc("examples/tiny_gpt.json":17:21)
    %431 = dot(%430, %429) {transpose_a = true, transpose_b = false} : f32[64,64] loc("examples/tiny_gpt.json":17:21)
    %432 = add(%425, %428) : f32[16,32,64] loc("examples/tiny_gpt.json":17:21)
    %433 = mul(%432, %11) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %434 = mul(%432, %layers.0.attn_norm.weight) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %435 = reduce_sum(%433) {dims = [0, 1], keepdim = false} : f32[64] loc("examples/tiny_gpt.json":16:26)
    %436 = mul(%434, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %437 = mul(%434, %10) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %438 = reduce_sum(%436) {dims = [2], keepdim = false} : f32[16,32] loc("examples/tiny_gpt.json":16:26)
    %439 = reshape(%438) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %440 = add(%373, %437) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %441 = mul(%10, %10) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %442 = mul(%441, %10) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %443 = constant() {value = -0.5} : f32[] loc("examples/tiny_gpt.json":16:26)
    %444 = mul(%439, %442) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %445 = mul(%444, %443) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %446 = reduce_sum(%445) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %447 = mul(%5, %5) : f32[] loc("examples/tiny_gpt.json":16:26)
    %448 = neg(%445) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %449 = mul(%448, %6) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %450 = div(%449, %447) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %451 = div(%445, %5) : f32[16,32,1] loc("examples/tiny_gpt.json":16:26)
    %452 = reduce_sum(%450) {dims = [0, 1, 2], keepdim = false} : f32[] loc("examples/tiny_gpt.json":16:26)
    %453 = broadcast(%451) {dims = [0, 1, 2]} : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %454 = mul(%453, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %455 = mul(%453, %3) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %456 = add(%440, %455) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %457 = add(%456, %454) : f32[16,32,64] loc("examples/tiny_gpt.json":16:26)
    %458 = reduce_sum(%457) {dims = [0], keepdim = false} : f32[32,64] loc("examples/tiny_gpt.json":31:7)
    %459 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":11:18)
    %460 = broadcast(%459) {dims = []} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %461 = scatter_add(%460, %1, %458) {axis = 0} : f32[32,64] loc("examples/tiny_gpt.json":11:18)
    %462 = constant() {value = 0.0} : f32[] loc("examples/tiny_gpt.json":10:18)
    %463 = broadcast(%462) {dims = []} : f32[64,64] loc("examples/tiny_gpt.json":10:18)
    %464 = scatter_add(%463, %tokens, %457) {axis = 0} : f32[64,64] loc("examples/tiny_gpt.json":10:18)
    %465 = constant() {value = 0.003} : f64[]
    %466 = neg(%465) : f64[]
    %467 = cast(%466) : f32[]
    %468 = constant() {value = 0.1} : f64[]
    %469 = mul(%465, %468) : f64[]
    %470 = constant() {value = 1.0} : f64[]
    %471 = sub(%470, %469) : f64[]
    %472 = cast(%471) : f32[]
    %473 = mul(%tok_emb.weight, %472) : f32[64,64]
    %474 = constant() {value = 0.09999999999999998} : f32[]
    %475 = mul(%464, %474) : f32[64,64]
    %476 = constant() {value = 0.9} : f32[]
    %477 = mul(%tok_emb.weight.exp_avg, %476) : f32[64,64]
    %478 = add(%477, %475) : f32[64,64]
    %479 = constant() {value = 0.050000000000000044} : f32[]
    %480 = mul(%464, %479) : f32[64,64]
    %481 = mul(%480, %464) : f32[64,64]
    %482 = constant() {value = 0.95} : f32[]
    %483 = mul(%tok_emb.weight.exp_avg_sq, %482) : f32[64,64]
    %484 = add(%483, %481) : f32[64,64]
    %485 = cast(%step) : f64[]
    %486 = constant() {value = 0.9} : f64[]
    %487 = pow(%486, %485) : f64[]
    %488 = constant() {value = 1.0} : f64[]
    %489 = sub(%488, %487) : f64[]
    %490 = cast(%step) : f64[]
    %491 = constant() {value = 0.95} : f64[]
    %492 = pow(%491, %490) : f64[]
    %493 = constant() {value = 1.0} : f64[]
    %494 = sub(%493, %492) : f64[]
    %495 = div(%465, %489) : f64[]
    %496 = neg(%495) : f64[]
    %497 = cast(%496) : f32[]
    %498 = constant() {value = 1e-08} : f32[]
    %499 = sqrt(%494) : f64[]
    %500 = cast(%499) : f32[]
    %501 = sqrt(%484) : f32[64,64]
    %502 = div(%501, %500) : f32[64,64]
    %503 = add(%502, %498) : f32[64,64]
    %504 = mul(%478, %497) : f32[64,64]
    %505 = div(%504, %503) : f32[64,64]
    %506 = add(%473, %505) : f32[64,64]
    %507 = constant() {value = 0.1} : f64[]
    %508 = mul(%465, %507) : f64[]
    %509 = constant() {value = 1.0} : f64[]
    %510 = sub(%509, %508) : f64[]
    %511 = cast(%510) : f32[]
    %512 = mul(%pos_emb.weight, %511) : f32[32,64]
    %513 = constant() {value = 0.09999999999999998} : f32[]
    %514 = mul(%461, %513) : f32[32,64]
    %515 = constant() {value = 0.9} : f32[]
    %516 = mul(%pos_emb.weight.exp_avg, %515) : f32[32,64]
    %517 = add(%516, %514) : f32[32,64]
    %518 = constant() {value = 0.050000000000000044} : f32[]
    %519 = mul(%461, %518) : f32[32,64]
    %520 = mul(%519, %461) : f32[32,64]
    %521 = constant() {value = 0.95} : f32[]
    %522 = mul(%pos_emb.weight.exp_avg_sq, %521) : f32[32,64]
    %523 = add(%522, %520) : f32[32,64]
    %524 = cast(%step) : f64[]
    %525 = constant() {value = 0.9} : f64[]
    %526 = pow(%525, %524) : f64[]
    %527 = constant() {value = 1.0} : f64[]
    %528 = sub(%527, %526) : f64[]
    %529 = cast(%step) : f64[]
    %530 = constant() {value = 0.95} : f64[]
    %531 = pow(%530, %529) : f64[]
    %532 = constant() {value = 1.0} : f64[]
    %533 = sub(%532, %531) : f64[]
    %534 = div(%465, %528) : f64[]
    %535 = neg(%534) : f64[]
    %536 = cast(%535) : f32[]
    %537 = constant() {value = 1e-08} : f32[]
    %538 = sqrt(%533) : f64[]
    %539 = cast(%538) : f32[]
    %540 = sqrt(%523) : f32[32,64]
    %541 = div(%540, %539) : f32[32,64]
    %542 = add(%541, %537) : f32[32,64]
    %543 = mul(%517, %536) : f32[32,64]
    %544 = div(%543, %542) : f32[32,64]
    %545 = add(%512, %544) : f32[32,64]
    %546 = constant() {value = 0.09999999999999998} : f32[]
    %547 = mul(%435, %546) : f32[64]
    %548 = constant() {value = 0.9} : f32[]
    %549 = mul(%layers.0.attn_norm.weight.exp_avg, %548) : f32[64]
    %550 = add(%549, %547) : f32[64]
    %551 = constant() {value = 0.050000000000000044} : f32[]
    %552 = mul(%435, %551) : f32[64]
    %553 = mul(%552, %435) : f32[64]
    %554 = constant() {value = 0.95} : f32[]
    %555 = mul(%layers.0.attn_norm.weight.exp_avg_sq, %554) : f32[64]
    %556 = add(%555, %553) : f32[64]
    %557 = cast(%step) : f64[]
    %558 = constant() {value = 0.9} : f64[]
    %559 = pow(%558, %557) : f64[]
    %560 = constant() {value = 1.0} : f64[]
    %561 = sub(%560, %559) : f64[]
    %562 = cast(%step) : f64[]
    %563 = constant() {value = 0.95} : f64[]
    %564 = pow(%563, %562) : f64[]
    %565 = constant() {value = 1.0} : f64[]
    %566 = sub(%565, %564) : f64[]
    %567 = div(%465, %561) : f64[]
    %568 = neg(%567) : f64[]
    %569 = cast(%568) : f32[]
    %570 = constant() {value = 1e-08} : f32[]
    %571 = sqrt(%566) : f64[]
    %572 = cast(%571) : f32[]
    %573 = sqrt(%556) : f32[64]
    %574 = div(%573, %572) : f32[64]
    %575 = add(%574, %570) : f32[64]
    %576 = mul(%550, %569) : f32[64]
    %577 = div(%576, %575) : f32[64]
    %578 = add(%layers.0.attn_norm.weight, %577) : f32[64]
    %579 = constant() {value = 0.1} : f64[]
    %580 = mul(%465, %579) : f64[]
    %581 = constant() {value = 1.0} : f64[]
    %582 = sub(%581, %580) : f64[]
    %583 = cast(%582) : f32[]
    %584 = mul(%layers.0.attn.wq.weight, %583) : f32[64,64]
    %585 = constant() {value = 0.09999999999999998} : f32[]
    %586 = mul(%431, %585) : f32[64,64]
    %587 = constant() {value = 0.9} : f32[]
    %588 = mul(%layers.0.attn.wq.weight.exp_avg, %587) : f32[64,64]
    %589 = add(%588, %586) : f32[64,64]
    %590 = constant() {value = 0.050000000000000044} : f32[]
    %591 = mul(%431, %590) : f32[64,64]
    %592 = mul(%591, %431) : f32[64,64]
    %593 = constant() {value = 0.95} : f32[]
    %594 = mul(%layers.0.attn.wq.weight.exp_avg_sq, %593) : f32[64,64]
    %595 = add(%594, %592) : f32[64,64]
    %596 = cast(%step) : f64[]
    %597 = constant() {value = 0.9} : f64[]
    %598 = pow(%597, %596) : f64[]
    %599 = constant() {value = 1.0} : f64[]
    %600 = sub(%599, %598) : f64[]
    %601 = cast(%step) : f64[]
    %602 = constant() {value = 0.95} : f64[]
    %603 = pow(%602, %601) : f64[]
    %604 = constant() {value = 1.0} : f64[]
    %605 = sub(%604, %603) : f64[]
    %606 = div(%465, %600) : f64[]
    %607 = neg(%606) : f64[]
    %608 = cast(%607) : f32[]
    %609 = constant() {value = 1e-08} : f32[]
    %610 = sqrt(%605) : f64[]
    %611 = cast(%610) : f32[]
    %612 = sqrt(%595) : f32[64,64]
    %613 = div(%612, %611) : f32[64,64]
    %614 = add(%613, %609) : f32[64,64]
    %615 = mul(%589, %608) : f32[64,64]
    %616 = div(%615, %614) : f32[64,64]
    %617 = add(%584, %616) : f32[64,64]
    %618 = constant() {value = 0.1} : f64[]
    %619 = mul(%465, %618) : f64[]
    %620 = constant() {value = 1.0} : f64[]
    %621 = sub(%620, %619) : f64[]
    %622 = cast(%621) : f32[]
    %623 = mul(%layers.0.attn.wk.weight, %622) : f32[64,64]
    %624 = constant() {value = 0.09999999999999998} : f32[]
    %625 = mul(%424, %624) : f32[64,64]
    %626 = constant() {value = 0.9} : f32[]
    %627 = mul(%layers.0.attn.wk.weight.exp_avg, %626) : f32[64,64]
    %628 = add(%627, %625) : f32[64,64]
    %629 = constant() {value = 0.050000000000000044} : f32[]
    %630 = mul(%424, %629) : f32[64,64]
    %631 = mul(%630, %424) : f32[64,64]
    %632 = constant() {value = 0.95} : f32[]
    %633 = mul(%layers.0.attn.wk.weight.exp_avg_sq, %632) : f32[64,64]
    %634 = add(%633, %631) : f32[64,64]
    %635 = cast(%step) : f64[]
    %636 = constant() {value = 0.9} : f64[]
    %637 = pow(%636, %635) : f64[]
    %638 = constant() {value = 1.0} : f64[]
    %639 = sub(%638, %637) : f64[]
    %640 = cast(%step) : f64[]
    %641 = constant() {value = 0.95} : f64[]
    %642 = pow(%641, %640) : f64[]
    %643 = constant() {value = 1.0} : f64[]
    %644 = sub(%643, %642) : f64[]
    %645 = div(%465, %639) : f64[]
    %646 = neg(%645) : f64[]
    %647 = cast(%646) : f32[]
    %648 = constant() {value = 1e-08} : f32[]
    %649 = sqrt(%644) : f64[]
    %650 = cast(%649) : f32[]
    %651 = sqrt(%634) : f32[64,64]
    %652 = div(%651, %650) : f32[64,64]
    %653 = add(%652, %648) : f32[64,64]
    %654 = mul(%628, %647) : f32[64,64]
    %655 = div(%654, %653) : f32[64,64]
    %656 = add(%623, %655) : f32[64,64]
    %657 = constant() {value = 0.1} : f64[]
    %658 = mul(%465, %657) : f64[]
    %659 = constant() {value = 1.0} : f64[]
    %660 = sub(%659, %658) : f64[]
    %661 = cast(%660) : f32[]
    %662 = mul(%layers.0.attn.wv.weight, %661) : f32[64,64]
    %663 = constant() {value = 0.09999999999999998} : f32[]
    %664 = mul(%418, %663) : f32[64,64]
    %665 = constant() {value = 0.9} : f32[]
    %666 = mul(%layers.0.attn.wv.weight.exp_avg, %665) : f32[64,64]
    %667 = add(%666, %664) : f32[64,64]
    %668 = constant() {value = 0.050000000000000044} : f32[]
    %669 = mul(%418, %668) : f32[64,64]
    %670 = mul(%669, %418) : f32[64,64]
    %671 = constant() {value = 0.95} : f32[]
    %672 = mul(%layers.0.attn.wv.weight.exp_avg_sq, %671) : f32[64,64]
    %673 = add(%672, %670) : f32[64,64]
    %674 = cast(%step) : f64[]
    %675 = constant() {value = 0.9} : f64[]
    %676 = pow(%675, %674) : f64[]
    %677 = constant() {value = 1.0} : f64[]
    %678 = sub(%677, %676) : f64[]
    %679 = cast(%step) : f64[]
    %680 = constant() {value = 0.95} : f64[]
    %681 = pow(%680, %679) : f64[]
    %682 = constant() {value = 1.0} : f64[]
    %683 = sub(%682, %681) : f64[]
    %684 = div(%465, %678) : f64[]
    %685 = neg(%684) : f64[]
    %686 = cast(%685) : f32[]
    %687 = constant() {value = 1e-08} : f32[]
    %688 = sqrt(%683) : f64[]
    %689 = cast(%688) : f32[]
    %690 = sqrt(%673) : f32[64,64]
    %691 = div(%690, %689) : f32[64,64]
    %692 = add(%691, %687) : f32[64,64]
    %693 = mul(%667, %686) : f32[64,64]
    %694 = div(%693, %692) : f32[64,64]
    %695 = add(%662, %694) : f32[64,64]
    %696 = constant() {value = 0.1} : f64[]
    %697 = mul(%465, %696) : f64[]
    %698 = constant() {value = 1.0} : f64[]
    %699 = sub(%698, %697) : f64[]
    %700 = cast(%699) : f32[]
    %701 = mul(%layers.0.attn.wo.weight, %700) : f32[64,64]
    %702 = constant() {value = 0.09999999999999998} : f32[]
    %703 = mul(%377, %702) : f32[64,64]
    %704 = constant() {value = 0.9} : f32[]
    %705 = mul(%layers.0.attn.wo.weight.exp_avg, %704) : f32[64,64]
    %706 = add(%705, %703) : f32[64,64]
    %707 = constant() {value = 0.050000000000000044} : f32[]
    %708 = mul(%377, %707) : f32[64,64]
    %709 = mul(%708, %377) : f32[64,64]
    %710 = constant() {value = 0.95} : f32[]
    %711 = mul(%layers.0.attn.wo.weight.exp_avg_sq, %710) : f32[64,64]
    %712 = add(%711, %709) : f32[64,64]
    %713 = cast(%step) : f64[]
    %714 = constant() {value = 0.9} : f64[]
    %715 = pow(%714, %713) : f64[]
    %716 = constant() {value = 1.0} : f64[]
    %717 = sub(%716, %715) : f64[]
    %718 = cast(%step) : f64[]
    %719 = constant() {value = 0.95} : f64[]
    %720 = pow(%719, %718) : f64[]
    %721 = constant() {value = 1.0} : f64[]
    %722 = sub(%721, %720) : f64[]
    %723 = div(%465, %717) : f64[]
    %724 = neg(%723) : f64[]
    %725 = cast(%724) : f32[]
    %726 = constant() {value = 1e-08} : f32[]
    %727 = sqrt(%722) : f64[]
    %728 = cast(%727) : f32[]
    %729 = sqrt(%712) : f32[64,64]
    %730 = div(%729, %728) : f32[64,64]
    %731 = add(%730, %726) : f32[64,64]
    %732 = mul(%706, %725) : f32[64,64]
    %733 = div(%732, %731) : f32[64,64]
    %734 = add(%701, %733) : f32[64,64]
    %735 = constant() {value = 0.09999999999999998} : f32[]
    %736 = mul(%351, %735) : f32[64]
    %737 = constant() {value = 0.9} : f32[]
    %738 = mul(%layers.0.mlp_norm.weight.exp_avg, %737) : f32[64]
    %739 = add(%738, %736) : f32[64]
    %740 = constant() {value = 0.050000000000000044} : f32[]
    %741 = mul(%351, %740) : f32[64]
    %742 = mul(%741, %351) : f32[64]
    %743 = constant() {value = 0.95} : f32[]
    %744 = mul(%layers.0.mlp_norm.weight.exp_avg_sq, %743) : f32[64]
    %745 = add(%744, %742) : f32[64]
    %746 = cast(%step) : f64[]
    %747 = constant() {value = 0.9} : f64[]
    %748 = pow(%747, %746) : f64[]
    %749 = constant() {value = 1.0} : f64[]
    %750 = sub(%749, %748) : f64[]
    %751 = cast(%step) : f64[]
    %752 = constant() {value = 0.95} : f64[]
    %753 = pow(%752, %751) : f64[]
    %754 = constant() {value = 1.0} : f64[]
    %755 = sub(%754, %753) : f64[]
    %756 = div(%465, %750) : f64[]
    %757 = neg(%756) : f64[]
    %758 = cast(%757) : f32[]
    %759 = constant() {value = 1e-08} : f32[]
    %760 = sqrt(%755) : f64[]
    %761 = cast(%760) : f32[]
    %762 = sqrt(%745) : f32[64]
    %763 = div(%762, %761) : f32[64]
    %764 = add(%763, %759) : f32[64]
    %765 = mul(%739, %758) : f32[64]
    %766 = div(%765, %764) : f32[64]
    %767 = add(%layers.0.mlp_norm.weight, %766) : f32[64]
    %768 = constant() {value = 0.1} : f64[]
    %769 = mul(%465, %768) : f64[]
    %770 = constant() {value = 1.0} : f64[]
    %771 = sub(%770, %769) : f64[]
    %772 = cast(%771) : f32[]
    %773 = mul(%layers.0.mlp.w1.weight, %772) : f32[128,64]
    %774 = constant() {value = 0.09999999999999998} : f32[]
    %775 = mul(%347, %774) : f32[128,64]
    %776 = constant() {value = 0.9} : f32[]
    %777 = mul(%layers.0.mlp.w1.weight.exp_avg, %776) : f32[128,64]
    %778 = add(%777, %775) : f32[128,64]
    %779 = constant() {value = 0.050000000000000044} : f32[]
    %780 = mul(%347, %779) : f32[128,64]
    %781 = mul(%780, %347) : f32[128,64]
    %782 = constant() {value = 0.95} : f32[]
    %783 = mul(%layers.0.mlp.w1.weight.exp_avg_sq, %782) : f32[128,64]
    %784 = add(%783, %781) : f32[128,64]
    %785 = cast(%step) : f64[]
    %786 = constant() {value = 0.9} : f64[]
    %787 = pow(%786, %785) : f64[]
    %788 = constant() {value = 1.0} : f64[]
    %789 = sub(%788, %787) : f64[]
    %790 = cast(%step) : f64[]
    %791 = constant() {value = 0.95} : f64[]
    %792 = pow(%791, %790) : f64[]
    %793 = constant() {value = 1.0} : f64[]
    %794 = sub(%793, %792) : f64[]
    %795 = div(%465, %789) : f64[]
    %796 = neg(%795) : f64[]
    %797 = cast(%796) : f32[]
    %798 = constant() {value = 1e-08} : f32[]
    %799 = sqrt(%794) : f64[]
    %800 = cast(%799) : f32[]
    %801 = sqrt(%784) : f32[128,64]
    %802 = div(%801, %800) : f32[128,64]
    %803 = add(%802, %798) : f32[128,64]
    %804 = mul(%778, %797) : f32[128,64]
    %805 = div(%804, %803) : f32[128,64]
    %806 = add(%773, %805) : f32[128,64]
    %807 = constant() {value = 0.1} : f64[]
    %808 = mul(%465, %807) : f64[]
    %809 = constant() {value = 1.0} : f64[]
    %810 = sub(%809, %808) : f64[]
    %811 = cast(%810) : f32[]
    %812 = mul(%layers.0.mlp.w3.weight, %811) : f32[128,64]
    %813 = constant() {value = 0.09999999999999998} : f32[]
    %814 = mul(%336, %813) : f32[128,64]
    %815 = constant() {value = 0.9} : f32[]
    %816 = mul(%layers.0.mlp.w3.weight.exp_avg, %815) : f32[128,64]
    %817 = add(%816, %814) : f32[128,64]
    %818 = constant() {value = 0.050000000000000044} : f32[]
    %819 = mul(%336, %818) : f32[128,64]
    %820 = mul(%819, %336) : f32[128,64]
    %821 = constant() {value = 0.95} : f32[]
    %822 = mul(%layers.0.mlp.w3.weight.exp_avg_sq, %821) : f32[128,64]
    %823 = add(%822, %820) : f32[128,64]
    %824 = cast(%step) : f64[]
    %825 = constant() {value = 0.9} : f64[]
    %826 = pow(%825, %824) : f64[]
    %827 = constant() {value = 1.0} : f64[]
    %828 = sub(%827, %826) : f64[]
    %829 = cast(%step) : f64[]
    %830 = constant() {value = 0.95} : f64[]
    %831 = pow(%830, %829) : f64[]
    %832 = constant() {value = 1.0} : f64[]
    %833 = sub(%832, %831) : f64[]
    %834 = div(%465, %828) : f64[]
    %835 = neg(%834) : f64[]
    %836 = cast(%835) : f32[]
    %837 = constant() {value = 1e-08} : f32[]
    %838 = sqrt(%833) : f64[]
    %839 = cast(%838) : f32[]
    %840 = sqrt(%823) : f32[128,64]
    %841 = div(%840, %839) : f32[128,64]
    %842 = add(%841, %837) : f32[128,64]
    %843 = mul(%817, %836) : f32[128,64]
    %844 = div(%843, %842) : f32[128,64]
    %845 = add(%812, %844) : f32[128,64]
    %846 = constant() {value = 0.1} : f64[]
    %847 = mul(%465, %846) : f64[]
    %848 = constant() {value = 1.0} : f64[]
    %849 = sub(%848, %847) : f64[]
    %850 = cast(%849) : f32[]
    %851 = mul(%layers.0.mlp.w2.weight, %850) : f32[64,128]
    %852 = constant() {value = 0.09999999999999998} : f32[]
    %853 = mul(%330, %852) : f32[64,128]
    %854 = constant() {value = 0.9} : f32[]
    %855 = mul(%layers.0.mlp.w2.weight.exp_avg, %854) : f32[64,128]
    %856 = add(%855, %853) : f32[64,128]
    %857 = constant() {value = 0.050000000000000044} : f32[]
    %858 = mul(%330, %857) : f32[64,128]
    %859 = mul(%858, %330) : f32[64,128]
    %860 = constant() {value = 0.95} : f32[]
    %861 = mul(%layers.0.mlp.w2.weight.exp_avg_sq, %860) : f32[64,128]
    %862 = add(%861, %859) : f32[64,128]
    %863 = cast(%step) : f64[]
    %864 = constant() {value = 0.9} : f64[]
    %865 = pow(%864, %863) : f64[]
    %866 = constant() {value = 1.0} : f64[]
    %867 = sub(%866, %865) : f64[]
    %868 = cast(%step) : f64[]
    %869 = constant() {value = 0.95} : f64[]
    %870 = pow(%869, %868) : f64[]
    %871 = constant() {value = 1.0} : f64[]
    %872 = sub(%871, %870) : f64[]
    %873 = div(%465, %867) : f64[]
    %874 = neg(%873) : f64[]
    %875 = cast(%874) : f32[]
    %876 = constant() {value = 1e-08} : f32[]
    %877 = sqrt(%872) : f64[]
    %878 = cast(%877) : f32[]
    %879 = sqrt(%862) : f32[64,128]
    %880 = div(%879, %878) : f32[64,128]
    %881 = add(%880, %876) : f32[64,128]
    %882 = mul(%856, %875) : f32[64,128]
    %883 = div(%882, %881) : f32[64,128]
    %884 = add(%851, %883) : f32[64,128]
    %885 = constant() {value = 0.09999999999999998} : f32[]
    %886 = mul(%304, %885) : f32[64]
    %887 = constant() {value = 0.9} : f32[]
    %888 = mul(%layers.1.attn_norm.weight.exp_avg, %887) : f32[64]
    %889 = add(%888, %886) : f32[64]
    %890 = constant() {value = 0.050000000000000044} : f32[]
    %891 = mul(%304, %890) : f32[64]
    %892 = mul(%891, %304) : f32[64]
    %893 = constant() {value = 0.95} : f32[]
    %894 = mul(%layers.1.attn_norm.weight.exp_avg_sq, %893) : f32[64]
    %895 = add(%894, %892) : f32[64]
    %896 = cast(%step) : f64[]
    %897 = constant() {value = 0.9} : f64[]
    %898 = pow(%897, %896) : f64[]
    %899 = constant() {value = 1.0} : f64[]
    %900 = sub(%899, %898) : f64[]
    %901 = cast(%step) : f64[]
    %902 = constant() {value = 0.95} : f64[]
    %903 = pow(%902, %901) : f64[]
    %904 = constant() {value = 1.0} : f64[]
    %905 = sub(%904, %903) : f64[]
    %906 = div(%465, %900) : f64[]
    %907 = neg(%906) : f64[]
    %908 = cast(%907) : f32[]
    %909 = constant() {value = 1e-08} : f32[]
    %910 = sqrt(%905) : f64[]
    %911 = cast(%910) : f32[]
    %912 = sqrt(%895) : f32[64]
    %913 = div(%912, %911) : f32[64]
    %914 = add(%913, %909) : f32[64]
    %915 = mul(%889, %908) : f32[64]
    %916 = div(%915, %914) : f32[64]
    %917 = add(%layers.1.attn_norm.weight, %916) : f32[64]
    %918 = constant() {value = 0.1} : f64[]
    %919 = mul(%465, %918) : f64[]
    %920 = constant() {value = 1.0} : f64[]
    %921 = sub(%920, %919) : f64[]
    %922 = cast(%921) : f32[]
    %923 = mul(%layers.1.attn.wq.weight, %922) : f32[64,64]
    %924 = constant() {value = 0.09999999999999998} : f32[]
    %925 = mul(%300, %924) : f32[64,64]
    %926 = constant() {value = 0.9} : f32[]
    %927 = mul(%layers.1.attn.wq.weight.exp_avg, %926) : f32[64,64]
    %928 = add(%927, %925) : f32[64,64]
    %929 = constant() {value = 0.050000000000000044} : f32[]
    %930 = mul(%300, %929) : f32[64,64]
    %931 = mul(%930, %300) : f32[64,64]
    %932 = constant() {value = 0.95} : f32[]
    %933 = mul(%layers.1.attn.wq.weight.exp_avg_sq, %932) : f32[64,64]
    %934 = add(%933, %931) : f32[64,64]
    %935 = cast(%step) : f64[]
    %936 = constant() {value = 0.9} : f64[]
    %937 = pow(%936, %935) : f64[]
    %938 = constant() {value = 1.0} : f64[]
    %939 = sub(%938, %937) : f64[]
    %940 = cast(%step) : f64[]
    %941 = constant() {value = 0.95} : f64[]
    %942 = pow(%941, %940) : f64[]
    %943 = constant() {value = 1.0} : f64[]
    %944 = sub(%943, %942) : f64[]
    %945 = div(%465, %939) : f64[]
    %946 = neg(%945) : f64[]
    %947 = cast(%946) : f32[]
    %948 = constant() {value = 1e-08} : f32[]
    %949 = sqrt(%944) : f64[]
    %950 = cast(%949) : f32[]
    %951 = sqrt(%934) : f32[64,64]
    %952 = div(%951, %950) : f32[64,64]
    %953 = add(%952, %948) : f32[64,64]
    %954 = mul(%928, %947) : f32[64,64]
    %955 = div(%954, %953) : f32[64,64]
    %956 = add(%923, %955) : f32[64,64]
    %957 = constant() {value = 0.1} : f64[]
    %958 = mul(%465, %957) : f64[]
    %959 = constant() {value = 1.0} : f64[]
    %960 = sub(%959, %958) : f64[]
    %961 = cast(%960) : f32[]
    %962 = mul(%layers.1.attn.wk.weight, %961) : f32[64,64]
    %963 = constant() {value = 0.09999999999999998} : f32[]
    %964 = mul(%293, %963) : f32[64,64]
    %965 = constant() {value = 0.9} : f32[]
    %966 = mul(%layers.1.attn.wk.weight.exp_avg, %965) : f32[64,64]
    %967 = add(%966, %964) : f32[64,64]
    %968 = constant() {value = 0.050000000000000044} : f32[]
    %969 = mul(%293, %968) : f32[64,64]
    %970 = mul(%969, %293) : f32[64,64]
    %971 = constant() {value = 0.95} : f32[]
    %972 = mul(%layers.1.attn.wk.weight.exp_avg_sq, %971) : f32[64,64]
    %973 = add(%972, %970) : f32[64,64]
    %974 = cast(%step) : f64[]
    %975 = constant() {value = 0.9} : f64[]
    %976 = pow(%975, %974) : f64[]
    %977 = constant() {value = 1.0} : f64[]
    %978 = sub(%977, %976) : f64[]
    %979 = cast(%step) : f64[]
    %980 = constant() {value = 0.95} : f64[]
    %981 = pow(%980, %979) : f64[]
    %982 = constant() {value = 1.0} : f64[]
    %983 = sub(%982, %981) : f64[]
    %984 = div(%465, %978) : f64[]
    %985 = neg(%984) : f64[]
    %986 = cast(%985) : f32[]
    %987 = constant() {value = 1e-08} : f32[]
    %988 = sqrt(%983) : f64[]
    %989 = cast(%988) : f32[]
    %990 = sqrt(%973) : f32[64,64]
    %991 = div(%990, %989) : f32[64,64]
    %992 = add(%991, %987) : f32[64,64]
    %993 = mul(%967, %986) : f32[64,64]
    %994 = div(%993, %992) : f32[64,64]
    %995 = add(%962, %994) : f32[64,64]
    %996 = constant() {value = 0.1} : f64[]
    %997 = mul(%465, %996) : f64[]
    %998 = constant() {value = 1.0} : f64[]
    %999 = sub(%998, %997) : f64[]
    %1000 = cast(%999) : f32[]
    %1001 = mul(%layers.1.attn.wv.weight, %1000) : f32[64,64]
    %1002 = constant() {value = 0.09999999999999998} : f32[]
    %1003 = mul(%287, %1002) : f32[64,64]
    %1004 = constant() {value = 0.9} : f32[]
    %1005 = mul(%layers.1.attn.wv.weight.exp_avg, %1004) : f32[64,64]
    %1006 = add(%1005, %1003) : f32[64,64]
    %1007 = constant() {value = 0.050000000000000044} : f32[]
    %1008 = mul(%287, %1007) : f32[64,64]
    %1009 = mul(%1008, %287) : f32[64,64]
    %1010 = constant() {value = 0.95} : f32[]
    %1011 = mul(%layers.1.attn.wv.weight.exp_avg_sq, %1010) : f32[64,64]
    %1012 = add(%1011, %1009) : f32[64,64]
    %1013 = cast(%step) : f64[]
    %1014 = constant() {value = 0.9} : f64[]
    %1015 = pow(%1014, %1013) : f64[]
    %1016 = constant() {value = 1.0} : f64[]
    %1017 = sub(%1016, %1015) : f64[]
    %1018 = cast(%step) : f64[]
    %1019 = constant() {value = 0.95} : f64[]
    %1020 = pow(%1019, %1018) : f64[]
    %1021 = constant() {value = 1.0} : f64[]
    %1022 = sub(%1021, %1020) : f64[]
    %1023 = div(%465, %1017) : f64[]
    %1024 = neg(%1023) : f64[]
    %1025 = cast(%1024) : f32[]
    %1026 = constant() {value = 1e-08} : f32[]
    %1027 = sqrt(%1022) : f64[]
    %1028 = cast(%1027) : f32[]
    %1029 = sqrt(%1012) : f32[64,64]
    %1030 = div(%1029, %1028) : f32[64,64]
    %1031 = add(%1030, %1026) : f32[64,64]
    %1032 = mul(%1006, %1025) : f32[64,64]
    %1033 = div(%1032, %1031) : f32[64,64]
    %1034 = add(%1001, %1033) : f32[64,64]
    %1035 = constant() {value = 0.1} : f64[]
    %1036 = mul(%465, %1035) : f64[]
    %1037 = constant() {value = 1.0} : f64[]
    %1038 = sub(%1037, %1036) : f64[]
    %1039 = cast(%1038) : f32[]
    %1040 = mul(%layers.1.attn.wo.weight, %1039) : f32[64,64]
    %1041 = constant() {value = 0.09999999999999998} : f32[]
    %1042 = mul(%246, %1041) : f32[64,64]
    %1043 = constant() {value = 0.9} : f32[]
    %1044 = mul(%layers.1.attn.wo.weight.exp_avg, %1043) : f32[64,64]
    %1045 = add(%1044, %1042) : f32[64,64]
    %1046 = constant() {value = 0.050000000000000044} : f32[]
    %1047 = mul(%246, %1046) : f32[64,64]
    %1048 = mul(%1047, %246) : f32[64,64]
    %1049 = constant() {value = 0.95} : f32[]
    %1050 = mul(%layers.1.attn.wo.weight.exp_avg_sq, %1049) : f32[64,64]
    %1051 = add(%1050, %1048) : f32[64,64]
    %1052 = cast(%step) : f64[]
    %1053 = constant() {value = 0.9} : f64[]
    %1054 = pow(%1053, %1052) : f64[]
    %1055 = constant() {value = 1.0} : f64[]
    %1056 = sub(%1055, %1054) : f64[]
    %1057 = cast(%step) : f64[]
    %1058 = constant() {value = 0.95} : f64[]
    %1059 = pow(%1058, %1057) : f64[]
    %1060 = constant() {value = 1.0} : f64[]
    %1061 = sub(%1060, %1059) : f64[]
    %1062 = div(%465, %1056) : f64[]
    %1063 = neg(%1062) : f64[]
    %1064 = cast(%1063) : f32[]
    %1065 = constant() {value = 1e-08} : f32[]
    %1066 = sqrt(%1061) : f64[]
    %1067 = cast(%1066) : f32[]
    %1068 = sqrt(%1051) : f32[64,64]
    %1069 = div(%1068, %1067) : f32[64,64]
    %1070 = add(%1069, %1065) : f32[64,64]
    %1071 = mul(%1045, %1064) : f32[64,64]
    %1072 = div(%1071, %1070) : f32[64,64]
    %1073 = add(%1040, %1072) : f32[64,64]
    %1074 = constant() {value = 0.09999999999999998} : f32[]
    %1075 = mul(%220, %1074) : f32[64]
    %1076 = constant() {value = 0.9} : f32[]
    %1077 = mul(%layers.1.mlp_norm.weight.exp_avg, %1076) : f32[64]
    %1078 = add(%1077, %1075) : f32[64]
    %1079 = constant() {value = 0.050000000000000044} : f32[]
    %1080 = mul(%220, %1079) : f32[64]
    %1081 = mul(%1080, %220) : f32[64]
    %1082 = constant() {value = 0.95} : f32[]
    %1083 = mul(%layers.1.mlp_norm.weight.exp_avg_sq, %1082) : f32[64]
    %1084 = add(%1083, %1081) : f32[64]
    %1085 = cast(%step) : f64[]
    %1086 = constant() {value = 0.9} : f64[]
    %1087 = pow(%1086, %1085) : f64[]
    %1088 = constant() {value = 1.0} : f64[]
    %1089 = sub(%1088, %1087) : f64[]
    %1090 = cast(%step) : f64[]
    %1091 = constant() {value = 0.95} : f64[]
    %1092 = pow(%1091, %1090) : f64[]
    %1093 = constant() {value = 1.0} : f64[]
    %1094 = sub(%1093, %1092) : f64[]
    %1095 = div(%465, %1089) : f64[]
    %1096 = neg(%1095) : f64[]
    %1097 = cast(%1096) : f32[]
    %1098 = constant() {value = 1e-08} : f32[]
    %1099 = sqrt(%1094) : f64[]
    %1100 = cast(%1099) : f32[]
    %1101 = sqrt(%1084) : f32[64]
    %1102 = div(%1101, %1100) : f32[64]
    %1103 = add(%1102, %1098) : f32[64]
    %1104 = mul(%1078, %1097) : f32[64]
    %1105 = div(%1104, %1103) : f32[64]
    %1106 = add(%layers.1.mlp_norm.weight, %1105) : f32[64]
    %1107 = constant() {value = 0.1} : f64[]
    %1108 = mul(%465, %1107) : f64[]
    %1109 = constant() {value = 1.0} : f64[]
    %1110 = sub(%1109, %1108) : f64[]
    %1111 = cast(%1110) : f32[]
    %1112 = mul(%layers.1.mlp.w1.weight, %1111) : f32[128,64]
    %1113 = constant() {value = 0.09999999999999998} : f32[]
    %1114 = mul(%216, %1113) : f32[128,64]
    %1115 = constant() {value = 0.9} : f32[]
    %1116 = mul(%layers.1.mlp.w1.weight.exp_avg, %1115) : f32[128,64]
    %1117 = add(%1116, %1114) : f32[128,64]
    %1118 = constant() {value = 0.050000000000000044} : f32[]
    %1119 = mul(%216, %1118) : f32[128,64]
    %1120 = mul(%1119, %216) : f32[128,64]
    %1121 = constant() {value = 0.95} : f32[]
    %1122 = mul(%layers.1.mlp.w1.weight.exp_avg_sq, %1121) : f32[128,64]
    %1123 = add(%1122, %1120) : f32[128,64]
    %1124 = cast(%step) : f64[]
    %1125 = constant() {value = 0.9} : f64[]
    %1126 = pow(%1125, %1124) : f64[]
    %1127 = constant() {value = 1.0} : f64[]
    %1128 = sub(%1127, %1126) : f64[]
    %1129 = cast(%step) : f64[]
    %1130 = constant() {value = 0.95} : f64[]
    %1131 = pow(%1130, %1129) : f64[]
    %1132 = constant() {value = 1.0} : f64[]
    %1133 = sub(%1132, %1131) : f64[]
    %1134 = div(%465, %1128) : f64[]
    %1135 = neg(%1134) : f64[]
    %1136 = cast(%1135) : f32[]
    %1137 = constant() {value = 1e-08} : f32[]
    %1138 = sqrt(%1133) : f64[]
    %1139 = cast(%1138) : f32[]
    %1140 = sqrt(%1123) : f32[128,64]
    %1141 = div(%1140, %1139) : f32[128,64]
    %1142 = add(%1141, %1137) : f32[128,64]
    %1143 = mul(%1117, %1136) : f32[128,64]
    %1144 = div(%1143, %1142) : f32[128,64]
    %1145 = add(%1112, %1144) : f32[128,64]
    %1146 = constant() {value = 0.1} : f64[]
    %1147 = mul(%465, %1146) : f64[]
    %1148 = constant() {value = 1.0} : f64[]
    %1149 = sub(%1148, %1147) : f64[]
    %1150 = cast(%1149) : f32[]
    %1151 = mul(%layers.1.mlp.w3.weight, %1150) : f32[128,64]
    %1152 = constant() {value = 0.09999999999999998} : f32[]
    %1153 = mul(%205, %1152) : f32[128,64]
    %1154 = constant() {value = 0.9} : f32[]
    %1155 = mul(%layers.1.mlp.w3.weight.exp_avg, %1154) : f32[128,64]
    %1156 = add(%1155, %1153) : f32[128,64]
    %1157 = constant() {value = 0.050000000000000044} : f32[]
    %1158 = mul(%205, %1157) : f32[128,64]
    %1159 = mul(%1158, %205) : f32[128,64]
    %1160 = constant() {value = 0.95} : f32[]
    %1161 = mul(%layers.1.mlp.w3.weight.exp_avg_sq, %1160) : f32[128,64]
    %1162 = add(%1161, %1159) : f32[128,64]
    %1163 = cast(%step) : f64[]
    %1164 = constant() {value = 0.9} : f64[]
    %1165 = pow(%1164, %1163) : f64[]
    %1166 = constant() {value = 1.0} : f64[]
    %1167 = sub(%1166, %1165) : f64[]
    %1168 = cast(%step) : f64[]
    %1169 = constant() {value = 0.95} : f64[]
    %1170 = pow(%1169, %1168) : f64[]
    %1171 = constant() {value = 1.0} : f64[]
    %1172 = sub(%1171, %1170) : f64[]
    %1173 = div(%465, %1167) : f64[]
    %1174 = neg(%1173) : f64[]
    %1175 = cast(%1174) : f32[]
    %1176 = constant() {value = 1e-08} : f32[]
    %1177 = sqrt(%1172) : f64[]
    %1178 = cast(%1177) : f32[]
    %1179 = sqrt(%1162) : f32[128,64]
    %1180 = div(%1179, %1178) : f32[128,64]
    %1181 = add(%1180, %1176) : f32[128,64]
    %1182 = mul(%1156, %1175) : f32[128,64]
    %1183 = div(%1182, %1181) : f32[128,64]
    %1184 = add(%1151, %1183) : f32[128,64]
    %1185 = constant() {value = 0.1} : f64[]
    %1186 = mul(%465, %1185) : f64[]
    %1187 = constant() {value = 1.0} : f64[]
    %1188 = sub(%1187, %1186) : f64[]
    %1189 = cast(%1188) : f32[]
    %1190 = mul(%layers.1.mlp.w2.weight, %1189) : f32[64,128]
    %1191 = constant() {value = 0.09999999999999998} : f32[]
    %1192 = mul(%199, %1191) : f32[64,128]
    %1193 = constant() {value = 0.9} : f32[]
    %1194 = mul(%layers.1.mlp.w2.weight.exp_avg, %1193) : f32[64,128]
    %1195 = add(%1194, %1192) : f32[64,128]
    %1196 = constant() {value = 0.050000000000000044} : f32[]
    %1197 = mul(%199, %1196) : f32[64,128]
    %1198 = mul(%1197, %199) : f32[64,128]
    %1199 = constant() {value = 0.95} : f32[]
    %1200 = mul(%layers.1.mlp.w2.weight.exp_avg_sq, %1199) : f32[64,128]
    %1201 = add(%1200, %1198) : f32[64,128]
    %1202 = cast(%step) : f64[]
    %1203 = constant() {value = 0.9} : f64[]
    %1204 = pow(%1203, %1202) : f64[]
    %1205 = constant() {value = 1.0} : f64[]
    %1206 = sub(%1205, %1204) : f64[]
    %1207 = cast(%step) : f64[]
    %1208 = constant() {value = 0.95} : f64[]
    %1209 = pow(%1208, %1207) : f64[]
    %1210 = constant() {value = 1.0} : f64[]
    %1211 = sub(%1210, %1209) : f64[]
    %1212 = div(%465, %1206) : f64[]
    %1213 = neg(%1212) : f64[]
    %1214 = cast(%1213) : f32[]
    %1215 = constant() {value = 1e-08} : f32[]
    %1216 = sqrt(%1211) : f64[]
    %1217 = cast(%1216) : f32[]
    %1218 = sqrt(%1201) : f32[64,128]
    %1219 = div(%1218, %1217) : f32[64,128]
    %1220 = add(%1219, %1215) : f32[64,128]
    %1221 = mul(%1195, %1214) : f32[64,128]
    %1222 = div(%1221, %1220) : f32[64,128]
    %1223 = add(%1190, %1222) : f32[64,128]
    %1224 = constant() {value = 0.09999999999999998} : f32[]
    %1225 = mul(%174, %1224) : f32[64]
    %1226 = constant() {value = 0.9} : f32[]
    %1227 = mul(%norm.weight.exp_avg, %1226) : f32[64]
    %1228 = add(%1227, %1225) : f32[64]
    %1229 = constant() {value = 0.050000000000000044} : f32[]
    %1230 = mul(%174, %1229) : f32[64]
    %1231 = mul(%1230, %174) : f32[64]
    %1232 = constant() {value = 0.95} : f32[]
    %1233 = mul(%norm.weight.exp_avg_sq, %1232) : f32[64]
    %1234 = add(%1233, %1231) : f32[64]
    %1235 = cast(%step) : f64[]
    %1236 = constant() {value = 0.9} : f64[]
    %1237 = pow(%1236, %1235) : f64[]
    %1238 = constant() {value = 1.0} : f64[]
    %1239 = sub(%1238, %1237) : f64[]
    %1240 = cast(%step) : f64[]
    %1241 = constant() {value = 0.95} : f64[]
    %1242 = pow(%1241, %1240) : f64[]
    %1243 = constant() {value = 1.0} : f64[]
    %1244 = sub(%1243, %1242) : f64[]
    %1245 = div(%465, %1239) : f64[]
    %1246 = neg(%1245) : f64[]
    %1247 = cast(%1246) : f32[]
    %1248 = constant() {value = 1e-08} : f32[]
    %1249 = sqrt(%1244) : f64[]
    %1250 = cast(%1249) : f32[]
    %1251 = sqrt(%1234) : f32[64]
    %1252 = div(%1251, %1250) : f32[64]
    %1253 = add(%1252, %1248) : f32[64]
    %1254 = mul(%1228, %1247) : f32[64]
    %1255 = div(%1254, %1253) : f32[64]
    %1256 = add(%norm.weight, %1255) : f32[64]
    %1257 = constant() {value = 0.1} : f64[]
    %1258 = mul(%465, %1257) : f64[]
    %1259 = constant() {value = 1.0} : f64[]
    %1260 = sub(%1259, %1258) : f64[]
    %1261 = cast(%1260) : f32[]
    %1262 = mul(%head.weight, %1261) : f32[64,64]
    %1263 = constant() {value = 0.09999999999999998} : f32[]
    %1264 = mul(%171, %1263) : f32[64,64]
    %1265 = constant() {value = 0.9} : f32[]
    %1266 = mul(%head.weight.exp_avg, %1265) : f32[64,64]
    %1267 = add(%1266, %1264) : f32[64,64]
    %1268 = constant() {value = 0.050000000000000044} : f32[]
    %1269 = mul(%171, %1268) : f32[64,64]
    %1270 = mul(%1269, %171) : f32[64,64]
    %1271 = constant() {value = 0.95} : f32[]
    %1272 = mul(%head.weight.exp_avg_sq, %1271) : f32[64,64]
    %1273 = add(%1272, %1270) : f32[64,64]
    %1274 = cast(%step) : f64[]
    %1275 = constant() {value = 0.9} : f64[]
    %1276 = pow(%1275, %1274) : f64[]
    %1277 = constant() {value = 1.0} : f64[]
    %1278 = sub(%1277, %1276) : f64[]
    %1279 = cast(%step) : f64[]
    %1280 = constant() {value = 0.95} : f64[]
    %1281 = pow(%1280, %1279) : f64[]
    %1282 = constant() {value = 1.0} : f64[]
    %1283 = sub(%1282, %1281) : f64[]
    %1284 = div(%465, %1278) : f64[]
    %1285 = neg(%1284) : f64[]
    %1286 = cast(%1285) : f32[]
    %1287 = constant() {value = 1e-08} : f32[]
    %1288 = sqrt(%1283) : f64[]
    %1289 = cast(%1288) : f32[]
    %1290 = sqrt(%1273) : f32[64,64]
    %1291 = div(%1290, %1289) : f32[64,64]
    %1292 = add(%1291, %1287) : f32[64,64]
    %1293 = mul(%1267, %1286) : f32[64,64]
    %1294 = div(%1293, %1292) : f32[64,64]
    %1295 = add(%1262, %1294) : f32[64,64]
    return %133, %506, %545, %578, %617, %656, %695, %734, %767, %806, %845, %884, %917, %956, %995, %1034, %1073, %1106, %1145, %1184, %1223, %1256, %1295, %478, %484, %517, %523, %550, %556, %589, %595, %628, %634, %667, %673, %706, %712, %739, %745, %778, %784, %817, %823, %856, %862, %889, %895, %928, %934, %967, %973, %1006, %1012, %1045, %1051, %1078, %1084, %1117, %1123, %1156, %1162, %1195, %1201, %1228, %1234, %1267, %1273
  }

  func @optimizer_init() -> (f32[64,64], f32[64,64], f32[32,64], f32[32,64], f32[64], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[64], f32[128,64], f32[128,64], f32[128,64], f32[128,64], f32[64,128], f32[64,128], f32[64], f32[64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64,64], f32[64], f32[64], f32[128,64], f32[128,64], f32[128,64], f32[128,64], f32[64,128], f32[64,128], f32[64], f32[64], f32[64,64], f32[64,64]) {
    %0 = constant() {value = 0.0} : f32[]
    %1 = broadcast(%0) {dims = []} : f32[64,64]
    %2 = constant() {value = 0.0} : f32[]
    %3 = broadcast(%2) {dims = []} : f32[64,64]
    %4 = constant() {value = 0.0} : f32[]
    %5 = broadcast(%4) {dims = []} : f32[32,64]
    %6 = constant() {value = 0.0} : f32[]
    %7 = broadcast(%6) {dims = []} : f32[32,64]
    %8 = constant() {value = 0.0} : f32[]
    %9 = broadcast(%8) {dims = []} : f32[64]
    %10 = constant() {value = 0.0} : f32[]
    %11 = broadcast(%10) {dims = []} : f32[64]
    %12 = constant() {value = 0.0} : f32[]
    %13 = broadcast(%12) {dims = []} : f32[64,64]
    %14 = constant() {value = 0.0} : f32[]
    %15 = broadcast(%14) {dims = []} : f32[64,64]
    %16 = constant() {value = 0.0} : f32[]
    %17 = broadcast(%16) {dims = []} : f32[64,64]
    %18 = constant() {value = 0.0} : f32[]
    %19 = broadcast(%18) {dims = []} : f32[64,64]
    %20 = constant() {value = 0.0} : f32[]
    %21 = broadcast(%20) {dims = []} : f32[64,64]
    %22 = constant() {value = 0.0} : f32[]
    %23 = broadcast(%22) {dims = []} : f32[64,64]
    %24 = constant() {value = 0.0} : f32[]
    %25 = broadcast(%24) {dims = []} : f32[64,64]
    %26 = constant() {value = 0.0} : f32[]
    %27 = broadcast(%26) {dims = []} : f32[64,64]
    %28 = constant() {value = 0.0} : f32[]
    %29 = broadcast(%28) {dims = []} : f32[64]
    %30 = constant() {value = 0.0} : f32[]
    %31 = broadcast(%30) {dims = []} : f32[64]
    %32 = constant() {value = 0.0} : f32[]
    %33 = broadcast(%32) {dims = []} : f32[128,64]
    %34 = constant() {value = 0.0} : f32[]
    %35 = broadcast(%34) {dims = []} : f32[128,64]
    %36 = constant() {value = 0.0} : f32[]
    %37 = broadcast(%36) {dims = []} : f32[128,64]
    %38 = constant() {value = 0.0} : f32[]
    %39 = broadcast(%38) {dims = []} : f32[128,64]
    %40 = constant() {value = 0.0} : f32[]
    %41 = broadcast(%40) {dims = []} : f32[64,128]
    %42 = constant() {value = 0.0} : f32[]
    %43 = broadcast(%42) {dims = []} : f32[64,128]
    %44 = constant() {value = 0.0} : f32[]
    %45 = broadcast(%44) {dims = []} : f32[64]
    %46 = constant() {value = 0.0} : f32[]
    %47 = broadcast(%46) {dims = []} : f32[64]
    %48 = constant() {value = 0.0} : f32[]
    %49 = broadcast(%48) {dims = []} : f32[64,64]
    %50 = constant() {value = 0.0} : f32[]
    %51 = broadcast(%50) {dims = []} : f32[64,64]
    %52 = constant() {value = 0.0} : f32[]
    %53 = broadcast(%52) {dims = []} : f32[64,64]
    %54 = constant() {value = 0.0} : f32[]
    %55 = broadcast(%54) {dims = []} : f32[64,64]
    %56 = constant() {value = 0.0} : f32[]
    %57 = broadcast(%56) {dims = []} : f32[64,64]
    %58 = constant() {value = 0.0} : f32[]
    %59 = broadcast(%58) {dims = []} : f32[64,64]
    %60 = constant() {value = 0.0} : f32[]
    %61 = broadcast(%60) {dims = []} : f32[64,64]
    %62 = constant() {value = 0.0} : f32[]
    %63 = broadcast(%62) {dims = []} : f32[64,64]
    %64 = constant() {value = 0.0} : f32[]
    %65 = broadcast(%64) {dims = []} : f32[64]
    %66 = constant() {value = 0.0} : f32[]
    %67 = broadcast(%66) {dims = []} : f32[64]
    %68 = constant() {value = 0.0} : f32[]
    %69 = broadcast(%68) {dims = []} : f32[128,64]
    %70 = constant() {value = 0.0} : f32[]
    %71 = broadcast(%70) {dims = []} : f32[128,64]
    %72 = constant() {value = 0.0} : f32[]
    %73 = broadcast(%72) {dims = []} : f32[128,64]
    %74 = constant() {value = 0.0} : f32[]
    %75 = broadcast(%74) {dims = []} : f32[128,64]
    %76 = constant() {value = 0.0} : f32[]
    %77 = broadcast(%76) {dims = []} : f32[64,128]
    %78 = constant() {value = 0.0} : f32[]
    %79 = broadcast(%78) {dims = []} : f32[64,128]
    %80 = constant() {value = 0.0} : f32[]
    %81 = broadcast(%80) {dims = []} : f32[64]
    %82 = constant() {value = 0.0} : f32[]
    %83 = broadcast(%82) {dims = []} : f32[64]
    %84 = constant() {value = 0.0} : f32[]
    %85 = broadcast(%84) {dims = []} : f32[64,64]
    %86 = constant() {value = 0.0} : f32[]
    %87 = broadcast(%86) {dims = []} : f32[64,64]
    return %1, %3, %5, %7, %9, %11, %13, %15, %17, %19, %21, %23, %25, %27, %29, %31, %33, %35, %37, %39, %41, %43, %45, %47, %49, %51, %53, %55, %57, %59, %61, %63, %65, %67, %69, %71, %73, %75, %77, %79, %81, %83, %85, %87
  }
}
