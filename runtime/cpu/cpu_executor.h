// The executor (runtime/device_executor.h) of the targets whose arena is host
// memory: "cpu-x86_64" and "host-gpu". It allocates the arena once, fills its
// constants, then runs the instruction list once per `run`; kernel
// instructions go to its KernelLauncher (runtime/cpu/kernel_launcher.h: the
// CPU's linked objects on the thread pool, or host-gpu's OpenCL kernels), and
// everything else runs here, the same for both.
//
// Contracts:
//  - The arena is host memory aligned to `arena_base_alignment` (64 on the
//    CPU: a cache line and an AVX-512 vector), zeroed, Executable::arena_bytes
//    rounded up to that alignment.
//  - `run` allocates nothing itself; instructions of kind `reference` run
//    reference kernels, which may.
//  - GEMMs run on the library runtime/cpu/cpu_gemm.h chooses; GEMM setups are
//    made by `create` for the thread count of that time.
//  - Collective instructions run on the World given by set_world
//    (runtime/collective_run.h); without one they fail, naming the op.
//  - Profiling times every instruction with steady_clock; its counters are
//    allocated by enable_profiling, so a profiled run allocates nothing
//    either. Off (the default), run reads one flag and times nothing.
#pragma once

#include <memory>
#include <vector>

#include "runtime/cpu/kernel_launcher.h"
#include "runtime/device_executor.h"
#include "runtime/executable.h"
#include "runtime/gemm_library.h"

namespace mlc::rt {

class CpuExecutor final : public DeviceExecutor {
 public:
  // `exe` is verified; `launcher` runs its kernels.
  static Expected<std::unique_ptr<CpuExecutor>> create(std::shared_ptr<const Executable> exe,
                                                       std::unique_ptr<KernelLauncher> launcher,
                                                       int64_t arena_base_alignment);

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
  // Points every slot of argument buffers at the given tensors' data, and the
  // launcher at them.
  Status bind(std::span<Tensor* const> args);
  Status execute(const Instruction& ins, size_t index);
  Status run_profiled();

  std::shared_ptr<const Executable> exe_;
  std::unique_ptr<KernelLauncher> launcher_;
  std::unique_ptr<std::byte[], ArenaFree> arena_;
  int64_t arena_alloc_bytes_ = 0;
  std::vector<std::byte*> slot_ptr_;                     // per slot, resolved
  std::vector<std::vector<int>> arg_slots_;              // per argument: slots over its buffer
  std::vector<std::vector<std::byte*>> buffers_;         // per instruction: its buffers
  std::vector<std::unique_ptr<GemmKernel>> gemm_;        // per instruction: a gemm's library kernel
  std::vector<std::vector<float>> product_;              // per instruction: a half gemm epilogue's f32 product
  std::vector<std::vector<Tensor>> views_;               // per instruction: reference/collective operands, result
  std::vector<std::vector<const Tensor*>> view_ptrs_;
  std::vector<Tensor> results_;
  std::vector<std::byte*> bound_;  // argument data pointers of the last bind (null: none)
  std::vector<HostRegion> arg_regions_;  // per argument: its bound data, for the launcher
  std::unique_ptr<ExecutionProfile> profile_;  // null: not profiling
  World* world_ = nullptr;
};

}  // namespace mlc::rt
