// passes: cse
module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = neg(%x) : f32[3] meta {scope = "layers.0"}
    %1 = neg(%x) : f32[3] meta {scope = "layers.1"}
    %2 = add(%0, %1) : f32[3] meta {scope = "head"}
    return %2
  }
}
