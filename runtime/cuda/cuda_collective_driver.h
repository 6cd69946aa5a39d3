// The driver entry points that the cuda executor's collectives use beyond
// CudaDriver's (runtime/cuda/cuda_driver.h): ordering a second stream with
// events, polling events, and strided copies. Opened from libcuda.so.1 like
// the rest (dlopen, never linked), declared as cuda.h (CUDA 13.0) declares
// them; tests/runtime/nccl_constants_test.cc checks each constant and
// CUDA_MEMCPY2D's layout against cuda.h. They are a table of their own only
// so that this part of the target could be added without touching the
// driver's loader; they belong in CudaDriver once the loaders are one.
//
// Contracts:
//  - cuda_collective_driver() is the process's table, found once in the
//    libcuda.so.1 that cuda_driver() opened; it fails as cuda_driver() does
//    where there is no driver, and "cuda: the NVIDIA driver's libcuda.so.1
//    lacks cuX" where an entry point is missing.
//  - cuMemcpy2DAsync copies `Height` rows of `WidthInBytes` bytes, row r from
//    src + r * srcPitch to dst + r * dstPitch (both device memory here); the
//    driver refuses pitches above the device's CU_DEVICE_ATTRIBUTE_MAX_PITCH
//    (2^31 - 1 bytes on current GPUs): kMaxCopyPitch is what callers stay
//    under, copying row by row above it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "ir/expected.h"
#include "runtime/cuda/cuda_driver.h"

namespace mlc::rt::cuda {

using CUarray = struct CUarray_st*;

// cuda.h's constants (CUDA 13.0; nccl_constants_test.cc).
inline constexpr CUresult kCudaErrorNotReady = 600;   // CUDA_ERROR_NOT_READY
inline constexpr unsigned kEventDisableTiming = 0x2;  // CU_EVENT_DISABLE_TIMING
inline constexpr unsigned kEventRecordDefault = 0x0;  // CU_EVENT_RECORD_DEFAULT
inline constexpr unsigned kEventRecordExternal = 0x1;  // CU_EVENT_RECORD_EXTERNAL
inline constexpr unsigned kEventWaitDefault = 0x0;     // CU_EVENT_WAIT_DEFAULT
inline constexpr int kMemoryTypeDevice = 0x2;          // CU_MEMORYTYPE_DEVICE
inline constexpr int64_t kMaxCopyPitch = (int64_t{1} << 31) - 1;

// CUDA_MEMCPY2D (cuda.h's CUDA_MEMCPY2D_v2).
struct CudaMemcpy2D {
  size_t srcXInBytes = 0, srcY = 0;
  int srcMemoryType = 0;  // CUmemorytype
  const void* srcHost = nullptr;
  CUdeviceptr srcDevice = 0;
  CUarray srcArray = nullptr;
  size_t srcPitch = 0;
  size_t dstXInBytes = 0, dstY = 0;
  int dstMemoryType = 0;  // CUmemorytype
  void* dstHost = nullptr;
  CUdeviceptr dstDevice = 0;
  CUarray dstArray = nullptr;
  size_t dstPitch = 0;
  size_t WidthInBytes = 0;
  size_t Height = 0;
};

struct CudaCollectiveDriver {
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags) = nullptr;
  CUresult (*cuEventQuery)(CUevent event) = nullptr;
  CUresult (*cuEventRecordWithFlags)(CUevent event, CUstream stream, unsigned flags) = nullptr;
  CUresult (*cuMemcpy2DAsync)(const CudaMemcpy2D* copy, CUstream stream) = nullptr;  // _v2
};

// A device-to-device CudaMemcpy2D: `rows` rows of `width` bytes.
CudaMemcpy2D device_copy_2d(CUdeviceptr dst, int64_t dst_pitch, CUdeviceptr src, int64_t src_pitch, int64_t width,
                            int64_t rows);

// Finds the table's entry points in `library` (dlopen's name); for tests.
Expected<std::unique_ptr<CudaCollectiveDriver>> load_cuda_collective_driver(const char* library);
// The process's table, from libcuda.so.1, found on the first call.
Expected<const CudaCollectiveDriver*> cuda_collective_driver();

}  // namespace mlc::rt::cuda
