// cuBLASLt (libcublasLt.so.13, else .12), opened at run time with dlopen, as
// the driver is (runtime/cuda/cuda_driver.h): nothing links it, and nothing
// needs the toolkit at build time. The types, constants and entry points the
// "cuda" target's GEMMs use are declared here as cublasLt.h, cublas_api.h
// and library_types.h (CUDA 13.0) declare them; tests/runtime/
// cuda_constants_test.cc checks every value and struct size against those
// headers where the toolkit is installed.
//
// Contracts:
//  - cublaslt() is the process's library, opened once (thread-safe) and never
//    closed: libcublasLt.so.13, else libcublasLt.so.12, each looked up by the
//    dynamic loader (LD_LIBRARY_PATH, ld.so.cache), then in $CUDA_HOME/lib64
//    and $CUDA_PATH/lib64, then in the toolkit's conventional prefix
//    (runtime/shared_library.h, cuda_toolkit_lib_dirs). Errors:
//      "cuda: cuBLASLt not found (install the CUDA toolkit's cuBLAS, or add
//       its lib64 to LD_LIBRARY_PATH): tried libcublasLt.so.13, ..." (every
//       file tried, shared_library.h)
//      "cuda: libcublasLt.so.13 lacks cublasLtX"
//  - CublasLt::error(what, s) is "<what> failed: CUBLAS_STATUS_X (<the
//    library's description>)".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "ir/expected.h"
#include "runtime/cuda/cuda_driver.h"

namespace mlc::rt::cuda {

using cublasStatus_t = int;
using cublasLtHandle_t = struct cublasLtContext*;
using cublasLtMatmulDesc_t = struct cublasLtMatmulDescOpaque_t*;
using cublasLtMatrixLayout_t = struct cublasLtMatrixLayoutOpaque_t*;
using cublasLtMatmulPreference_t = struct cublasLtMatmulPreferenceOpaque_t*;

struct cublasLtMatmulAlgo_t {
  uint64_t data[8];
};
struct cublasLtMatmulHeuristicResult_t {
  cublasLtMatmulAlgo_t algo;
  size_t workspaceSize;
  cublasStatus_t state;
  float wavesCount;
  int reserved[4];
};

// The headers' constants (CUDA 13.0; cuda_constants_test.cc).
inline constexpr cublasStatus_t kCublasSuccess = 0;  // CUBLAS_STATUS_SUCCESS
// cudaDataType_t (library_types.h)
inline constexpr int32_t kCudaR32F = 0;    // CUDA_R_32F
inline constexpr int32_t kCudaR64F = 1;    // CUDA_R_64F
inline constexpr int32_t kCudaR16F = 2;    // CUDA_R_16F
inline constexpr int32_t kCudaR16BF = 14;  // CUDA_R_16BF
// cublasComputeType_t (cublas_api.h)
inline constexpr int32_t kComputeF32 = 68;          // CUBLAS_COMPUTE_32F
inline constexpr int32_t kComputeF32FastTf32 = 77;  // CUBLAS_COMPUTE_32F_FAST_TF32
inline constexpr int32_t kComputeF64 = 70;          // CUBLAS_COMPUTE_64F
// cublasOperation_t (cublas_api.h)
inline constexpr int32_t kOpN = 0;  // CUBLAS_OP_N
inline constexpr int32_t kOpT = 1;  // CUBLAS_OP_T
// cublasLtMatmulDescAttributes_t: int32_t values each
inline constexpr int kMatmulDescTransA = 3;  // CUBLASLT_MATMUL_DESC_TRANSA
inline constexpr int kMatmulDescTransB = 4;  // CUBLASLT_MATMUL_DESC_TRANSB
inline constexpr int kMatmulDescEpilogue = 7;           // CUBLASLT_MATMUL_DESC_EPILOGUE, uint32_t
inline constexpr int kMatmulDescBiasPointer = 8;        // CUBLASLT_MATMUL_DESC_BIAS_POINTER, void*
inline constexpr int kMatmulDescEpilogueAuxPointer = 11;  // CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, void*
inline constexpr int kMatmulDescEpilogueAuxLd = 12;     // CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, int64_t
inline constexpr int kMatmulDescBiasDataType = 26;      // CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, int32_t
// cublasLtEpilogue_t (uint32_t)
inline constexpr uint32_t kEpilogueDefault = 1;      // CUBLASLT_EPILOGUE_DEFAULT
inline constexpr uint32_t kEpilogueRelu = 2;         // CUBLASLT_EPILOGUE_RELU
inline constexpr uint32_t kEpilogueBias = 4;         // CUBLASLT_EPILOGUE_BIAS
inline constexpr uint32_t kEpilogueReluBias = 6;     // CUBLASLT_EPILOGUE_RELU_BIAS
inline constexpr uint32_t kEpilogueGelu = 32;        // CUBLASLT_EPILOGUE_GELU
inline constexpr uint32_t kEpilogueGeluBias = 36;    // CUBLASLT_EPILOGUE_GELU_BIAS
inline constexpr uint32_t kEpilogueGeluAux = 160;    // CUBLASLT_EPILOGUE_GELU_AUX
inline constexpr uint32_t kEpilogueGeluAuxBias = 164;  // CUBLASLT_EPILOGUE_GELU_AUX_BIAS
inline constexpr uint32_t kEpilogueDgelu = 192;      // CUBLASLT_EPILOGUE_DGELU
inline constexpr uint32_t kEpilogueDgeluBgrad = 208;  // CUBLASLT_EPILOGUE_DGELU_BGRAD
inline constexpr uint32_t kEpilogueBgradb = 512;     // CUBLASLT_EPILOGUE_BGRADB
// cublasLtMatrixLayoutAttribute_t
inline constexpr int kLayoutBatchCount = 5;          // CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, int32_t
inline constexpr int kLayoutStridedBatchOffset = 6;  // CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, int64_t
// cublasLtMatmulPreferenceAttributes_t
inline constexpr int kPrefMaxWorkspaceBytes = 1;  // CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, uint64_t
inline constexpr int kPrefMinAlignmentA = 5;      // CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, uint32_t
inline constexpr int kPrefMinAlignmentB = 6;      // ..._B_BYTES
inline constexpr int kPrefMinAlignmentC = 7;      // ..._C_BYTES
inline constexpr int kPrefMinAlignmentD = 8;      // ..._D_BYTES

struct CublasLt {
  cublasStatus_t (*cublasLtCreate)(cublasLtHandle_t* handle) = nullptr;
  cublasStatus_t (*cublasLtDestroy)(cublasLtHandle_t handle) = nullptr;
  const char* (*cublasLtGetStatusName)(cublasStatus_t status) = nullptr;
  const char* (*cublasLtGetStatusString)(cublasStatus_t status) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescCreate)(cublasLtMatmulDesc_t* desc, int32_t compute_type,
                                             int32_t scale_type) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescDestroy)(cublasLtMatmulDesc_t desc) = nullptr;
  cublasStatus_t (*cublasLtMatmulDescSetAttribute)(cublasLtMatmulDesc_t desc, int attribute, const void* value,
                                                   size_t bytes) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutCreate)(cublasLtMatrixLayout_t* layout, int32_t type, uint64_t rows,
                                               uint64_t cols, int64_t ld) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutDestroy)(cublasLtMatrixLayout_t layout) = nullptr;
  cublasStatus_t (*cublasLtMatrixLayoutSetAttribute)(cublasLtMatrixLayout_t layout, int attribute, const void* value,
                                                     size_t bytes) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceCreate)(cublasLtMatmulPreference_t* pref) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceDestroy)(cublasLtMatmulPreference_t pref) = nullptr;
  cublasStatus_t (*cublasLtMatmulPreferenceSetAttribute)(cublasLtMatmulPreference_t pref, int attribute,
                                                         const void* value, size_t bytes) = nullptr;
  cublasStatus_t (*cublasLtMatmulAlgoGetHeuristic)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                                   cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                   cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                   cublasLtMatmulPreference_t pref, int requested,
                                                   cublasLtMatmulHeuristicResult_t* results, int* returned) = nullptr;
  cublasStatus_t (*cublasLtMatmul)(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                                   const void* a, cublasLtMatrixLayout_t a_layout, const void* b,
                                   cublasLtMatrixLayout_t b_layout, const void* beta, const void* c,
                                   cublasLtMatrixLayout_t c_layout, void* d, cublasLtMatrixLayout_t d_layout,
                                   const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                                   CUstream stream) = nullptr;
  size_t (*cublasLtGetVersion)() = nullptr;

  std::string library;  // the name it was opened by: "libcublasLt.so.13"

  // "<what> failed: CUBLAS_STATUS_X (<description>)".
  std::string error_text(std::string_view what, cublasStatus_t s) const;
  Status check(cublasStatus_t s, std::string_view what) const {
    if (s == kCublasSuccess) return {};
    return make_error(error_text(what, s));
  }
};

// Opens the first of `names` that the dynamic loader or a toolkit directory
// (see above) has, and finds cuBLASLt's entry points in it; the library
// stays loaded once they are all found.
Expected<std::unique_ptr<CublasLt>> load_cublaslt(std::span<const std::string_view> names);
// The process's cuBLASLt, loaded on the first call.
Expected<const CublasLt*> cublaslt();

}  // namespace mlc::rt::cuda
