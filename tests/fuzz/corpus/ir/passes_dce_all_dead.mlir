// passes: dce
// A function that returns its argument: every op is dead, including
// constants and iota; a function without results keeps nothing.
module @m {
  func @identity(%x: i64[3] {input}) -> (i64[3]) {
    %0 = iota() {dim = 0} : i64[3]
    %1 = constant() {value = 7} : i64[]
    %2 = broadcast(%1) {dims = []} : i64[3]
    %3 = add(%0, %2) : i64[3]
    return %x
  }

  func @nothing(%y: f32[] {input}) -> () {
    %0 = sqrt(%y) : f32[]
    return
  }
}
