// The "cuda" target's loaded code (runtime/target.h LoadedCode): a code
// module's cubins (runtime/executable.h CodeModule: one per kernel, each
// defining the kernel `symbol`, all for the module's `arch`) loaded into one
// GPU's primary context.
//
// Contracts:
//  - check_cuda_module(code) needs no GPU and refuses, before any driver call:
//    code for another target ("cuda: code for target 'host-gpu', not 'cuda'"),
//    an arch that is no "sm_NN" name, and an object that rt::check_cubin
//    (runtime/cuda/cubin.h) refuses for its symbol and the module's arch: no
//    cubin, a cubin for another arch ("cuda: kernel object 2 ('fusion_2'): a
//    cubin for sm_80, not sm_90"), or one that does not define its kernel
//    ("cuda: kernel object 0 ('k'): the cubin does not define kernel 'k'").
//  - check_device_arch(code, device) refuses kernels compiled for another
//    GPU: "cuda: the artifact's kernels are cubins for sm_80; this GPU (NVIDIA
//    H200) is sm_90: recompile with --target cuda:sm_90". SM numbers must be
//    equal; an arch-specific "sm_90a" module runs on an sm_90 device.
//  - load_cuda_code(code, device) does both checks, then cuModuleLoadData
//    and cuModuleGetFunction for every object; errors name the object and
//    its symbol. The modules stay loaded while the CudaCode lives.
#pragma once

#include <memory>
#include <vector>

#include "ir/expected.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/executable.h"
#include "runtime/target.h"

namespace mlc::rt::cuda {

struct CudaCode final : LoadedCode {
  const CudaDevice* device = nullptr;
  std::vector<CUmodule> modules;      // per object
  std::vector<CUfunction> functions;  // per object: its kernel
  CudaCode() = default;
  CudaCode(const CudaCode&) = delete;
  CudaCode& operator=(const CudaCode&) = delete;
  ~CudaCode() override;
};

Status check_cuda_module(const CodeModule& code);
Status check_device_arch(const CodeModule& code, const CudaDevice& device);
Expected<std::shared_ptr<const CudaCode>> load_cuda_code(const CodeModule& code, const CudaDevice& device);

}  // namespace mlc::rt::cuda
