module @m {
  func @f() -> (i32[], i32[], i64[], i64[], i32[], i64[], i32[], i32[], i32[]) {
    %0 = constant() {value = 1} : i32[]
    %1 = constant() {value = 0} : i32[]
    %2 = constant() {value = 1e+10} : f32[]
    %3 = constant() {value = -2147483648} : i32[]
    %4 = div(%0, %1) : i32[]
    %5 = constant() {value = -3} : i64[]
    %6 = constant() {value = 49} : i64[]
    %7 = constant() {value = -2147483648} : i32[]
    %8 = constant() {value = -2} : i64[]
    %9 = cast(%2) : i32[]
    %10 = constant() {value = -2} : i32[]
    %11 = constant() {value = 2} : i32[]
    return %3, %4, %5, %6, %7, %8, %9, %10, %11
  }
}
