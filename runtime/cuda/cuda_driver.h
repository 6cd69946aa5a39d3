// The NVIDIA driver API (libcuda.so.1), opened at run time with dlopen
// (runtime/shared_library.h), so that mlc builds and runs on machines
// without CUDA: nothing here needs the CUDA toolkit at build time, and
// nothing links libcuda. The few types, constants and entry points the
// "cuda" target uses are declared here, as cuda.h (CUDA 13.0) declares them;
// tests/runtime/cuda_constants_test.cc checks every constant against cuda.h
// where the toolkit is installed.
//
// Contracts:
//  - cuda_driver() is the process's driver, opened once (thread-safe) and
//    never closed: libcuda.so.1 opened, every entry point found (the _v2
//    names where cuda.h maps a name to one), the driver's CUDA version
//    checked (at least kMinDriverVersion) and cuInit(0) called. Errors, each
//    the same on every call:
//      "cuda: no NVIDIA driver: libcuda.so.1 not found (this machine has no
//       GPU, or its driver is not installed)"
//      "cuda: the NVIDIA driver supports CUDA 11.8 (11080); mlc needs CUDA
//       12.0 (12000) or newer: update the driver"
//      "cuda: the NVIDIA driver's libcuda.so.1 lacks cuX (...)"
//      "cuda: cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is
//       detected)"
//  - CudaDriver::error(what, r) is "<what> failed: CUDA_ERROR_X (<the
//    driver's description>)", or "<what> failed: CUDA error N" for a code the
//    driver does not know.
//  - cuda_device(ordinal) is GPU `ordinal` with its primary context retained
//    (the context the CUDA runtime inside cuBLASLt uses too), found once per
//    process and ordinal and held for the process's life. An ordinal the
//    machine lacks is "cuda:3: this machine has 1 GPU". Every thread that
//    calls the driver for a device first makes its context current
//    (CudaDevice::make_current): the driver's current context is per thread.
//  - cuda_device_ordinal() is $MLC_CUDA_DEVICE (default 0).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ir/expected.h"

namespace mlc::rt::cuda {

// cuda.h's types. Handles are opaque pointers; a device pointer is 64 bits.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphExec = struct CUgraphExec_st*;

// cuda.h's constants (values of CUDA 13.0's cuda.h; cuda_constants_test.cc).
inline constexpr CUresult kCudaSuccess = 0;                  // CUDA_SUCCESS
inline constexpr int kAttributeComputeCapabilityMajor = 75;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
inline constexpr int kAttributeComputeCapabilityMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
inline constexpr unsigned kStreamNonBlocking = 0x1;          // CU_STREAM_NON_BLOCKING
inline constexpr int kCaptureModeThreadLocal = 1;            // CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
inline constexpr unsigned kEventDefault = 0x0;               // CU_EVENT_DEFAULT
inline constexpr unsigned kMemHostAllocPortable = 0x01;      // CU_MEMHOSTALLOC_PORTABLE

using CUarray = struct CUarray_st*;

// cuda.h's constants of the collectives' stream ordering and strided copies
// (CUDA 13.0; nccl_constants_test.cc). cuMemcpy2DAsync copies `Height` rows
// of `WidthInBytes` bytes, row r from src + r * srcPitch to dst + r *
// dstPitch; the driver refuses pitches above the device's
// CU_DEVICE_ATTRIBUTE_MAX_PITCH (2^31 - 1 bytes on current GPUs):
// kMaxCopyPitch is what callers stay under, copying row by row above it.
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

// The oldest driver mlc runs on: CUDA 12.0 (cuDriverGetVersion's 1000 *
// major + 10 * minor).
inline constexpr int kMinDriverVersion = 12000;

// The driver's entry points (cuda.h's signatures; the symbol each is looked
// up by is in cuda_driver.cc), and its CUDA version.
struct CudaDriver {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char** name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char** text) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t* bytes, CUdevice device) = nullptr;  // _v2
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext* context, CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuMemGetInfo)(size_t* free, size_t* total) = nullptr;  // _v2
  CUresult (*cuModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction* function, CUmodule module, const char* name) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                             unsigned block_y, unsigned block_z, unsigned shared_bytes, CUstream stream,
                             void** params, void** extra) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr* ptr, size_t bytes) = nullptr;  // _v2
  CUresult (*cuMemFree)(CUdeviceptr ptr) = nullptr;                  // _v2
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void* src, size_t bytes, CUstream stream) = nullptr;  // _v2
  CUresult (*cuMemcpyDtoHAsync)(void* dst, CUdeviceptr src, size_t bytes, CUstream stream) = nullptr;        // _v2
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream) = nullptr;  // _v2
  CUresult (*cuMemsetD8Async)(CUdeviceptr dst, unsigned char value, size_t count, CUstream stream) = nullptr;
  CUresult (*cuMemsetD32Async)(CUdeviceptr dst, unsigned value, size_t count, CUstream stream) = nullptr;
  CUresult (*cuMemHostAlloc)(void** ptr, size_t bytes, unsigned flags) = nullptr;
  CUresult (*cuMemFreeHost)(void* ptr) = nullptr;
  CUresult (*cuStreamCreate)(CUstream* stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;  // _v2
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent* event, unsigned flags) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;  // _v2
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventElapsedTime)(float* ms, CUevent start, CUevent end) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode) = nullptr;  // _v2
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph* graph) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec* exec, CUgraph graph, unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;
  // The collectives' (runtime/cuda/cuda_collectives.h): a second stream
  // ordered by events, events polled, strided copies.
  CUresult (*cuStreamWaitEvent)(CUstream stream, CUevent event, unsigned flags) = nullptr;
  CUresult (*cuEventQuery)(CUevent event) = nullptr;
  CUresult (*cuEventRecordWithFlags)(CUevent event, CUstream stream, unsigned flags) = nullptr;
  CUresult (*cuMemcpy2DAsync)(const CudaMemcpy2D* copy, CUstream stream) = nullptr;  // _v2

  int version = 0;  // cuDriverGetVersion's: 12040 for CUDA 12.4

  // "<what> failed: CUDA_ERROR_X (<description>)".
  std::string error_text(std::string_view what, CUresult r) const;
  Error error(std::string_view what, CUresult r) const { return make_error(error_text(what, r)); }
  // Success, or error(what, r).
  Status check(CUresult r, std::string_view what) const {
    if (r == kCudaSuccess) return {};
    return error(what, r);
  }
};

// A device-to-device CudaMemcpy2D: `rows` rows of `width` bytes.
CudaMemcpy2D device_copy_2d(CUdeviceptr dst, int64_t dst_pitch, CUdeviceptr src, int64_t src_pitch, int64_t width,
                            int64_t rows);

// "12.4" for 12040.
std::string cuda_version_name(int version);
// Success for a driver of kMinDriverVersion or newer, else the "update the
// driver" Error.
Status check_driver_version(int version);

// Opens `library` through the dynamic loader only (runtime/shared_library.h;
// the driver is never in a toolkit's directory) and makes a driver of it, as
// cuda_driver() does for libcuda.so.1: for tests, with a name no library
// has. The library stays loaded once the driver is made, and is closed
// where it is refused.
Expected<std::unique_ptr<CudaDriver>> load_cuda_driver(const char* library);
// The process's driver (libcuda.so.1), loaded on the first call.
Expected<const CudaDriver*> cuda_driver();

struct CudaDevice {
  const CudaDriver* cu = nullptr;
  int ordinal = 0;
  CUdevice device = 0;
  std::string name;  // "NVIDIA H200"
  int major = 0, minor = 0;  // compute capability
  int64_t total_bytes = 0;
  CUcontext context = nullptr;  // the primary context, retained

  std::string arch() const { return "sm_" + std::to_string(major) + std::to_string(minor); }  // "sm_90"
  std::string label() const { return "GPU " + std::to_string(ordinal) + " (" + name + ")"; }  // "GPU 0 (NVIDIA H200)"
  // Makes the device's context the calling thread's current one.
  Status make_current() const { return cu->check(cu->cuCtxSetCurrent(context), "cuCtxSetCurrent"); }
};

// "cuda:3: this machine has 1 GPU" (or "has no GPU", "has 2 GPUs").
std::string missing_device_error(int ordinal, int count);
// GPU `ordinal` of `cu`: its name, compute capability and memory, and its
// primary context retained (never released). Uncached: cuda_device() is the
// process's cache over it.
Expected<CudaDevice> open_cuda_device(const CudaDriver& cu, int ordinal);
// GPU `ordinal` of the process's driver, opened once per process.
Expected<const CudaDevice*> cuda_device(int ordinal);

// The ordinal `value` names ("0", "1", ...; null or empty: 0). An Error names
// MLC_CUDA_DEVICE and the value.
Expected<int> parse_device_ordinal(const char* value);
// parse_device_ordinal($MLC_CUDA_DEVICE).
Expected<int> cuda_device_ordinal();

}  // namespace mlc::rt::cuda
