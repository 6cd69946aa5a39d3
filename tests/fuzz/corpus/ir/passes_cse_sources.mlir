// passes: cse
// Constants and iotas merge when value (as printed) and type agree; an
// equal value written differently (1 vs 1.0), another type or another iota
// dim stays apart.
module @m {
  func @f(%x: f32[3] {input}) -> (f32[3], i64[3], i64[3], i64[3], f32[3], i64[2,2], i64[2,2]) {
    %c1 = constant() {value = 1.0} : f32[]
    %c2 = constant() {value = 1.0} : f32[]
    %c3 = constant() {value = 1} : f32[]
    %c4 = constant() {value = 1.0} : f64[]
    %b1 = broadcast(%c1) {dims = []} : f32[3]
    %b2 = broadcast(%c2) {dims = []} : f32[3]
    %b3 = broadcast(%c3) {dims = []} : f32[3]
    %a = add(%b1, %b2) : f32[3]
    %r = add(%a, %b3) : f32[3]
    %i1 = iota() {dim = 0} : i64[3]
    %i2 = iota() {dim = 0} : i64[3]
    %j0 = iota() {dim = 0} : i64[2,2]
    %j1 = iota() {dim = 1} : i64[2,2]
    %k1 = constant() {value = [4, 5, 6]} : i64[3]
    %k2 = constant() {value = [4, 5, 6]} : i64[3]
    %k3 = constant() {value = [4, 5, 7]} : i64[3]
    %c5 = cast(%c4) : f32[]
    %b5 = broadcast(%c5) {dims = []} : f32[3]
    %s = sub(%r, %b5) : f32[3]
    return %s, %i2, %k2, %k3, %x, %j0, %j1
  }
}
