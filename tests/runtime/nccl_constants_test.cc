// Every constant, type size and layout runtime/cuda/nccl.h and
// cuda_driver.h declare for themselves (they build without NCCL
// and the CUDA toolkit) against nccl.h and cuda.h, where the build found them
// (tests/CMakeLists.txt defines MLC_NCCL_HEADERS and adds their directories
// for this file alone). The checks are static_asserts: a wrong value breaks
// the build; the test says whether they were compiled.
//
// runtime/cuda's headers come first: cuda.h defines macros (cuMemcpy2DAsync
// -> cuMemcpy2DAsync_v2, ...) that would rename the entry-point tables'
// members.
#include "runtime/cuda/nccl.h"
#include "runtime/cuda/cuda_driver.h"

#include <gtest/gtest.h>

#include <cstddef>

#ifdef MLC_NCCL_HEADERS
#include <cuda.h>
#include <nccl.h>

namespace mlc::rt::cuda {
namespace {

static_assert(kNcclUniqueIdBytes == NCCL_UNIQUE_ID_BYTES);
static_assert(sizeof(ncclUniqueId) == sizeof(::ncclUniqueId));
static_assert(sizeof(ncclComm_t) == sizeof(::ncclComm_t));
static_assert(sizeof(ncclResult_t) == sizeof(::ncclResult_t) && sizeof(ncclRedOp_t) == sizeof(::ncclRedOp_t) &&
              sizeof(ncclDataType_t) == sizeof(::ncclDataType_t));

static_assert(kNcclSuccess == ::ncclSuccess && kNcclUnhandledCudaError == ::ncclUnhandledCudaError &&
              kNcclSystemError == ::ncclSystemError && kNcclInternalError == ::ncclInternalError &&
              kNcclInvalidArgument == ::ncclInvalidArgument && kNcclInvalidUsage == ::ncclInvalidUsage &&
              kNcclRemoteError == ::ncclRemoteError && kNcclInProgress == ::ncclInProgress);
static_assert(::ncclNumResults == 8, "nccl_result_name names results 0 to 7");
static_assert(kNcclSum == ::ncclSum && kNcclMax == ::ncclMax);
static_assert(kNcclUint8 == ::ncclUint8 && kNcclInt32 == ::ncclInt32 && kNcclInt64 == ::ncclInt64 &&
              kNcclFloat16 == ::ncclFloat16 && kNcclFloat32 == ::ncclFloat32 && kNcclFloat64 == ::ncclFloat64 &&
              kNcclBfloat16 == ::ncclBfloat16);

// NcclConfig: ncclConfig_t's first fields, NCCL_CONFIG_INITIALIZER's values.
static_assert(kNcclConfigUndefInt == NCCL_CONFIG_UNDEF_INT);
static_assert(sizeof(NcclConfig) <= sizeof(::ncclConfig_t));
static_assert(offsetof(NcclConfig, size) == offsetof(::ncclConfig_t, size) &&
              offsetof(NcclConfig, magic) == offsetof(::ncclConfig_t, magic) &&
              offsetof(NcclConfig, version) == offsetof(::ncclConfig_t, version) &&
              offsetof(NcclConfig, blocking) == offsetof(::ncclConfig_t, blocking) &&
              offsetof(NcclConfig, cgaClusterSize) == offsetof(::ncclConfig_t, cgaClusterSize) &&
              offsetof(NcclConfig, minCTAs) == offsetof(::ncclConfig_t, minCTAs) &&
              offsetof(NcclConfig, maxCTAs) == offsetof(::ncclConfig_t, maxCTAs) &&
              offsetof(NcclConfig, netName) == offsetof(::ncclConfig_t, netName));
// The fields NCCL 2.17 has end at netName: what `version` says.
static_assert(sizeof(NcclConfig) == offsetof(::ncclConfig_t, splitShare));
constexpr ::ncclConfig_t kInitializer = NCCL_CONFIG_INITIALIZER;
static_assert(NcclConfig{}.magic == kInitializer.magic);
static_assert(NcclConfig{}.version == NCCL_VERSION(2, 17, 0));
static_assert(NcclConfig{}.blocking == kInitializer.blocking && NcclConfig{}.minCTAs == kInitializer.minCTAs);
static_assert(kMinNcclVersion == NCCL_VERSION(2, 18, 0));
static_assert(NCCL_VERSION_CODE >= kMinNcclVersion, "the installed nccl.h is older than what mlc needs");

// The collectives' driver entry points.
static_assert(kCudaErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(kEventRecordDefault == CU_EVENT_RECORD_DEFAULT && kEventRecordExternal == CU_EVENT_RECORD_EXTERNAL);
static_assert(kEventWaitDefault == CU_EVENT_WAIT_DEFAULT);
static_assert(kMemoryTypeDevice == CU_MEMORYTYPE_DEVICE);
static_assert(sizeof(int) == sizeof(::CUmemorytype));
static_assert(sizeof(CudaMemcpy2D) == sizeof(::CUDA_MEMCPY2D));
static_assert(offsetof(CudaMemcpy2D, srcXInBytes) == offsetof(::CUDA_MEMCPY2D, srcXInBytes) &&
              offsetof(CudaMemcpy2D, srcY) == offsetof(::CUDA_MEMCPY2D, srcY) &&
              offsetof(CudaMemcpy2D, srcMemoryType) == offsetof(::CUDA_MEMCPY2D, srcMemoryType) &&
              offsetof(CudaMemcpy2D, srcHost) == offsetof(::CUDA_MEMCPY2D, srcHost) &&
              offsetof(CudaMemcpy2D, srcDevice) == offsetof(::CUDA_MEMCPY2D, srcDevice) &&
              offsetof(CudaMemcpy2D, srcArray) == offsetof(::CUDA_MEMCPY2D, srcArray) &&
              offsetof(CudaMemcpy2D, srcPitch) == offsetof(::CUDA_MEMCPY2D, srcPitch) &&
              offsetof(CudaMemcpy2D, dstXInBytes) == offsetof(::CUDA_MEMCPY2D, dstXInBytes) &&
              offsetof(CudaMemcpy2D, dstY) == offsetof(::CUDA_MEMCPY2D, dstY) &&
              offsetof(CudaMemcpy2D, dstMemoryType) == offsetof(::CUDA_MEMCPY2D, dstMemoryType) &&
              offsetof(CudaMemcpy2D, dstHost) == offsetof(::CUDA_MEMCPY2D, dstHost) &&
              offsetof(CudaMemcpy2D, dstDevice) == offsetof(::CUDA_MEMCPY2D, dstDevice) &&
              offsetof(CudaMemcpy2D, dstArray) == offsetof(::CUDA_MEMCPY2D, dstArray) &&
              offsetof(CudaMemcpy2D, dstPitch) == offsetof(::CUDA_MEMCPY2D, dstPitch) &&
              offsetof(CudaMemcpy2D, WidthInBytes) == offsetof(::CUDA_MEMCPY2D, WidthInBytes) &&
              offsetof(CudaMemcpy2D, Height) == offsetof(::CUDA_MEMCPY2D, Height));

}  // namespace
}  // namespace mlc::rt::cuda
#endif

namespace {

TEST(NcclConstants, MatchTheHeaders) {
#ifndef MLC_NCCL_HEADERS
  GTEST_SKIP() << "the build found no nccl.h and cuda.h to check against";
#endif
}

}  // namespace
