// The runtime functions that the MLIR tests/compiler/emit_mlir_test.cc runs
// (through mlir-cpu-runner-19) needs beyond libc, libm and libgcc:
//  - memrefCopy, which LLVM 19's memref lowering calls for copies between
//    strided memrefs (bufferized tensor.pad and tensor.insert_slice); upstream
//    ships it in libmlir_c_runner_utils, which mlir-19-tools does not install;
//  - __truncdfbf2 (arith.truncf f64 to bf16), a compiler-rt builtin that
//    Debian 12's libgcc lacks: rounds once to nearest even, as arith.truncf
//    means (runtime/half.h's conversion).
#include <cstdint>
#include <cstring>

#include "runtime/half.h"

namespace {
// An unranked memref as the LLVM lowering passes it: the rank and a pointer
// to {allocated, aligned, offset, sizes[rank], strides[rank]}.
struct UnrankedMemRef {
  int64_t rank;
  void* descriptor;
};

struct View {
  char* data;
  const int64_t* sizes;
  const int64_t* strides;
};

View view(const UnrankedMemRef& m, int64_t elem_size) {
  char** d = static_cast<char**>(m.descriptor);
  const int64_t* rest = reinterpret_cast<const int64_t*>(d + 2);  // offset, sizes, strides
  return {d[1] + rest[0] * elem_size, rest + 1, rest + 1 + m.rank};
}
}  // namespace

extern "C" void memrefCopy(int64_t elem_size, UnrankedMemRef* src, UnrankedMemRef* dst) {
  const int64_t rank = src->rank;
  View s = view(*src, elem_size), d = view(*dst, elem_size);
  int64_t n = 1;
  for (int64_t i = 0; i < rank; ++i) n *= s.sizes[i];
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, from = 0, to = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      int64_t at = rest % s.sizes[i];
      rest /= s.sizes[i];
      from += at * s.strides[i];
      to += at * d.strides[i];
    }
    std::memcpy(d.data + to * elem_size, s.data + from * elem_size, static_cast<size_t>(elem_size));
  }
}

// bf16 travels in the low half of an SSE register, as _Float16 does.
extern "C" _Float16 __truncdfbf2(double x) {
  uint16_t bits = mlc::rt::bf16::from_double(x).bits;
  _Float16 out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}
