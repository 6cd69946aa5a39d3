module @m {
  func @f(%x: f32[3] {input}, %y: f32[4] {input}) -> (f32[3]) {
    %0 = constant() {value = 1.5} : i32[3]
    return %0
  }
}
