// Where a program's compiled functions run: a target of runtime/executable.h
// and, for CUDA, the GPU's architecture and ordinal. `mlc run --device` and
// `mlc compile|ir --target` name one:
//   cpu              this machine's CPU (the default)
//   host-gpu         GPU kernels run on the CPU through OpenCL (the host device)
//   cuda, cuda:N     GPU N (run); its architecture is the GPU's
//   cuda:sm_XX       compile for that architecture (no GPU needed)
#pragma once

#include <string>
#include <string_view>

#include "ir/expected.h"
#include "runtime/device_executor.h"
#include "runtime/device_tensors.h"
#include "runtime/executable.h"

namespace mlc {

struct Device {
  std::string target{rt::kCpuTarget};
  std::string arch;  // cuda: "sm_90"; empty: the GPU's
  int ordinal = 0;   // cuda: which GPU
  // How its executors run (`mlc run --no-graph`, `--allow-tf32`).
  rt::ExecutorOptions executor;
  // GPU targets: GEMMs take cuBLASLt epilogues where fusion finds them
  // (`mlc run --no-gemm-epilogues`: not; compiler/lower.h).
  bool gemm_epilogues = true;
  // A training run keeps its parameters and optimizer state in the device's
  // memory between steps where the target has its own (runtime/
  // device_tensors.h; cuda, host-gpu). With this, a cpu run keeps them in a
  // second copy of host memory all the same (tests check the driver's syncs
  // on the CPU so).
  bool shadow_host_tensors = false;
  bool is_cpu() const { return target == rt::kCpuTarget; }
  // "cpu", "host-gpu", "cuda:0", "cuda:sm_90".
  std::string str() const;
};

// `text` as `--device` (cuda:N) or, with `arch_allowed`, as `--target`
// (cuda:sm_XX); the Error names the flag, what it got and what it takes.
Expected<Device> parse_device(std::string_view text, std::string_view flag, bool arch_allowed);

// A cuda device without an arch gets its GPU's (the driver is asked: an
// Error where there is no driver or no such GPU); the cuda executors of this
// process then run on that GPU ($MLC_CUDA_DEVICE, runtime/cuda/cuda_driver.h).
// Other devices are returned as they are.
Expected<Device> resolve_device(Device d);

// Where a training run on `d` keeps its parameters and optimizer state
// between steps (runtime/device_tensors.h): null where they stay in the
// host tensors (the CPU without shadow_host_tensors, the interpreter).
Expected<std::unique_ptr<rt::DeviceTensors>> make_device_tensors(const Device& d);

}  // namespace mlc
