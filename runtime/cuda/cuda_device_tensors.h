// The cuda target's DeviceTensors (runtime/device_tensors.h): each kept
// tensor's copy is one cuMemAlloc on the GPU, which the cuda executors of that
// GPU (runtime/cuda/cuda_executor.h) run on; to_host downloads it.
//
// Contracts:
//  - keep() checks the GPU's free memory first: "cuda: keeping a tensor of
//    f32[50304, 768] (147.4 MiB) on GPU 0 (NVIDIA H200): 100.0 MiB free".
//  - Downloads wait for the GPU: the executors finish their runs before
//    returning, so the copies hold the last run's values.
#pragma once

#include <memory>

#include "runtime/cuda/cuda_driver.h"
#include "runtime/device_tensors.h"

namespace mlc::rt::cuda {

std::unique_ptr<DeviceTensors> cuda_device_tensors(const CudaDevice& device);

}  // namespace mlc::rt::cuda
