#include "runtime/cuda/cuda_device_tensors.h"

#include "runtime/cuda/cuda_executor.h"

namespace mlc::rt::cuda {

namespace {

class CudaDeviceTensors final : public DeviceTensors {
 public:
  explicit CudaDeviceTensors(const CudaDevice& device) : DeviceTensors(std::string(kCudaTarget)), dev_(device) {}
  ~CudaDeviceTensors() override {
    (void)dev_.make_current();
    release_all();
    if (stream_) dev_.cu->cuStreamDestroy(stream_);
  }

 protected:
  Expected<uint64_t> allocate(const Tensor& t) override {
    const CudaDriver& cu = *dev_.cu;
    MLC_CHECK_OK(dev_.make_current());
    const auto bytes = static_cast<size_t>(std::max<int64_t>(t.num_bytes(), 1));
    const std::string what = "cuda: keeping a tensor of " + t.type().str() + " (" +
                             memory_size_name(t.num_bytes()) + ") on " + dev_.label();
    size_t free = 0, total = 0;
    MLC_CHECK_OK(cu.check(cu.cuMemGetInfo(&free, &total), what + ": cuMemGetInfo"));
    if (bytes > free) return make_error(what + ": " + memory_size_name(static_cast<int64_t>(free)) + " free");
    CUdeviceptr p = 0;
    MLC_CHECK_OK(cu.check(cu.cuMemAlloc(&p, bytes), what + ": cuMemAlloc"));
    return static_cast<uint64_t>(p);
  }
  void release(uint64_t address) override { dev_.cu->cuMemFree(static_cast<CUdeviceptr>(address)); }
  Status download(const Copy& c) override {
    const CudaDriver& cu = *dev_.cu;
    MLC_CHECK_OK(dev_.make_current());
    if (c.bytes == 0) return {};
    const std::string what = "cuda: downloading a kept tensor of " + c.host->type().str() + " from " + dev_.label();
    if (!stream_) MLC_CHECK_OK(cu.check(cu.cuStreamCreate(&stream_, kStreamNonBlocking), what + ": cuStreamCreate"));
    MLC_CHECK_OK(cu.check(cu.cuMemcpyDtoHAsync(c.host->bytes(), static_cast<CUdeviceptr>(c.address),
                                               static_cast<size_t>(c.bytes), stream_),
                          what + ": cuMemcpyDtoHAsync"));
    return cu.check(cu.cuStreamSynchronize(stream_), what + ": cuStreamSynchronize");
  }

 private:
  const CudaDevice& dev_;
  CUstream stream_ = nullptr;  // the downloads', made at the first
};

}  // namespace

std::unique_ptr<DeviceTensors> cuda_device_tensors(const CudaDevice& device) {
  return std::make_unique<CudaDeviceTensors>(device);
}

}  // namespace mlc::rt::cuda
