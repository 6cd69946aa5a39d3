module @m {
  func @f(%x: f32[3] {input}) -> (f32[3]) {
    %0 = neg(%x) : f32[3] meta {scope = "layers.0"}
    %1 = add(%0, %0) : f32[3] meta {scope = "head"}
    return %1
  }
}
