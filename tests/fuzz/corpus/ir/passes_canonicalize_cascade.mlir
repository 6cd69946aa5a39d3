// passes: canonicalize
// Each pass enables the others: cse merges the two exps so select(c, a, a)
// simplifies; folding makes 0 * 0 + 1 a 1 so the multiply by it goes;
// i64 wrapping folds to 0 so the add of it goes; a chain of casts between
// different dtypes is not merged (only a cast to the same dtype is x); and
// everything dead is removed.
module @m {
  func @f(%x: f32[5] {input}, %c: bool[5] {input}, %n: i64[5] {input}) -> (f32[5], i64[5], f64[5]) {
    %a = exp(%x) : f32[5]
    %b = exp(%x) : f32[5]
    %s = select(%c, %a, %b) : f32[5]
    %z = constant() {value = 0.0} : f32[]
    %zz = mul(%z, %z) : f32[]
    %one = constant() {value = 1} : f32[]
    %u = add(%zz, %one) : f32[]
    %ub = broadcast(%u) {dims = []} : f32[5]
    %r = mul(%ub, %s) : f32[5]
    %big = constant() {value = 9223372036854775807} : i64[]
    %ione = constant() {value = 1} : i64[]
    %wrap = add(%big, %ione) : i64[]
    %min = constant() {value = -9223372036854775808} : i64[]
    %zero = sub(%wrap, %min) : i64[]
    %zb = broadcast(%zero) {dims = []} : i64[5]
    %m = add(%n, %zb) : i64[5]
    %d = cast(%r) : f64[5]
    %back = cast(%d) : f32[5]
    %again = cast(%back) : f64[5]
    return %r, %m, %again
  }
}
