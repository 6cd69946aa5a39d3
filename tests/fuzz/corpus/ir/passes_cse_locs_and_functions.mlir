// passes: cse
// The kept op keeps its own loc (locs do not make ops different); functions
// are separate scopes, so equal ops in two functions both stay.
module @m {
  func @f(%x: f32[4] {input}) -> (f32[4]) {
    %0 = sigmoid(%x) : f32[4] loc("model.json":3:5)
    %1 = sigmoid(%x) : f32[4] loc("model.json":9:5)
    %2 = mul(%0, %1) : f32[4]
    return %2
  }

  func @g(%x: f32[4] {input}) -> (f32[4]) {
    %0 = sigmoid(%x) : f32[4]
    return %0
  }
}
