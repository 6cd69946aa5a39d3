// The "host-gpu" target's kernel launcher (runtime/cpu/kernel_launcher.h):
// each kernel instruction is one OpenCL NDRange launch of the kernel's text
// (compiler/gpu/kernel_source.h) over the executor's host memory.
//
// Contracts:
//  - Arguments: per kernel buffer (operands, result, more results) a cl_mem
//    and a byte offset (cl_long) into it, then the status word (a __global
//    int). Global size KernelInfo::launch.grid * launch.block, local size
//    launch.block. A two-phase kernel (GpuLaunch::two_phase()) takes the
//    arena's cl_mem and the scratch region's offset before the status word
//    and its phase (cl_long) after it, and is enqueued twice before the
//    queue is finished: phase 0 over launch.grid blocks, then phase 1 over
//    launch.combine_grid (an in-order queue: phase 1 sees phase 0's writes).
//  - Memory: the arena is one cl_mem over the executor's host arena; each
//    argument tensor's data is a cl_mem of its own; both are host memory used
//    in place (ocl::Device::wrap_host), so a buffer pointer is a (cl_mem,
//    offset) pair found by range and nothing is copied. The argument cl_mems
//    are cached by (data, bytes): binding the same tensors again creates
//    none; the cache keeps those of the current binding and up to
//    kHostGpuSpareArgumentBuffers others (runtime/host_gpu/
//    host_gpu_target.h: the most recently bound), releasing the oldest
//    beyond that.
//  - Each launch finishes the queue before it returns, so that the host
//    instructions after it see its results. The status word is 0 before the
//    launch; 1 after it is runtime/index_check.h's error, anything else an
//    internal error naming the kernel.
//  - `create` refuses, naming the kernel and its symbol: a launch of no
//    threads, a block larger than the device's work groups or other than the
//    block the code requires (reqd_work_group_size), a kernel whose argument
//    count is not two per buffer and a status word (and for two phases, two
//    for the scratch and the phase).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/cpu/kernel_launcher.h"
#include "runtime/host_gpu/opencl.h"
#include "runtime/target.h"

namespace mlc::rt {

// A host-gpu code module built: per object, its program and kernel symbol.
struct HostGpuCode final : LoadedCode {
  std::shared_ptr<const ocl::Device> device;
  std::vector<ocl::Program> programs;
  std::vector<std::string> symbols;
};

class OpenClLauncher final : public KernelLauncher {
 public:
  // `exe` is verified; `code` is its code loaded (null without kernels: then
  // no device is needed and nothing is wrapped).
  static Expected<std::unique_ptr<OpenClLauncher>> create(const Executable& exe,
                                                          std::shared_ptr<const HostGpuCode> code);
  ~OpenClLauncher() override;

  Status bind(HostRegion arena, std::span<const HostRegion> args) override;
  Status launch(size_t kernel, const KernelInfo& k, std::byte* const* buffers, size_t n) override;

 private:
  struct Wrapped {
    std::byte* data = nullptr;
    int64_t bytes = 0;
    ocl::Mem mem;
    uint64_t bound_at = 0;  // the bind() that last used it
  };
  struct Bound {
    const std::byte* data = nullptr;
    int64_t bytes = 0;
    cl_mem mem = nullptr;
  };
  OpenClLauncher() = default;
  // The buffer holding [p, p + bytes) and p's offset in it; false when none does.
  bool resolve(const std::byte* p, int64_t bytes, cl_mem& mem, cl_long& offset) const;

  std::shared_ptr<const HostGpuCode> code_;
  std::string function_;
  int64_t scratch_offset_ = 0;  // Executable::scratch_offset: two-phase kernels' scratch in the arena
  ocl::Queue queue_;
  std::vector<ocl::Kernel> kernels_;  // per kernel of the executable
  Bound arena_;
  ocl::Mem arena_mem_;
  std::vector<Wrapped> cache_;  // argument buffers
  std::vector<Bound> bound_;    // per bound argument with bytes
  uint64_t binds_ = 0;
  std::unique_ptr<int> status_;  // the status word, in host memory
  ocl::Mem status_mem_;
  ocl::Mem empty_mem_;  // passed for buffers of no bytes
};

}  // namespace mlc::rt
