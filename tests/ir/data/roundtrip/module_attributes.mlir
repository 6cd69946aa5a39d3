module @m attributes {target = "cpu"} {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = neg(%x) : f32[3]
    return %0
  }
}
