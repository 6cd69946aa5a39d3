// Code for the GPU targets (runtime/executable.h kHostGpuTarget, kCudaTarget)
// from loop kernels: each distinct kernel (equal kir::signature) scheduled
// (compiler/gpu/gpu_schedule.h), rendered (compiler/gpu/kernel_source.h) and,
// for CUDA, compiled by NVRTC to a cubin for the arch (compiler/gpu/nvrtc.h),
// in parallel, through the kernel cache.
//
// Contracts:
//  - An object's symbol is kir::kernel_symbol(k) (with '_' appended on a
//    64-bit hash collision, as for the CPU); its `source` is the kernel IR as
//    JSON (compiler/kernel_ir_json.h).
//  - host-gpu: the object's bytes are the OpenCL C text (arch "opencl-c").
//    cuda: a cubin for `arch` ("sm_90").
//  - launch[i] is kernel i's launch configuration.
//  - A spill or a register count is not an error here (the code is correct,
//    if slower): usage[] reports them, and the tests check every example's
//    kernels (tests/compiler/nvrtc_kernels_test.cc).
#pragma once

#include <string>
#include <vector>

#include "compiler/gpu/resource_usage.h"
#include "compiler/kernel_cache.h"
#include "compiler/kernel_ir.h"
#include "ir/expected.h"
#include "runtime/executable.h"

namespace mlc::gpu {

struct GpuCompileOptions {
  std::string target{rt::kHostGpuTarget};
  std::string arch;  // cuda: "sm_90"; host-gpu: unused
  const KernelCache* cache = nullptr;
  int threads = 0;  // NVRTC threads; 0: one per core (at most 8)
};

struct GpuCompiled {
  rt::CodeModule code;
  std::vector<int> object_of;          // per kernel: its object
  std::vector<rt::GpuLaunch> launch;   // per kernel
  std::vector<ResourceUsage> usage;    // cuda: per object, ptxas's report (registers, spills, shared memory)
  int cache_hits = 0, compiled = 0;
  double wall_ms = 0;
};

Expected<GpuCompiled> compile_gpu_kernels(const std::vector<kir::Kernel>& kernels, const GpuCompileOptions& options);

// What generates GPU objects, for rt::CodeModule::generator.
std::string gpu_code_generator(const std::string& target);

// Whether this machine can compile for `target`, for `mlc --version`: cuda's
// nvrtc_availability() (compiler/gpu/nvrtc.h); empty for targets whose
// compiler is always here (host-gpu's OpenCL C text, the CPU's LLVM).
std::string gpu_compiler_availability(const std::string& target);

}  // namespace mlc::gpu
