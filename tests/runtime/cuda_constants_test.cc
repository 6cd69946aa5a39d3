// Every constant and struct runtime/cuda/ declares for itself (it builds
// without the CUDA toolkit) against the toolkit's own headers, where the
// build found them (tests/CMakeLists.txt defines MLC_CUDA_TOOLKIT_HEADERS and
// adds their directory for this file alone). The checks are static_asserts:
// a wrong value breaks the build; the test says whether they were compiled.
//
// runtime/cuda's headers come first: cuda.h defines macros (cuMemAlloc ->
// cuMemAlloc_v2, ...) that would rename the entry-point tables' members.
#include "runtime/cuda/cublaslt.h"
#include "runtime/cuda/cuda_driver.h"

#include <gtest/gtest.h>

#include <cstddef>

#ifdef MLC_CUDA_TOOLKIT_HEADERS
#include <cublasLt.h>
#include <cuda.h>

namespace mlc::rt::cuda {
namespace {

static_assert(kCudaSuccess == CUDA_SUCCESS);
static_assert(kAttributeComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(kAttributeComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(kCaptureModeThreadLocal == CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
static_assert(kEventDefault == CU_EVENT_DEFAULT);
static_assert(kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(sizeof(CUdeviceptr) == sizeof(::CUdeviceptr));
static_assert(sizeof(CUresult) == sizeof(::CUresult));
static_assert(sizeof(CUdevice) == sizeof(::CUdevice));
static_assert(sizeof(int) == sizeof(::CUdevice_attribute) && sizeof(int) == sizeof(::CUstreamCaptureMode));

static_assert(kCublasSuccess == CUBLAS_STATUS_SUCCESS);
static_assert(kCudaR32F == CUDA_R_32F && kCudaR64F == CUDA_R_64F && kCudaR16F == CUDA_R_16F &&
              kCudaR16BF == CUDA_R_16BF);
static_assert(kComputeF32 == CUBLAS_COMPUTE_32F && kComputeF32FastTf32 == CUBLAS_COMPUTE_32F_FAST_TF32 &&
              kComputeF64 == CUBLAS_COMPUTE_64F);
static_assert(kOpN == CUBLAS_OP_N && kOpT == CUBLAS_OP_T);
static_assert(kMatmulDescTransA == CUBLASLT_MATMUL_DESC_TRANSA && kMatmulDescTransB == CUBLASLT_MATMUL_DESC_TRANSB);
static_assert(kMatmulDescEpilogue == CUBLASLT_MATMUL_DESC_EPILOGUE && kMatmulDescBiasPointer == CUBLASLT_MATMUL_DESC_BIAS_POINTER &&
              kMatmulDescEpilogueAuxPointer == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER &&
              kMatmulDescEpilogueAuxLd == CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD &&
              kMatmulDescBiasDataType == CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE);
static_assert(kEpilogueDefault == CUBLASLT_EPILOGUE_DEFAULT && kEpilogueRelu == CUBLASLT_EPILOGUE_RELU &&
              kEpilogueBias == CUBLASLT_EPILOGUE_BIAS && kEpilogueReluBias == CUBLASLT_EPILOGUE_RELU_BIAS &&
              kEpilogueGelu == CUBLASLT_EPILOGUE_GELU && kEpilogueGeluBias == CUBLASLT_EPILOGUE_GELU_BIAS &&
              kEpilogueGeluAux == CUBLASLT_EPILOGUE_GELU_AUX && kEpilogueGeluAuxBias == CUBLASLT_EPILOGUE_GELU_AUX_BIAS &&
              kEpilogueDgelu == CUBLASLT_EPILOGUE_DGELU && kEpilogueDgeluBgrad == CUBLASLT_EPILOGUE_DGELU_BGRAD &&
              kEpilogueBgradb == CUBLASLT_EPILOGUE_BGRADB);
static_assert(kLayoutBatchCount == CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT &&
              kLayoutStridedBatchOffset == CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET);
static_assert(kPrefMaxWorkspaceBytes == CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES);
static_assert(kPrefMinAlignmentA == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES &&
              kPrefMinAlignmentB == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES &&
              kPrefMinAlignmentC == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES &&
              kPrefMinAlignmentD == CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES);
static_assert(sizeof(cublasStatus_t) == sizeof(::cublasStatus_t));
static_assert(sizeof(int32_t) == sizeof(::cudaDataType_t) && sizeof(int32_t) == sizeof(::cublasComputeType_t));
static_assert(sizeof(cublasLtMatmulAlgo_t) == sizeof(::cublasLtMatmulAlgo_t));
static_assert(sizeof(cublasLtMatmulHeuristicResult_t) == sizeof(::cublasLtMatmulHeuristicResult_t));
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, workspaceSize) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, workspaceSize));
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, state) == offsetof(::cublasLtMatmulHeuristicResult_t, state));
static_assert(offsetof(cublasLtMatmulHeuristicResult_t, wavesCount) ==
              offsetof(::cublasLtMatmulHeuristicResult_t, wavesCount));

}  // namespace
}  // namespace mlc::rt::cuda
#endif

namespace {

TEST(CudaConstants, MatchTheToolkitHeaders) {
#ifndef MLC_CUDA_TOOLKIT_HEADERS
  GTEST_SKIP() << "the build found no CUDA toolkit headers (cuda.h, cublasLt.h) to check against";
#endif
}

}  // namespace
