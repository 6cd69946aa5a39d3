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
#include "runtime/executable.h"

namespace mlc {

struct Device {
  std::string target{rt::kCpuTarget};
  std::string arch;  // cuda: "sm_90"; empty: the GPU's
  int ordinal = 0;   // cuda: which GPU
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

}  // namespace mlc
