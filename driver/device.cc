#include "driver/device.h"

#include <cctype>
#include <cstdlib>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/target.h"

namespace mlc {

std::string Device::str() const {
  if (target == rt::kCpuTarget) return "cpu";
  if (target == rt::kCudaTarget) return arch.empty() ? "cuda:" + std::to_string(ordinal) : "cuda:" + arch;
  return target;
}

Expected<Device> parse_device(std::string_view text, std::string_view flag, bool arch_allowed) {
  const std::string takes = arch_allowed ? "cpu, host-gpu, cuda or cuda:sm_XX (cuda:sm_80, cuda:sm_90)"
                                         : "cpu, host-gpu, cuda or cuda:N (the GPU's number)";
  auto bad = [&] { return make_error("--" + std::string(flag) + " " + std::string(text) + ": expected " + takes); };
  Device d;
  if (text == "cpu" || text == rt::kCpuTarget) return d;
  if (text == rt::kHostGpuTarget) {
    d.target = rt::kHostGpuTarget;
    return d;
  }
  if (text.substr(0, 4) != "cuda") return bad();
  d.target = rt::kCudaTarget;
  if (text == "cuda") return d;
  if (text[4] != ':' || text.size() == 5) return bad();
  std::string_view rest = text.substr(5);
  auto digits = [](std::string_view s) {
    if (s.empty() || s.size() > 4) return false;
    for (char c : s)
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (arch_allowed && rest.substr(0, 3) == "sm_" && digits(rest.substr(3))) {
    d.arch = std::string(rest);
    return d;
  }
  if (!arch_allowed && digits(rest)) {
    d.ordinal = std::stoi(std::string(rest));
    return d;
  }
  return bad();
}

Expected<Device> resolve_device(Device d) {
  if (d.target != rt::kCudaTarget || !d.arch.empty()) return d;
  MLC_TRY(const rt::cuda::CudaDevice* gpu, rt::cuda::cuda_device(d.ordinal));
  d.arch = gpu->arch();
  setenv("MLC_CUDA_DEVICE", std::to_string(d.ordinal).c_str(), 1);
  return d;
}

Expected<std::unique_ptr<rt::DeviceTensors>> make_device_tensors(const Device& d) {
  if (d.is_cpu()) return d.shadow_host_tensors ? rt::host_shadow_tensors() : std::unique_ptr<rt::DeviceTensors>();
  const rt::Target* target = rt::find_target(d.target);
  if (!target) return make_error("error: this build of mlc has no " + d.target + " target");
  return target->make_device_tensors();
}

}  // namespace mlc
