module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = neg(%x) : f32[3] meta {ledger = -2}
    return %0
  }
}
