module @mlp {
  func @loss(%x: f32[8,16] {input}, %y: i64[8] {input}, %w1: f32[16,32] {param}, %b1: f32[32] {param}, %w2: f32[32,10] {param}, %b2: f32[10] {param}) -> (f32[]) {
    %0 = dot(%x, %w1) {transpose_a = false, transpose_b = false} : f32[8,32]
    %1 = broadcast(%b1) {dims = [1]} : f32[8,32]
    %2 = add(%0, %1) : f32[8,32]
    %3 = constant() {value = 0.0} : f32[]
    %4 = max(%2, %3) : f32[8,32]
    %5 = dot(%4, %w2) {transpose_a = false, transpose_b = false} : f32[8,10]
    %6 = broadcast(%b2) {dims = [1]} : f32[8,10]
    %7 = add(%5, %6) : f32[8,10]
    %8 = reduce_max(%7) {dims = [1], keepdim = true} : f32[8,1]
    %9 = sub(%7, %8) : f32[8,10]
    %10 = exp(%9) : f32[8,10]
    %11 = reduce_sum(%10) {dims = [1], keepdim = true} : f32[8,1]
    %12 = log(%11) : f32[8,1]
    %13 = sub(%9, %12) : f32[8,10]
    %14 = iota() {dim = 1} : i64[8,10]
    %15 = reshape(%y) : i64[8,1]
    %16 = compare(%14, %15) {direction = "eq"} : bool[8,10]
    %17 = select(%16, %13, %3) : f32[8,10]
    %18 = reduce_sum(%17) {dims = [1], keepdim = false} : f32[8]
    %19 = neg(%18) : f32[8]
    %20 = reduce_sum(%19) {dims = [0], keepdim = false} : f32[]
    %21 = constant() {value = 8.0} : f32[]
    %22 = div(%20, %21) : f32[]
    return %22
  }
}
