// The CPU's GEMM libraries behind runtime/gemm_library.h, and which runs a
// given gemm (see bench/results/gemm_libs.md): libxsmm for small f32 products
// where it has a kernel, oneDNN for large f32 ones and for every bf16 and f16
// one (where it has no half kernel on this CPU, runtime/half_gemm.h's f32
// path), else OpenBLAS (and f64 always). Each is split into the shares blas::dot_threads gives for the
// thread count when the kernel is made. A bf16 or f16 gemm with an epilogue
// writes c as the f32 product, before any rounding (runtime/half_gemm.h's
// f32 path): the caller passes an f32 buffer, and the epilogue
// (runtime/gemm_epilogue.h) rounds once.
#pragma once

#include <memory>

#include "ir/expected.h"
#include "runtime/executable.h"
#include "runtime/gemm_library.h"

namespace mlc::rt {

Expected<std::unique_ptr<GemmKernel>> make_cpu_gemm(const GemmParams& p, int threads);

}  // namespace mlc::rt
