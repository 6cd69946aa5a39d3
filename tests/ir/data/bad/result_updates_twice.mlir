module @m {
  func @step(%x: f32[2] {input}, %w: f32[2] {param}) -> (f32[2] {updates = %w}, f32[2] {updates = %w}) {
    %0 = add(%x, %w) : f32[2]
    %1 = constant() {value = 1.0} : f32[3]
    return %0, %0
  }
}
