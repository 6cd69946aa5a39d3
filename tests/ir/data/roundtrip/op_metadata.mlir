module @m {
  func @f(%x: f32[3] {input}, %w: f32[3] {param}) -> (f32[3]) {
    %0 = mul(%x, %w) : f32[3] meta {scope = "layers.0.fc"} loc("m.json":4:7)
    %1 = neg(%0) : f32[3] meta {scope = "head"}
    %2 = add(%1, %x) : f32[3] meta {scope = "head", ledger = 3}
    %3 = neg(%2) : f32[3] meta {ledger = 0}
    return %3
  }
}
