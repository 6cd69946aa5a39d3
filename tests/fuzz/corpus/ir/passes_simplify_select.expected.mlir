module @m {
  func @f(%x: f32[3] {input}, %y: f32[3] {input}, %s: f32[] {input}) -> (f32[3], f32[3], f32[3], f32[3]) {
    %0 = constant() {value = 1} : bool[]
    %1 = constant() {value = 0} : bool[3]
    %2 = constant() {value = [1, 0, 1]} : bool[3]
    %3 = select(%2, %x, %y) : f32[3]
    %4 = select(%0, %s, %y) : f32[3]
    return %x, %y, %3, %4
  }
}
