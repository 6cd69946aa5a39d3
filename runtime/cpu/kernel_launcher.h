// How the host-memory executor (runtime/cpu/cpu_executor.h) runs kernel
// instructions: the one part of it that differs between the targets whose
// arena is host memory. "cpu-x86_64" calls linked kernel objects on the
// thread pool (runtime/cpu/native_launcher.h); "host-gpu" launches OpenCL
// kernels over the same host memory (runtime/host_gpu/opencl_launcher.h).
//
// Contracts:
//  - bind(arena, args) is called once the executor has allocated its arena,
//    and again before a run whose argument tensors' data moved: `args` is one
//    region per argument of the executable (its tensor's data and byte size;
//    null data before the first run). Binding the same regions again
//    allocates nothing.
//  - launch(kernel, k, buffers, n) runs k = exe.kernels[kernel] once over its
//    n buffers: the instruction's operands, result and more results, each a
//    host pointer into the arena or into one bound argument's region. It
//    returns when every result is in host memory, where the instructions
//    after it (GEMMs, copies, collectives, kernels) read it; an index out of
//    range gives runtime/index_check.h's error. It allocates nothing.
//  - A launcher belongs to one executor, which calls it from one thread at a
//    time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "ir/expected.h"
#include "runtime/executable.h"

namespace mlc::rt {

// Bytes [data, data + bytes) of host memory.
struct HostRegion {
  std::byte* data = nullptr;
  int64_t bytes = 0;
};

class KernelLauncher {
 public:
  virtual ~KernelLauncher() = default;
  virtual Status bind(HostRegion arena, std::span<const HostRegion> args) = 0;
  virtual Status launch(size_t kernel, const KernelInfo& k, std::byte* const* buffers, size_t n) = 0;
};

}  // namespace mlc::rt
