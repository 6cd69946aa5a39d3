#include "runtime/host_gpu/host_gpu_target.h"

#include "runtime/cpu/cpu_executor.h"
#include "runtime/host_gpu/opencl.h"
#include "runtime/host_gpu/opencl_launcher.h"

namespace mlc::rt {

namespace {

class HostGpuTarget final : public Target {
 public:
  std::string_view name() const override { return kHostGpuTarget; }
  int64_t arena_alignment() const override { return kGpuArenaAlignment; }
  Expected<std::shared_ptr<const LoadedCode>> load(const CodeModule& code) const override {
    if (code.target != kHostGpuTarget || code.arch != kOpenClArch)
      return make_error("host-gpu: code for target '" + code.target + "' and arch '" + code.arch + "', expected target '" +
                        std::string(kHostGpuTarget) + "' and arch '" + std::string(kOpenClArch) + "'");
    MLC_TRY(std::shared_ptr<const ocl::Device> device, ocl::opencl_device());
    auto out = std::make_shared<HostGpuCode>();
    out->device = device;
    for (const ObjectFile& o : code.objects) {
      MLC_TRY(ocl::Program program, device->build(o.bytes, o.symbol));
      // Fails here, naming the symbol, where the text defines no such kernel.
      MLC_TRY(ocl::Kernel check, device->make_kernel(program.get(), o.symbol));
      out->programs.push_back(std::move(program));
      out->symbols.push_back(o.symbol);
    }
    return std::shared_ptr<const LoadedCode>(std::move(out));
  }
  Expected<std::unique_ptr<DeviceExecutor>> create_executor(std::shared_ptr<const Executable> exe,
                                                            std::shared_ptr<const LoadedCode> code,
                                                            const ExecutorOptions&) const override {
    MLC_TRY(std::unique_ptr<OpenClLauncher> launcher,
            OpenClLauncher::create(*exe, std::static_pointer_cast<const HostGpuCode>(std::move(code))));
    MLC_TRY(std::unique_ptr<CpuExecutor> x,
            CpuExecutor::create(std::move(exe), std::move(launcher), kHostGpuArenaBaseAlignment));
    return std::unique_ptr<DeviceExecutor>(std::move(x));
  }
  // As a GPU keeps them: a second copy that the executors run on, which the
  // host's tensors see only through DeviceTensors::to_host.
  Expected<std::unique_ptr<DeviceTensors>> make_device_tensors() const override { return host_shadow_tensors(); }
  std::string availability() const override {
    Expected<std::shared_ptr<const ocl::Device>> device = ocl::opencl_device();
    return device.ok() ? "OpenCL: " + (*device)->name() : "no OpenCL device";
  }
};

}  // namespace

const Target& host_gpu_target() {
  static const HostGpuTarget target;
  return target;
}

}  // namespace mlc::rt
