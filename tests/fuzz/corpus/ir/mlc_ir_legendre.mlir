module @legendre {
  func @loss(%x: f32[4,1] {input}, %y: f32[4,1] {input}, %inner.weight: f32[1,1] {param}, %inner.bias: f32[1] {param}, %outer.weight: f32[1,1] {param}, %outer.bias: f32[1] {param}) -> (f32[]) {
    %0 = dot(%x, %inner.weight) {transpose_a = false, transpose_b = true} : f32[4,1] meta {scope = "inner"} loc("examples/legendre.json":16:16)
    %1 = add(%0, %inner.bias) : f32[4,1] meta {scope = "inner"} loc("examples/legendre.json":16:16)
    %2 = call(%1) {callee = "legendre3"} : f32[4,1] loc("examples/legendre.json":19:31)
    %3 = dot(%2, %outer.weight) {transpose_a = false, transpose_b = true} : f32[4,1] meta {scope = "outer"} loc("examples/legendre.json":17:16)
    %4 = add(%3, %outer.bias) : f32[4,1] meta {scope = "outer"} loc("examples/legendre.json":17:16)
    %5 = mse(%4, %y) {reduction = "sum"} : f32[] loc("examples/legendre.json":21:11)
    return %5
  }

  func @legendre3(%x: f32[4,1] {input}) -> (f32[4,1]) {
    %0 = constant() {value = 5.0} : f32[] loc("examples/legendre.json":10:19)
    %1 = mul(%0, %x) : f32[4,1] loc("examples/legendre.json":10:19)
    %2 = mul(%1, %x) : f32[4,1] loc("examples/legendre.json":10:19)
    %3 = mul(%2, %x) : f32[4,1] loc("examples/legendre.json":10:19)
    %4 = constant() {value = 3.0} : f32[] loc("examples/legendre.json":10:19)
    %5 = mul(%4, %x) : f32[4,1] loc("examples/legendre.json":10:19)
    %6 = sub(%3, %5) : f32[4,1] loc("examples/legendre.json":10:19)
    %7 = constant() {value = 0.5} : f32[] loc("examples/legendre.json":10:19)
    %8 = mul(%7, %6) : f32[4,1] loc("examples/legendre.json":10:19)
    return %8
  }

  func @legendre3_vjp(%x: f32[4,1] {input}, %out: f32[4,1] {input}, %grad: f32[4,1] {input}) -> (f32[4,1]) {
    %0 = constant() {value = 1.5} : f32[] loc("examples/legendre.json":11:26)
    %1 = mul(%grad, %0) : f32[4,1] loc("examples/legendre.json":11:26)
    %2 = constant() {value = 5.0} : f32[] loc("examples/legendre.json":11:26)
    %3 = mul(%2, %x) : f32[4,1] loc("examples/legendre.json":11:26)
    %4 = mul(%3, %x) : f32[4,1] loc("examples/legendre.json":11:26)
    %5 = constant() {value = 1.0} : f32[] loc("examples/legendre.json":11:26)
    %6 = sub(%4, %5) : f32[4,1] loc("examples/legendre.json":11:26)
    %7 = mul(%1, %6) : f32[4,1] loc("examples/legendre.json":11:26)
    return %7
  }

  func @eval(%x: f32[4,1] {input}, %y: f32[4,1] {input}, %inner.weight: f32[1,1] {param}, %inner.bias: f32[1] {param}, %outer.weight: f32[1,1] {param}, %outer.bias: f32[1] {param}) -> (f32[]) {
    %0 = dot(%x, %inner.weight) {transpose_a = false, transpose_b = true} : f32[4,1] meta {scope = "inner"} loc("examples/legendre.json":16:16)
    %1 = add(%0, %inner.bias) : f32[4,1] meta {scope = "inner"} loc("examples/legendre.json":16:16)
    %2 = call(%1) {callee = "legendre3"} : f32[4,1] loc("examples/legendre.json":19:31)
    %3 = dot(%2, %outer.weight) {transpose_a = false, transpose_b = true} : f32[4,1] meta {scope = "outer"} loc("examples/legendre.json":17:16)
    %4 = add(%3, %outer.bias) : f32[4,1] meta {scope = "outer"} loc("examples/legendre.json":17:16)
    %5 = mse(%4, %y) {reduction = "sum"} : f32[] loc("examples/legendre.json":21:11)
    return %5
  }
}
