module @m {
  func @f() -> (f32[2,3], f32[3,2], f32[3], f32[1,4], f32[4,4], f32[2,4], f32[], f32[], f32[], i32[], i64[2], f32[4], f32[3,4]) {
    %0 = constant() {value = 0.1} : f32[2,3]
    %1 = constant() {value = 0.1} : f32[3,2]
    %2 = constant() {value = 0.1} : f32[3]
    %3 = constant() {value = 0.0} : f32[4,4]
    %4 = constant() {value = 0.1} : f32[2,2]
    %5 = pad(%4) {low = [0, 0], high = [0, 2], value = 0.0} : f32[2,4]
    %6 = constant() {value = 1.0} : f32[]
    %7 = constant() {value = -0.0} : f32[3]
    %8 = constant() {value = 0.0} : f32[]
    %9 = constant() {value = 0.1} : f32[]
    %10 = constant() {value = 0} : i32[]
    %11 = constant() {value = 0} : i64[2]
    %12 = concat(%2, %7) {axis = 0} : f32[6]
    %13 = slice(%12) {start = [0], limit = [1], stride = [1]} : f32[1]
    %14 = concat(%13, %13, %13, %13) {axis = 0} : f32[4]
    %15 = reshape(%14) : f32[1,4]
    %16 = constant() {value = 0.1} : f32[3,4]
    return %0, %1, %2, %15, %3, %5, %6, %8, %9, %10, %11, %14, %16
  }
}
