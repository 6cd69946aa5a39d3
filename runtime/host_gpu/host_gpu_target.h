// The "host-gpu" target (runtime/target.h): the GPU backend's kernels run on
// the CPU through OpenCL (PoCL's pthread device), so that the very kernel text
// a GPU runs (compiler/gpu/kernel_source.h), grid mapping, shared memory and
// barriers included, is executed and checked where there is no GPU.
//
// Contracts:
//  - Code: CodeModule{target "host-gpu", arch "opencl-c"}, each object a
//    complete OpenCL C 1.2 translation unit defining the kernel `symbol`.
//    load() refuses a module for another target or arch (naming both), then
//    builds every object on the process's OpenCL device (runtime/host_gpu/
//    opencl.h), failing with the first object's build log that fails.
//  - Executors: runtime/cpu/cpu_executor.h's, the arena host memory aligned to
//    4096 bytes (a page; PoCL uses it in place), kernels launched by
//    runtime/host_gpu/opencl_launcher.h; GEMMs, copies, collectives and
//    reference kernels run on the host exactly as on "cpu-x86_64".
//  - The arena's slots are aligned to kGpuArenaAlignment (256), as on every
//    GPU target.
//  - Only in builds with OpenCL (CMake found it: MLC_HAVE_OPENCL); without,
//    find_target("host-gpu") is null and nothing here is defined.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "runtime/target.h"

namespace mlc::rt {

// The arch of host-gpu code modules.
inline constexpr std::string_view kOpenClArch = "opencl-c";
// The alignment of a host-gpu executor's arena allocation.
inline constexpr int64_t kHostGpuArenaBaseAlignment = 4096;

const Target& host_gpu_target();

// Argument buffers an executor keeps wrapped beyond those bound: enough for
// the inputs of a few micro-batches that alternate between calls.
inline constexpr size_t kHostGpuSpareArgumentBuffers = 64;

// The process's cl_mems over argument tensors (runtime/host_gpu/
// opencl_launcher.h): created so far, and held now.
struct HostGpuBufferCounts {
  int64_t created = 0;
  int64_t held = 0;
};
HostGpuBufferCounts host_gpu_argument_buffers();

}  // namespace mlc::rt
