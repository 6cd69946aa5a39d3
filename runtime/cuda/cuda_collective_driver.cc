#include "runtime/cuda/cuda_collective_driver.h"

#include <dlfcn.h>

#include <string>

namespace mlc::rt::cuda {

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

Expected<std::unique_ptr<CudaCollectiveDriver>> load_cuda_collective_driver(const char* library) {
  // The driver's own handle (already open where cuda_driver() succeeded); never closed.
  void* lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return make_error(std::string("cuda: no NVIDIA driver: ") + library +
                      " not found (this machine has no GPU, or its driver is not installed)");
  auto d = std::make_unique<CudaCollectiveDriver>();
#define MLC_CUDA_FIND(member, symbol)                                                  \
  d->member = reinterpret_cast<decltype(d->member)>(dlsym(lib, symbol));               \
  if (!d->member)                                                                      \
  return make_error(std::string("cuda: the NVIDIA driver's ") + library + " lacks " + symbol)
  MLC_CUDA_FIND(cuStreamWaitEvent, "cuStreamWaitEvent");
  MLC_CUDA_FIND(cuEventQuery, "cuEventQuery");
  MLC_CUDA_FIND(cuEventRecordWithFlags, "cuEventRecordWithFlags");
  MLC_CUDA_FIND(cuMemcpy2DAsync, "cuMemcpy2DAsync_v2");
#undef MLC_CUDA_FIND
  return d;
}

Expected<const CudaCollectiveDriver*> cuda_collective_driver() {
  static const Expected<std::unique_ptr<CudaCollectiveDriver>> loaded = []() -> Expected<std::unique_ptr<CudaCollectiveDriver>> {
    MLC_CHECK_OK(cuda_driver());  // the driver's own errors first
    return load_cuda_collective_driver("libcuda.so.1");
  }();
  if (!loaded.ok()) return loaded.error();
  return static_cast<const CudaCollectiveDriver*>(loaded.value().get());
}

}  // namespace mlc::rt::cuda
