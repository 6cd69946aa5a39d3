module @m {
  func @f(%x: f32[5] {input}, %c: bool[5] {input}, %n: i64[5] {input}) -> (f32[5], i64[5], f64[5]) {
    %0 = exp(%x) : f32[5]
    %1 = cast(%0) : f64[5]
    %2 = cast(%1) : f32[5]
    %3 = cast(%2) : f64[5]
    return %0, %n, %3
  }
}
