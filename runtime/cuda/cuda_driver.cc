#include "runtime/cuda/cuda_driver.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/shared_library.h"
#include "support/quote.h"

namespace mlc::rt::cuda {

namespace {

Error no_driver(std::string_view library) {
  return make_error("cuda: no NVIDIA driver: " + std::string(library) +
                    " not found (this machine has no GPU, or its driver is not installed)");
}

}  // namespace

std::string CudaDriver::error_text(std::string_view what, CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName && cuGetErrorName(r, &name) != kCudaSuccess) name = nullptr;
  if (cuGetErrorString && cuGetErrorString(r, &text) != kCudaSuccess) text = nullptr;
  std::string s = std::string(what) + " failed: ";
  if (!name) return s + "CUDA error " + std::to_string(r);
  s += name;
  if (text) s += std::string(" (") + text + ")";
  return s;
}

CudaMemcpy2D device_copy_2d(CUdeviceptr dst, int64_t dst_pitch, CUdeviceptr src, int64_t src_pitch, int64_t width,
                            int64_t rows) {
  CudaMemcpy2D c;
  c.srcMemoryType = kMemoryTypeDevice;
  c.srcDevice = src;
  c.srcPitch = static_cast<size_t>(src_pitch);
  c.dstMemoryType = kMemoryTypeDevice;
  c.dstDevice = dst;
  c.dstPitch = static_cast<size_t>(dst_pitch);
  c.WidthInBytes = static_cast<size_t>(width);
  c.Height = static_cast<size_t>(rows);
  return c;
}

std::string cuda_version_name(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

Status check_driver_version(int version) {
  if (version >= kMinDriverVersion) return {};
  return make_error("cuda: the NVIDIA driver supports CUDA " + cuda_version_name(version) + " (" +
                    std::to_string(version) + "); mlc needs CUDA " + cuda_version_name(kMinDriverVersion) + " (" +
                    std::to_string(kMinDriverVersion) + ") or newer: update the driver");
}

Expected<std::unique_ptr<CudaDriver>> load_cuda_driver(const char* library) {
  // Through the dynamic loader only: the driver is installed with the GPU's
  // kernel module, never in a toolkit's directory.
  const std::string_view names[] = {library};
  Expected<SharedLibrary> lib = open_shared_library(names, {});
  if (!lib.ok()) return no_driver(library);
  auto d = std::make_unique<CudaDriver>();
  auto lacks = [&](const char* symbol) {
    return make_error(std::string("cuda: the NVIDIA driver's ") + library + " lacks " + symbol +
                      (d->version ? " (it supports CUDA " + cuda_version_name(d->version) + ")" : std::string()));
  };
  // The version first: an old driver is named as such, not by what it lacks.
  if (!lib->bind(d->cuDriverGetVersion, "cuDriverGetVersion")) return lacks("cuDriverGetVersion");
  if (!lib->bind(d->cuGetErrorName, "cuGetErrorName")) return lacks("cuGetErrorName");
  if (!lib->bind(d->cuGetErrorString, "cuGetErrorString")) return lacks("cuGetErrorString");
  int version = 0;
  MLC_CHECK_OK(d->check(d->cuDriverGetVersion(&version), "cuda: cuDriverGetVersion"));
  d->version = version;
  MLC_CHECK_OK(check_driver_version(version));
#define MLC_CUDA_FIND(member, symbol) \
  if (!lib->bind(d->member, symbol)) return lacks(symbol)
  MLC_CUDA_FIND(cuInit, "cuInit");
  MLC_CUDA_FIND(cuDeviceGetCount, "cuDeviceGetCount");
  MLC_CUDA_FIND(cuDeviceGet, "cuDeviceGet");
  MLC_CUDA_FIND(cuDeviceGetAttribute, "cuDeviceGetAttribute");
  MLC_CUDA_FIND(cuDeviceGetName, "cuDeviceGetName");
  MLC_CUDA_FIND(cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  MLC_CUDA_FIND(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  MLC_CUDA_FIND(cuCtxSetCurrent, "cuCtxSetCurrent");
  MLC_CUDA_FIND(cuMemGetInfo, "cuMemGetInfo_v2");
  MLC_CUDA_FIND(cuModuleLoadData, "cuModuleLoadData");
  MLC_CUDA_FIND(cuModuleUnload, "cuModuleUnload");
  MLC_CUDA_FIND(cuModuleGetFunction, "cuModuleGetFunction");
  MLC_CUDA_FIND(cuLaunchKernel, "cuLaunchKernel");
  MLC_CUDA_FIND(cuMemAlloc, "cuMemAlloc_v2");
  MLC_CUDA_FIND(cuMemFree, "cuMemFree_v2");
  MLC_CUDA_FIND(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  MLC_CUDA_FIND(cuStreamWaitEvent, "cuStreamWaitEvent");
  MLC_CUDA_FIND(cuEventQuery, "cuEventQuery");
  MLC_CUDA_FIND(cuEventRecordWithFlags, "cuEventRecordWithFlags");
  MLC_CUDA_FIND(cuMemcpy2DAsync, "cuMemcpy2DAsync_v2");
  MLC_CUDA_FIND(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  MLC_CUDA_FIND(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
  MLC_CUDA_FIND(cuMemsetD8Async, "cuMemsetD8Async");
  MLC_CUDA_FIND(cuMemsetD32Async, "cuMemsetD32Async");
  MLC_CUDA_FIND(cuMemHostAlloc, "cuMemHostAlloc");
  MLC_CUDA_FIND(cuMemFreeHost, "cuMemFreeHost");
  MLC_CUDA_FIND(cuStreamCreate, "cuStreamCreate");
  MLC_CUDA_FIND(cuStreamDestroy, "cuStreamDestroy_v2");
  MLC_CUDA_FIND(cuStreamSynchronize, "cuStreamSynchronize");
  MLC_CUDA_FIND(cuEventCreate, "cuEventCreate");
  MLC_CUDA_FIND(cuEventDestroy, "cuEventDestroy_v2");
  MLC_CUDA_FIND(cuEventRecord, "cuEventRecord");
  // The unversioned name: cuEventElapsedTime_v2 is CUDA 12.8's (same signature).
  MLC_CUDA_FIND(cuEventElapsedTime, "cuEventElapsedTime");
  MLC_CUDA_FIND(cuStreamBeginCapture, "cuStreamBeginCapture_v2");
  MLC_CUDA_FIND(cuStreamEndCapture, "cuStreamEndCapture");
  MLC_CUDA_FIND(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags");
  MLC_CUDA_FIND(cuGraphLaunch, "cuGraphLaunch");
  MLC_CUDA_FIND(cuGraphExecDestroy, "cuGraphExecDestroy");
  MLC_CUDA_FIND(cuGraphDestroy, "cuGraphDestroy");
#undef MLC_CUDA_FIND
  MLC_CHECK_OK(d->check(d->cuInit(0), "cuda: cuInit"));
  lib->keep_loaded();  // the driver stays loaded for the process's life
  return d;
}

Expected<const CudaDriver*> cuda_driver() {
  // Loaded once; a failure is kept and given to every caller.
  static const Expected<std::unique_ptr<CudaDriver>> loaded = load_cuda_driver("libcuda.so.1");
  if (!loaded.ok()) return loaded.error();
  return static_cast<const CudaDriver*>(loaded.value().get());
}

std::string missing_device_error(int ordinal, int count) {
  std::string s = "cuda:" + std::to_string(ordinal) + ": this machine has ";
  if (count <= 0) return s + "no GPU";
  return s + std::to_string(count) + (count == 1 ? " GPU" : " GPUs");
}

Expected<CudaDevice> open_cuda_device(const CudaDriver& cu, int ordinal) {
  const std::string where = "cuda:" + std::to_string(ordinal) + ": ";
  int count = 0;
  MLC_CHECK_OK(cu.check(cu.cuDeviceGetCount(&count), where + "cuDeviceGetCount"));
  if (ordinal < 0 || ordinal >= count) return make_error(missing_device_error(ordinal, count));
  CudaDevice d;
  d.cu = &cu;
  d.ordinal = ordinal;
  MLC_CHECK_OK(cu.check(cu.cuDeviceGet(&d.device, ordinal), where + "cuDeviceGet"));
  char name[256] = {};
  MLC_CHECK_OK(cu.check(cu.cuDeviceGetName(name, sizeof name - 1, d.device), where + "cuDeviceGetName"));
  d.name = name;
  MLC_CHECK_OK(cu.check(cu.cuDeviceGetAttribute(&d.major, kAttributeComputeCapabilityMajor, d.device),
                        where + "cuDeviceGetAttribute(compute capability major)"));
  MLC_CHECK_OK(cu.check(cu.cuDeviceGetAttribute(&d.minor, kAttributeComputeCapabilityMinor, d.device),
                        where + "cuDeviceGetAttribute(compute capability minor)"));
  size_t total = 0;
  MLC_CHECK_OK(cu.check(cu.cuDeviceTotalMem(&total, d.device), where + "cuDeviceTotalMem"));
  d.total_bytes = static_cast<int64_t>(total);
  MLC_CHECK_OK(cu.check(cu.cuDevicePrimaryCtxRetain(&d.context, d.device), where + "cuDevicePrimaryCtxRetain"));
  return d;
}

Expected<const CudaDevice*> cuda_device(int ordinal) {
  MLC_TRY(const CudaDriver* cu, cuda_driver());
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<const CudaDevice>> opened;  // held for the process's life
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = opened.find(ordinal); it != opened.end()) return it->second.get();
  MLC_TRY(CudaDevice d, open_cuda_device(*cu, ordinal));
  auto held = std::make_unique<const CudaDevice>(std::move(d));
  const CudaDevice* out = held.get();
  opened.emplace(ordinal, std::move(held));
  return out;
}

Expected<int> parse_device_ordinal(const char* value) {
  if (!value || !*value) return 0;
  const std::string_view v(value);
  int n = 0;
  bool ok = v.size() <= 4;
  for (char c : v) {
    ok = ok && c >= '0' && c <= '9';
    if (ok) n = n * 10 + (c - '0');
  }
  if (!ok)
    return make_error("MLC_CUDA_DEVICE is " + squote(v) + ": expected a GPU ordinal (0, 1, ...)");
  return n;
}

Expected<int> cuda_device_ordinal() { return parse_device_ordinal(std::getenv("MLC_CUDA_DEVICE")); }

}  // namespace mlc::rt::cuda
