module @small {
  func @step(%x: f32[4,8] {input}, %w: f32[3,8] {param}, %b: f32[3] {param}) -> (f32[], f32[3] {updates = %b}) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,3] loc("small.json":3:5)
    %1 = add(%0, %b) : f32[4,3] loc("small.json":3:5)
    %2 = relu(%1) : f32[4,3] loc("small.json":4:5)
    %3 = reduce_sum(%2) {dims = [0, 1], keepdim = false} : f32[] loc("small.json":5:5)
    %4 = reduce_sum(%2) {dims = [0], keepdim = false} : f32[3] loc("small.json":6:5)
    %5 = sub(%b, %4) : f32[3] loc("small.json":7:5)
    return %3, %5
  }
}
