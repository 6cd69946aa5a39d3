module @m {
  func @f(%x: f32[2] {input}) -> (f32[], f32[2], f32[], bool[2], f32[2], i32[], f32[2]) {
    %0 = constant() {value = 1} : f32[]
    %1 = constant() {value = 0.1} : f32[]
    %2 = constant() {value = 0.2} : f32[]
    %3 = constant() {value = 2.7182817} : f32[]
    %4 = constant() {value = 0.3} : f32[]
    %5 = constant() {value = 0.3} : f32[2]
    %6 = constant() {value = 1.0} : f32[2]
    %7 = constant() {value = 0.36787945} : f32[]
    %8 = constant() {value = 1} : bool[2]
    %9 = constant() {value = 0.3} : f32[2]
    %10 = constant() {value = 2} : i32[]
    %11 = add(%x, %6) : f32[2]
    return %3, %5, %7, %8, %9, %10, %11
  }
}
