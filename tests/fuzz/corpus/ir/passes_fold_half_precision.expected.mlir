module @m {
  func @f() -> (f16[], bf16[], f32[], bf16[], f16[]) {
    %0 = constant() {value = 0.2998} : f16[]
    %1 = constant() {value = 1.1} : bf16[]
    %2 = constant() {value = 1.1015625} : f32[]
    %3 = constant() {value = 1e+30} : bf16[]
    %4 = constant() {value = inf} : f16[]
    return %0, %1, %2, %3, %4
  }
}
