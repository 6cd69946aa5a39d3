module @edge_literals.v2-test {
  func @nothing() -> () {
    return
  }

  func @constants() -> (f64[2,3], f32[], f32[], f16[], i64[3], i32[0], f32[0], bf16[2], bool[2]) {
    %0 = constant() {value = [1.5, -0.0, 1e-05, 3e+300, 5e-324, 0.1]} : f64[2,3] loc("a \"quoted\" dir\\file.json":1:0)
    %1 = constant() {value = -inf} : f32[] loc("":2147483647:2147483647)
    %2 = constant() {value = inf} : f32[]
    %3 = constant() {value = nan} : f16[] loc("unicode-é.json":3:1)
    %4 = constant() {value = [-9223372036854775808, 9223372036854775807, 0]} : i64[3]
    %5 = constant() {value = []} : i32[0]
    %6 = constant() {value = 7} : f32[0]
    %7 = constant() {value = [1, 2]} : bf16[2]
    %8 = constant() {value = [1, 0]} : bool[2]
    return %0, %1, %2, %3, %4, %5, %6, %7, %8
  }

  func @big_shapes(%a: f32[1099511627776] {input}, %b: i32[0,9223372036854775807] {input}, %c: bool[] {param}) -> (f32[1099511627776], bool[], bool[]) {
    %0 = neg(%a) : f32[1099511627776]
    %1 = reduce_sum(%b) {dims = [1], keepdim = true} : i32[0,1]
    return %0, %c, %c
  }
}
