// Large f32 GEMMs on oneDNN's matmul primitive, which the GEMM measurement
// (bench/results/gemm_libs.md) finds 5-15 % faster than OpenBLAS on the large
// shapes of the GEMM-bound models (whole train steps: big_mlp 410 -> 387 ms,
// gpt256 378 -> 358 ms); smaller GEMMs stay on OpenBLAS, which is as fast
// there and has no per-call setup (tiny_gpt's 512x64x64 GEMMs were 4 % slower
// per step on oneDNN, hence the threshold above them).
//
// Contracts:
//  - preferred(d, dtype): f32 dots of at least kMinWork multiply-adds, and
//    every bf16 and f16 dot (no other library here multiplies them).
//  - bf16 and f16: operands and result in that dtype, products accumulated
//    in f32 and the result rounded once to nearest even (oneDNN's matmul; on
//    AVX512-BF16 and AMX hosts its bf16 kernels use the hardware's dot
//    products), as the interpreter's dot computes them (runtime/kernels/
//    dot_conv.cc: f32 copies, sgemm, one rounding), but with oneDNN's order
//    of each element's sum: results may differ from the interpreter's by
//    that reordering before the rounding. create() fails where oneDNN has no
//    kernel for the dtype on this CPU (the executor then runs the f32 path).
//  - create(d, parts) builds one primitive per share of the split that
//    blas::dot_part uses (by batch, else rows, else columns of C), once, when
//    the executor is created; run(t, ...) computes share t and is safe to call
//    for different t from different threads at once. oneDNN runs each share on
//    the calling thread (its own threads stay at 1), so results depend only on
//    the shape and `parts`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"
#include "ir/expected.h"
#include "runtime/blas.h"

namespace mlc::rt {

class OneDnnGemm {
 public:
  static constexpr int64_t kMinWork = int64_t{1} << 23;
  static bool preferred(const blas::DotShape& d, DType dtype);
  // The least multiply-adds worth a thread of their own (blas::dot_threads)
  // for `dtype` on this CPU: 16x sgemm's where AMX runs bf16 and f16
  // (tiny_gpt's 64x64x512 weight gradients took 17 us on one thread and 29-35
  // us split over two), else sgemm's.
  static int64_t min_thread_work(DType dtype);
  // C = alpha * op(A) op(B) + beta * C (beta = 0: C is only written).
  static Expected<OneDnnGemm> create(const blas::DotShape& d, int parts, double alpha = 1, double beta = 0,
                                     DType dtype = DType::f32);

  int parts() const { return static_cast<int>(shares_.size()); }
  // oneDNN's name of the kernel share t runs ("brg:avx512_core_amx_bf16",
  // "gemm:jit", ...; "" for an empty share): what ONEDNN_VERBOSE prints.
  std::string implementation(int t) const;
  // a, b, c: buffers of the dtype create() was given.
  void run(int t, const void* a, const void* b, void* c) const;

 private:
  struct Share;
  std::vector<std::shared_ptr<Share>> shares_;
};

}  // namespace mlc::rt
