module @m {
  func @f(%x: f32[2,2] {input}) -> (f32[2,2], f32[2,2], f32[2,2], f32[1,2], f32[3,2], f64[2,2], f32[3,2,2], f32[2,2]) {
    %0 = constant() {value = 2.0} : f32[2,2]
    %1 = mul(%x, %0) : f32[2,2]
    %2 = constant() {value = 0.0} : f32[]
    %3 = add(%x, %2) : f32[2,2]
    %4 = transpose(%x) {perm = [1, 0]} : f32[2,2]
    %5 = slice(%x) {start = [1, 0], limit = [2, 2], stride = [1, 1]} : f32[1,2]
    %6 = pad(%x) {low = [1, 0], high = [0, 0], value = 0.0} : f32[3,2]
    %7 = cast(%x) : f64[2,2]
    %8 = broadcast(%x) {dims = [1, 2]} : f32[3,2,2]
    %9 = constant() {value = [1.0, 1.0, 1.0, 1.0]} : f32[2,2]
    %10 = mul(%x, %9) : f32[2,2]
    return %1, %3, %4, %5, %6, %7, %8, %10
  }
}
