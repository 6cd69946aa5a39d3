// The f32 path of a bf16 or f16 gemm instruction, where oneDNN has no kernel
// for the dtype on this CPU (runtime/onednn_gemm.h): the interpreter's dot
// (runtime/kernels/dot_conv.cc), f32 copies of the operands, an f32 OpenBLAS
// product split as blas::dot_part splits it, each result rounded once to
// nearest even.
//
// Contracts:
//  - HalfGemm(d, dtype) sizes its f32 buffers once (the executor creates one
//    per such instruction, so running it allocates nothing).
//  - run(a, b, c, pool) reads a and b of `dtype` and writes c of `dtype`,
//    the product's shares (blas::dot_threads of the pool) on the pool;
//    product(a, b, c, pool) writes the f32 product into c instead, before
//    the rounding (a gemm epilogue's, runtime/gemm_epilogue.h, rounds it).
#pragma once

#include <vector>

#include "ir/dtype.h"
#include "runtime/blas.h"
#include "runtime/thread_pool.h"

namespace mlc::rt {

class HalfGemm {
 public:
  HalfGemm(const blas::DotShape& d, DType dtype);
  void run(const void* a, const void* b, void* c, ThreadPool& pool);
  void product(const void* a, const void* b, float* c, ThreadPool& pool);

 private:
  blas::DotShape d_;
  DType dtype_;
  std::vector<float> a_, b_, c_;
};

}  // namespace mlc::rt
