// One interface for the GEMM libraries a target runs `gemm` instructions on
// (runtime/executable.h GemmParams): OpenBLAS, oneDNN and libxsmm on the CPU
// (runtime/cpu/cpu_gemm.h chooses), cuBLASLt on a GPU.
//
// Contracts:
//  - A GemmKernel is made once per instruction, when its executor is made,
//    for the shape, dtype, alpha and beta of its GemmParams: any setup (oneDNN
//    primitives, libxsmm dispatch) happens then, never in run.
//  - run(part, a, b, c) computes share `part` of [0, parts()) of
//    c = alpha * op(a) op(b) + beta * c over the target's memory; shares are
//    disjoint parts of c and may run at once on different threads. The
//    result depends only on the GemmParams and parts(), never on which thread
//    runs a share.
#pragma once

#include <cstddef>
#include <string_view>

namespace mlc::rt {

class GemmKernel {
 public:
  virtual ~GemmKernel() = default;
  virtual std::string_view library() const = 0;  // "OpenBLAS", "oneDNN", "libxsmm", ...
  virtual int parts() const = 0;
  virtual void run(int part, const std::byte* a, const std::byte* b, std::byte* c) const = 0;
};

}  // namespace mlc::rt
