module @m {
  func @f(%x: f32[3] {input}) -> (f32[3], i64[3], i64[3], i64[3], f32[3], i64[2,2], i64[2,2]) {
    %0 = constant() {value = 1.0} : f32[]
    %1 = constant() {value = 1} : f32[]
    %2 = constant() {value = 1.0} : f64[]
    %3 = broadcast(%0) {dims = []} : f32[3]
    %4 = broadcast(%1) {dims = []} : f32[3]
    %5 = add(%3, %3) : f32[3]
    %6 = add(%5, %4) : f32[3]
    %7 = iota() {dim = 0} : i64[3]
    %8 = iota() {dim = 0} : i64[2,2]
    %9 = iota() {dim = 1} : i64[2,2]
    %10 = constant() {value = [4, 5, 6]} : i64[3]
    %11 = constant() {value = [4, 5, 7]} : i64[3]
    %12 = cast(%2) : f32[]
    %13 = broadcast(%12) {dims = []} : f32[3]
    %14 = sub(%6, %13) : f32[3]
    return %14, %7, %10, %11, %x, %8, %9
  }
}
