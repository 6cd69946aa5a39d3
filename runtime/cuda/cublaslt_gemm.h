// A `gemm` instruction (runtime/executable.h GemmParams) on cuBLASLt
// (runtime/cuda/cublaslt.h), for the "cuda" target's executor: the
// GemmKernel of runtime/gemm_library.h with a stream and device memory.
//
// Row-major to column-major: cuBLASLt computes column-major
// D = alpha op(A) op(B) + beta C, and a row-major matrix X [r, c] is, in the
// same bytes, the column-major X^T [c, r]. So the row-major C = op(A) op(B)
// is the column-major C^T = op(B)^T op(A)^T: cuBLAS's A is the dot's B, its
// B is the dot's A, and its (m, n) are the dot's (n, m). lt_gemm_layout is
// that mapping, a pure function (tests/runtime/cuda_target_test.cc evaluates
// the column-major definition on the CPU against a row-major matmul for every
// transpose, batch and b_shared combination). Batches are strided; a B shared
// by every batch (b_shared) has batch stride 0, except that with A not
// transposed the batches fold into the rows of one product, as on the CPU.
//
// Numerics: f32 in f32 (CUBLAS_COMPUTE_32F: no TF32, unless
// ExecutorOptions::allow_tf32 allows CUBLAS_COMPUTE_32F_FAST_TF32), f64 in
// f64, bf16 and f16 operands with f32 accumulation and scale (alpha, beta in
// f32), rounded once to the result's type.
//
// Contracts:
//  - create() does all setup: descriptors (the epilogue's attributes
//    included: CUBLASLT_MATMUL_DESC_EPILOGUE, BIAS_POINTER and
//    BIAS_DATA_TYPE, EPILOGUE_AUX_POINTER and EPILOGUE_AUX_LD), layouts, and the algorithm
//    cuBLASLt's heuristic chooses for the shape, for the alignments of the
//    addresses the instruction passes (fixed when its executor is made) and
//    for a workspace of at most `workspace_bytes`. An Error names the shape
//    (and the epilogue) where cuBLASLt has no algorithm or a dimension
//    exceeds its int32 range.
//  - run() enqueues c = alpha op(a) op(b) + beta c on `stream` (it does not
//    wait), with those addresses and the workspace. Empty products (m, n or
//    batch 0) enqueue nothing; k = 0 gives beta * c (zeros for beta 0; beta
//    must then be 0 or 1).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "ir/expected.h"
#include "runtime/blas.h"
#include "runtime/cuda/cublaslt.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/executable.h"

namespace mlc::rt::cuda {

// A column-major matrix as stored (before cuBLAS's op): rows x cols, column
// stride ld, `batch` matrices `stride` elements apart.
struct LtMatrix {
  int64_t rows = 0, cols = 0, ld = 1;
  int64_t batch = 1, stride = 0;
  bool operator==(const LtMatrix&) const = default;
};

// The column-major GEMM for a row-major dot: D (m x n) = op(A) (m x k) op(B)
// (k x n) per batch, with C = D.
struct LtGemmLayout {
  int32_t trans_a = kOpN, trans_b = kOpN;  // cuBLAS's op of its A and its B
  int64_t m = 0, n = 0, k = 0, batch = 1;
  LtMatrix a;  // the row-major dot's B operand
  LtMatrix b;  // its A operand
  LtMatrix c;  // its result
  bool empty() const { return m == 0 || n == 0 || batch == 0; }
};

LtGemmLayout lt_gemm_layout(const blas::DotShape& d);

// The device addresses an instruction passes (operands a, b, result c): the
// algorithm is chosen for their alignment. An epilogue's operand (the bias,
// dgelu's aux) is `extra`, its result (the aux, bgradb's bias gradient)
// `more`; cuBLASLt reads both from the descriptor, set once at creation.
struct GemmAddresses {
  CUdeviceptr a = 0, b = 0, c = 0;
  CUdeviceptr extra = 0, more = 0;
};

// An epilogue as cuBLASLt's CUBLASLT_EPILOGUE_* value (none: DEFAULT).
// Through the row-major to column-major mapping (above), D is the dot's
// result transposed: the dot's bias over its n columns is cuBLAS's bias over
// the m rows of D (CUBLASLT_EPILOGUE_BIAS: "length = rows of D"); the aux is
// a matrix of D's layout (ld = cuBLAS's m, the dot's n); BGRADB's gradient
// has one element per column of D (the dot's m rows), each the sum over k
// of cuBLAS's op(B), which is the dot's op(a): the sum of op(a)'s row, as
// GemmEpilogue::bgradb says; DGELU_BGRAD's gradient has one element per row
// of D (the dot's n columns), each the sum of D's row, which is the sum of
// the dot's column over its rows, as GemmEpilogue::dgelu_bgrad says.
uint32_t lt_epilogue(GemmEpilogue e);

class CublasLtGemm {
 public:
  static Expected<std::unique_ptr<CublasLtGemm>> create(const CudaDriver& cu, const CublasLt& lt,
                                                         cublasLtHandle_t handle, const GemmParams& g,
                                                         GemmAddresses at, size_t workspace_bytes, bool allow_tf32);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  std::string_view library() const { return "cuBLASLt"; }
  const LtGemmLayout& layout() const { return layout_; }
  Status run(CUstream stream, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, CUdeviceptr workspace) const;

 private:
  CublasLtGemm(const CudaDriver& cu, const CublasLt& lt) : cu_(cu), lt_(lt) {}

  const CudaDriver& cu_;
  const CublasLt& lt_;
  cublasLtHandle_t handle_ = nullptr;
  GemmParams params_;
  LtGemmLayout layout_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  size_t workspace_bytes_ = 0;
  // alpha and beta as the scale type: f32, or f64 for f64 GEMMs.
  float alpha_f32_ = 1, beta_f32_ = 0;
  double alpha_f64_ = 1, beta_f64_ = 0;
  int64_t result_bytes_ = 0;
};

// "gemm f32 [4 x 64 x 32] x [32 x 16] (trans_b)": a gemm's shape for messages.
std::string gemm_shape_name(const GemmParams& g);

}  // namespace mlc::rt::cuda
