module @m {
  func @f(%x: f32[4] {input}) -> (f32[4]) {
    %0 = sigmoid(%x) : f32[4] loc("model.json":3:5)
    %1 = mul(%0, %0) : f32[4]
    return %1
  }

  func @g(%x: f32[4] {input}) -> (f32[4]) {
    %0 = sigmoid(%x) : f32[4]
    return %0
  }
}
