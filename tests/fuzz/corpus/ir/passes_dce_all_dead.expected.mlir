module @m {
  func @identity(%x: i64[3] {input}) -> (i64[3]) {
    return %x
  }

  func @nothing(%y: f32[] {input}) -> () {
    return
  }
}
