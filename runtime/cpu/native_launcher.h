// The "cpu-x86_64" target's kernel launcher (runtime/cpu/kernel_launcher.h):
// linked kernel objects (runtime/cpu/native_code.h) called on the process's
// thread pool (runtime/thread_pool.h).
//
// Contracts:
//  - A kernel is split into row ranges by kernel_threads; a row is computed
//    by one thread with the same code whatever the split, so results do not
//    depend on the thread count.
//  - A kernel that returns non-zero (an index out of range) gives
//    runtime/index_check.h's error once every share has finished.
#pragma once

#include <memory>
#include <vector>

#include "runtime/cpu/kernel_launcher.h"
#include "runtime/cpu/native_code.h"
#include "runtime/target.h"

namespace mlc::rt {

// Linked kernel objects: fns[i] is object i's entry point.
struct CpuCode final : LoadedCode {
  std::vector<CompiledKernelFn> fns;
  std::shared_ptr<const void> owner;  // keeps the code mapped
};

// How many threads (of `threads`) run kernel k: a function of k and
// `threads` only, so that a step's results depend only on the thread count.
int kernel_threads(const KernelInfo& k, int threads);

class NativeLauncher final : public KernelLauncher {
 public:
  // `exe` is verified; `code` is its code loaded (null without kernels).
  static Expected<std::unique_ptr<NativeLauncher>> create(const Executable& exe, std::shared_ptr<const CpuCode> code);

  Status bind(HostRegion, std::span<const HostRegion>) override { return {}; }
  Status launch(size_t kernel, const KernelInfo& k, std::byte* const* buffers, size_t n) override;

 private:
  NativeLauncher() = default;
  std::shared_ptr<const CpuCode> code_;
  std::vector<CompiledKernelFn> fn_;  // per kernel
};

}  // namespace mlc::rt
