// The CPU target's executor (runtime/device_executor.h): allocates the arena
// once (64-byte aligned host memory), fills its constants, then runs the
// instruction list once per `run`.
//
// Contracts:
//  - `run` allocates nothing itself; instructions of kind `reference` run
//    reference kernels, which may.
//  - f32 GEMMs run on the library runtime/cpu/cpu_gemm.h chooses; kernels and
//    GEMM setups are made by `create` for the thread count of that time.
//  - Kernels run on the process-wide thread pool (runtime/thread_pool.h), each
//    split into row ranges by kernel_threads; a row is computed by one thread
//    with the same code whatever the split, so results do not depend on the
//    thread count.
//  - Collective instructions run on the World given by set_world
//    (runtime/collective_run.h); without one they fail, naming the op.
//  - Profiling times every instruction with steady_clock; its counters are
//    allocated by enable_profiling, so a profiled run allocates nothing
//    either. Off (the default), run reads one flag and times nothing.
#pragma once

#include <memory>
#include <vector>

#include "runtime/cpu/native_code.h"
#include "runtime/device_executor.h"
#include "runtime/executable.h"
#include "runtime/gemm_library.h"
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

class CpuExecutor final : public DeviceExecutor {
 public:
  // `exe` is verified; `code` is its code loaded (null without kernels).
  static Expected<std::unique_ptr<CpuExecutor>> create(std::shared_ptr<const Executable> exe,
                                                       std::shared_ptr<const CpuCode> code);

  Status run(std::span<Tensor* const> args) override;
  void set_world(World* world) override { world_ = world; }
  const Tensor& result(size_t k) const override { return results_[k]; }
  void enable_profiling() override;
  const ExecutionProfile* profile() const override { return profile_.get(); }

 private:
  struct ArenaFree {
    void operator()(std::byte* p) const;
  };
  CpuExecutor() = default;
  // Points every slot of argument buffers at the given tensors' data.
  void bind(std::span<Tensor* const> args);
  Status execute(const Instruction& ins, size_t index);
  Status run_profiled();

  std::shared_ptr<const Executable> exe_;
  std::shared_ptr<const CpuCode> code_;
  std::vector<CompiledKernelFn> kernel_fn_;  // per kernel
  std::unique_ptr<std::byte[], ArenaFree> arena_;
  std::vector<std::byte*> slot_ptr_;                     // per slot, resolved
  std::vector<std::vector<int>> arg_slots_;              // per argument: slots over its buffer
  std::vector<std::vector<std::byte*>> buffers_;         // per instruction: its buffers
  std::vector<std::unique_ptr<GemmKernel>> gemm_;        // per instruction: a gemm's library kernel
  std::vector<std::vector<Tensor>> views_;               // per instruction: reference/collective operands, result
  std::vector<std::vector<const Tensor*>> view_ptrs_;
  std::vector<Tensor> results_;
  std::vector<std::byte*> bound_;  // argument data pointers of the last bind
  std::unique_ptr<ExecutionProfile> profile_;  // null: not profiling
  World* world_ = nullptr;
};

}  // namespace mlc::rt
