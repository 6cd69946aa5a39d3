// Small f32 GEMMs on libxsmm's JIT kernels, which the GEMM measurement
// (bench/results/gemm_libs.md) finds 10-20 % faster than OpenBLAS and oneDNN
// on the products of up to a few million multiply-adds that the examples
// (tiny_gpt's 512x64x64 projections, 32x32x16 attention tiles) and gpt256's
// attention are made of: no packing, no per-call setup.
//
// Contracts:
//  - preferred(d, dtype): f32 dots with at most kMaxWork multiply-adds per
//    product (one batch, after folding a shared B's batch into the rows), k > 0.
//  - create(d, parts) dispatches one kernel per share of the split that
//    blas::dot_part uses, once, when the executor is created. It returns
//    nullopt where libxsmm has no kernel for a share: libxsmm 1.17 takes a
//    transposed A but not a transposed B (row-major), and transposing B first
//    would need memory outside the planned arena. The caller then runs the dot
//    on OpenBLAS.
//  - run(t, ...) computes share t and is safe to call for different t from
//    different threads at once. Results depend only on the shape and `parts`.
#pragma once

#include <optional>
#include <vector>

#include "ir/dtype.h"
#include "runtime/blas.h"

namespace mlc::rt {

class XsmmGemm {
 public:
  static constexpr int64_t kMaxWork = int64_t{1} << 22;
  static bool preferred(const blas::DotShape& d, DType dtype);
  static std::optional<XsmmGemm> create(const blas::DotShape& d, int parts);

  int parts() const { return static_cast<int>(shares_.size()); }
  void run(int t, const float* a, const float* b, float* c) const;

 private:
  struct Share {
    blas::DotShare part;
    void (*kernel)(const float*, const float*, float*, ...) = nullptr;  // null: empty share
  };
  std::vector<Share> shares_;
};

}  // namespace mlc::rt
