module @m {
  func @step(%x: f32[2] {input}, %w: f32[2] {param}, %w.momentum: f32[2] {state}) -> (f32[], f32[2] {updates = %w}, f32[2] {updates = %w.momentum}) {
    %0 = add(%x, %w) : f32[2]
    %1 = reduce_sum(%0) {dims = [0], keepdim = false} : f32[]
    %2 = sub(%w, %0) : f32[2]
    return %1, %2, %0
  }
}
