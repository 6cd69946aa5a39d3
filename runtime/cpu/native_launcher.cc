#include "runtime/cpu/native_launcher.h"

#include <algorithm>
#include <atomic>

#include "runtime/index_check.h"
#include "runtime/thread_pool.h"

namespace mlc::rt {

// Threads for a kernel: whole rows each, and at least kMinThreadCost scalar
// evaluations per thread (about 5 us of the scalar gathers of unfold, fold and
// pooling, 1 us of a vectorized elementwise kernel), so that handing a share
// to a worker (about a microsecond; workers spin between a step's kernels)
// stays small against the work it is given.
int kernel_threads(const KernelInfo& k, int threads) {
  constexpr int64_t kMinThreadCost = 8192;
  int64_t by_cost = k.cpu.rows * k.cpu.row_cost / kMinThreadCost;
  int64_t parts = std::min<int64_t>({threads, k.cpu.rows, by_cost});
  return parts < 1 ? 1 : static_cast<int>(parts);
}

Expected<std::unique_ptr<NativeLauncher>> NativeLauncher::create(const Executable& e,
                                                                 std::shared_ptr<const CpuCode> code) {
  std::unique_ptr<NativeLauncher> l(new NativeLauncher);
  l->code_ = std::move(code);
  for (const KernelInfo& k : e.kernels) {
    // verify_executable checked the indices against the module; the loaded
    // code has one entry point per object.
    if (!l->code_ || k.object >= static_cast<int>(l->code_->fns.size()))
      return make_error("function '" + e.function + "': kernel '" + k.name + "' has no loaded code");
    l->fn_.push_back(l->code_->fns[static_cast<size_t>(k.object)]);
  }
  return l;
}

Status NativeLauncher::launch(size_t kernel, const KernelInfo& k, std::byte* const* buffers, size_t) {
  const CompiledKernelFn fn = fn_[kernel];
  ThreadPool& pool = thread_pool();
  int parts = kernel_threads(k, pool.threads());
  // A kernel returns non-zero only for an index out of range (executable.h IndexCheck).
  if (parts <= 1) {
    if (fn(buffers, 0, k.cpu.rows) != 0) return index_out_of_range(k, buffers);
    return {};
  }
  std::atomic<bool> stopped{false};
  auto share = [&](int t) {
    int64_t begin, end;
    split_range(k.cpu.rows, parts, t, begin, end);
    if (fn(buffers, begin, end) != 0) stopped.store(true, std::memory_order_relaxed);
  };
  pool.parallel(parts, share);
  if (stopped.load(std::memory_order_relaxed)) return index_out_of_range(k, buffers);
  return {};
}

}  // namespace mlc::rt
