module @m {
  func @f(%x: f32[3] {input}, %y: f32[4] {input}