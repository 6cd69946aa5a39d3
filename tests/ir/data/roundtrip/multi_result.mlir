module @multi_result {
  func @qkv(%x: f32[4,12] {input}, %w: f32[12,12] {param}) -> (f32[4,4], f32[4,4]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = false} : f32[4,12]
    %1, %2, %3 = split(%0) {axis = 1, sizes = [4, 4, 4]} : (f32[4,4], f32[4,4], f32[4,4]) meta {scope = "attn"} loc("gpt.json":7:3)
    %4 = mul(%1, %2) : f32[4,4]
    %5, %6 = split(%3) {axis = -1, sizes = [0, 4]} : (f32[4,0], f32[4,4])
    %7 = add(%4, %6) : f32[4,4]
    return %7, %1
  }
}
