// Runs an Executable (runtime/executable.h): allocates its arena once, fills
// its constants, then runs the instruction list once per `run`.
//
// Contracts:
//  - `create` verifies the executable first (runtime/verify_executable.h; its
//    Error "function 'NAME': FIELD: WHAT"), then refuses an arena larger than
//    the memory available (/proc/meminfo's MemAvailable) before allocating it.
//  - The arena is exactly Executable::arena_bytes (arena_bytes() says so), one
//    allocation made by `create`. `run` allocates nothing itself; instructions
//    of kind `reference` run reference kernels, which may.
//  - `run` takes one tensor per argument, of the declared types (checked, with
//    the interpreter's messages). Arguments that a result updates are written
//    in place; the others are only read. The tensors must stay valid for the
//    whole call and must not overlap.
//  - After `run`, result(k) is a view of result k: the updated argument's
//    tensor, or arena bytes, valid until the next `run`.
//  - A failing instruction (an out-of-range gather index, ...) stops the run
//    with an Error located at the op it came from (a collective's, from the
//    communicator, names the op and its location in its tag); updated
//    arguments may then hold partial values.
//  - f32 GEMMs run on libxsmm where small (runtime/xsmm_gemm.h), on oneDNN
//    where large (runtime/onednn_gemm.h), the others and f64 ones on
//    OpenBLAS; kernels and primitives are made by `create` for the thread
//    count of that time.
//  - Kernels run on the process-wide thread pool (runtime/thread_pool.h), each
//    split into row ranges by kernel_threads; a row is computed by one thread
//    with the same code whatever the split, so results do not depend on the
//    thread count.
//  - An Executor is not thread-safe (it owns its arena); create one per thread.
//  - Profiling (enable_profiling) times every instruction of every later run
//    with steady_clock and adds it to profile(); its counters are allocated by
//    enable_profiling, so a profiled run allocates nothing either. Off (the
//    default), run reads one flag and times nothing.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "ir/expected.h"
#include "runtime/comm/communicator.h"
#include "runtime/executable.h"
#include "runtime/half_gemm.h"
#include "runtime/onednn_gemm.h"
#include "runtime/tensor.h"
#include "runtime/xsmm_gemm.h"

namespace mlc::rt {

// How many threads (of `threads`) run kernel k: a function of k and
// `threads` only, so that a step's results depend only on the thread count.
int kernel_threads(const KernelInfo& k, int threads);

// Wall time of an executor's runs, per instruction. Each instruction's
// interval lies inside its run's, and the intervals of one run do not
// overlap, so the instructions' times add up to at most run_ns.
struct ExecutionProfile {
  int64_t runs = 0;
  int64_t run_ns = 0;         // summed over runs: start of the first instruction to end of the last
  std::vector<int64_t> calls;  // per instruction: times it ran
  std::vector<int64_t> ns;     // per instruction: nanoseconds summed over calls
};

class Executor {
 public:
  static Expected<Executor> create(std::shared_ptr<const Executable> exe);

  Status run(std::span<Tensor* const> args);
  // This device's communicator, for a sharded program's collectives (run as
  // reference instructions through runtime/collective_run.h). Not owned.
  void set_world(World* world) { world_ = world; }

  const Tensor& result(size_t k) const { return results_[k]; }
  size_t num_results() const { return results_.size(); }
  int64_t arena_bytes() const { return arena_bytes_; }
  const Executable& executable() const { return *exe_; }
  const std::shared_ptr<const Executable>& executable_ptr() const { return exe_; }

  // Times every instruction of the runs from now on (and clears what was
  // timed before). profile() is null until then.
  void enable_profiling();
  const ExecutionProfile* profile() const { return profile_.get(); }

 private:
  struct ArenaFree {
    void operator()(std::byte* p) const;
  };
  // Points every slot of argument buffers at the given tensors' data.
  void bind(std::span<Tensor* const> args);
  Status execute(const Instruction& ins, size_t index);
  Status run_profiled();

  std::shared_ptr<const Executable> exe_;
  std::unique_ptr<std::byte[], ArenaFree> arena_;
  int64_t arena_bytes_ = 0;
  std::vector<std::byte*> slot_ptr_;                // per slot, resolved
  std::vector<std::vector<int>> arg_slots_;         // per argument: slots over its buffer
  std::vector<std::vector<std::byte*>> buffers_;    // per instruction: kernel buffer lists
  std::vector<std::optional<OneDnnGemm>> onednn_;   // per instruction: a large gemm's primitives
  std::vector<std::optional<XsmmGemm>> xsmm_;       // per instruction: a small gemm's kernels
  std::vector<std::optional<HalfGemm>> half_gemm_;  // per instruction: a half gemm oneDNN cannot run
  std::vector<std::vector<Tensor>> views_;          // per instruction: reference operands, result
  std::vector<std::vector<const Tensor*>> view_ptrs_;
  std::vector<Tensor> results_;
  std::vector<std::byte*> bound_;  // argument data pointers of the last bind
  std::unique_ptr<ExecutionProfile> profile_;  // null: not profiling
  World* world_ = nullptr;
};

}  // namespace mlc::rt
