// The "cuda" target (runtime/target.h): NVIDIA GPUs through the driver API
// and cuBLASLt, both opened at run time (runtime/cuda/cuda_driver.h,
// cublaslt.h), so that every build has the target and a machine without a
// GPU says so when it loads cuda code. Code modules are cubins for one SM
// architecture (runtime/cuda/cuda_code.h); executors run on one GPU
// (runtime/cuda/cuda_executor.h); the arena's alignment is
// kGpuArenaAlignment.
//
// Contracts:
//  - load(code) refuses code for another target and malformed cubins without
//    touching the driver; then, on the GPU $MLC_CUDA_DEVICE names (default
//    0), refuses cubins for another architecture and loads the rest. Without
//    a driver it is the driver's Error: "cuda: no NVIDIA driver: libcuda.so.1
//    not found (this machine has no GPU, or its driver is not installed)".
//  - create_executor uses the same GPU, and cuBLASLt where the executable has
//    gemms, with ExecutorOptions' graph and allow_tf32.
//  - make_device_tensors keeps tensors in that GPU's memory
//    (runtime/cuda/cuda_device_tensors.h), which its executors run on.
#pragma once

#include "runtime/target.h"

namespace mlc::rt {

const Target& cuda_target();

}  // namespace mlc::rt
