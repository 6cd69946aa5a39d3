module @m {
  func @f(%index: i64[4] {input}, %step: i64[] {step}) -> (f32[4]) {
    %0 = random_uniform(%index, %step) {seed = 0, stream = 4294967296} : f32[4]
    return %0
  }
}
