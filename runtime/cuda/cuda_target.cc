#include "runtime/cuda/cuda_target.h"

#include <algorithm>

#include "runtime/cuda/cuda_code.h"
#include "runtime/cuda/cuda_device_tensors.h"
#include "runtime/cuda/cuda_executor.h"
#include "runtime/cuda/rank_device.h"

namespace mlc::rt {

namespace {

class CudaTarget final : public Target {
 public:
  std::string_view name() const override { return kCudaTarget; }
  int64_t arena_alignment() const override { return kGpuArenaAlignment; }

  Expected<std::shared_ptr<const LoadedCode>> load(const CodeModule& code) const override {
    MLC_CHECK_OK(cuda::check_cuda_module(code));
    MLC_TRY(const cuda::CudaDevice* device, selected_device());
    MLC_TRY(std::shared_ptr<const cuda::CudaCode> loaded, cuda::load_cuda_code(code, *device));
    return std::shared_ptr<const LoadedCode>(std::move(loaded));
  }

  Expected<std::unique_ptr<DeviceExecutor>> create_executor(std::shared_ptr<const Executable> exe,
                                                            std::shared_ptr<const LoadedCode> code,
                                                            const ExecutorOptions& executor_options) const override {
    auto cuda_code = std::static_pointer_cast<const cuda::CudaCode>(std::move(code));
    const cuda::CudaDevice* device = cuda_code ? cuda_code->device : nullptr;
    if (!device) {
      MLC_TRY(device, selected_device());
    }
    cuda::CudaExecutorOptions options;
    options.graph = executor_options.graph;
    options.allow_tf32 = executor_options.allow_tf32;
    if (std::any_of(exe->instructions.begin(), exe->instructions.end(),
                    [](const Instruction& i) { return i.kind == InstrKind::gemm; })) {
      MLC_TRY(options.cublaslt, cuda::cublaslt());
    }
    MLC_TRY(std::unique_ptr<cuda::CudaExecutor> x,
            cuda::CudaExecutor::create(std::move(exe), std::move(cuda_code), *device, options));
    return std::unique_ptr<DeviceExecutor>(std::move(x));
  }

  Expected<std::unique_ptr<DeviceTensors>> make_device_tensors() const override {
    MLC_TRY(const cuda::CudaDevice* device, selected_device());
    return cuda::cuda_device_tensors(*device);
  }

  // The driver's CUDA version and how many GPUs it sees: the driver is
  // opened and initialized, no device is.
  std::string availability() const override {
    Expected<const cuda::CudaDriver*> cu = cuda::cuda_driver();
    if (!cu.ok()) return "driver: none";
    int count = 0;
    if ((*cu)->cuDeviceGetCount(&count) != cuda::kCudaSuccess) count = 0;
    const std::string gpus = count == 0 ? "no GPU" : std::to_string(count) + (count == 1 ? " GPU" : " GPUs");
    return "driver: CUDA " + cuda::cuda_version_name((*cu)->version) + " with " + gpus;
  }

 private:
  // This rank's GPU (runtime/cuda/rank_device.h); the driver's error first where there is none.
  static Expected<const cuda::CudaDevice*> selected_device() {
    MLC_CHECK_OK(cuda::cuda_driver());
    MLC_TRY(int ordinal, cuda::rank_device_ordinal());
    return cuda::cuda_device(ordinal);
  }
};

}  // namespace

const Target& cuda_target() {
  static const CudaTarget target;
  return target;
}

}  // namespace mlc::rt
