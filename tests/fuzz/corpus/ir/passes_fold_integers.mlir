// passes: fold-constants,dce
// Integer folding wraps like the kernels (i32 max + 1 is i32 min, abs of the
// minimum is itself), divides truncating toward zero, and leaves a division
// by zero and an out-of-range float->int cast unfolded (they fail at run
// time). A constant's Int value is wrapped into i32 when read.
module @m {
  func @f() -> (i32[], i32[], i64[], i64[], i32[], i64[], i32[], i32[], i32[]) {
    %max = constant() {value = 2147483647} : i32[]
    %one = constant() {value = 1} : i32[]
    %zero = constant() {value = 0} : i32[]
    %m7 = constant() {value = -7} : i64[]
    %two = constant() {value = 2} : i64[]
    %big = constant() {value = 1.0e+10} : f32[]
    %neg = constant() {value = -2.9} : f32[]
    %wrapped = constant() {value = 4294967298} : i32[]
    %0 = add(%max, %one) : i32[]
    %1 = div(%one, %zero) : i32[]
    %2 = div(%m7, %two) : i64[]
    %3 = mul(%m7, %m7) : i64[]
    %min = add(%max, %one) : i32[]
    %4 = abs(%min) : i32[]
    %5 = cast(%neg) : i64[]
    %6 = cast(%big) : i32[]
    %7 = neg(%wrapped) : i32[]
    %8 = max(%wrapped, %zero) : i32[]
    return %0, %1, %2, %3, %4, %5, %6, %7, %8
  }
}
