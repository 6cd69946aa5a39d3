// Runs an Executable (runtime/executable.h) on its target (runtime/target.h):
// the handle callers hold, the same for every target.
//
// Contracts:
//  - `create` verifies the executable first (runtime/verify_executable.h; its
//    Error "function 'NAME': FIELD: WHAT"), then refuses an arena larger than
//    the memory available (/proc/meminfo's MemAvailable) before allocating it,
//    loads its code (runtime/target.h load_code: once per code module and
//    process) and makes its target's executor (runtime/device_executor.h),
//    which allocates the arena, exactly Executable::arena_bytes rounded up to
//    the target's alignment, once.
//  - `run` takes one tensor per argument, of the declared types (checked, with
//    the interpreter's messages). Arguments that a result updates are written
//    in place; the others are only read. The tensors must stay valid for the
//    whole call and must not overlap. `run` allocates nothing.
//  - After `run`, result(k) is a view of result k: the updated argument's
//    tensor, or arena bytes, valid until the next `run`.
//  - A failing instruction (an out-of-range gather index, ...) stops the run
//    with an Error located at the op it came from (a collective's, from the
//    communicator, names the op and its location in its tag); updated
//    arguments may then hold partial values.
//  - An Executor is not thread-safe (it owns its arena); create one per thread.
//  - Profiling (enable_profiling) times every instruction of every later run
//    and adds it to profile(); a profiled run allocates nothing either.
//  - With DeviceTensors (set_device_tensors; runtime/device_tensors.h) the
//    arguments whose tensors it keeps run on their device copies: the cuda
//    executor's natively, any other target's on host copies that this class
//    substitutes for the caller's tensors (the host device's way of behaving
//    as a GPU does, and the tests' way of checking a driver's syncs on the
//    CPU). result(k) of an updated kept argument is then its device copy's
//    view on a host target, and the caller's (stale) tensor on cuda: read it
//    after DeviceTensors::to_host.
#pragma once

#include <memory>
#include <span>

#include "ir/expected.h"
#include "runtime/comm/communicator.h"
#include "runtime/device_executor.h"
#include "runtime/device_tensors.h"
#include "runtime/executable.h"
#include "runtime/tensor.h"

namespace mlc::rt {

class Executor {
 public:
  static Expected<Executor> create(std::shared_ptr<const Executable> exe, const ExecutorOptions& options = {});

  Status run(std::span<Tensor* const> args);
  // run in two halves (runtime/device_executor.h): start returns once the
  // arguments' bytes are taken and the run is under way (on the CPU and the
  // host device: done), so that the caller can refill its input tensors
  // while a GPU runs; finish waits for it. run = start + finish.
  Status start(std::span<Tensor* const> args);
  Status finish();
  // This device's communicator, for a sharded program's collective
  // instructions (runtime/collective_run.h). Not owned.
  void set_world(World* world) { impl_->set_world(world); }
  // The device copies its arguments' tensors may have (not owned; null:
  // none). Set before the first run; an Error where `tensors` live on a
  // device other than this executor's.
  Status set_device_tensors(DeviceTensors* tensors);

  const Tensor& result(size_t k) const { return impl_->result(k); }
  size_t num_results() const { return exe_->results.size(); }
  int64_t arena_bytes() const { return exe_->arena_bytes; }
  const Executable& executable() const { return *exe_; }
  const std::shared_ptr<const Executable>& executable_ptr() const { return exe_; }

  // Times every instruction of the runs from now on (and clears what was
  // timed before). profile() is null until then.
  void enable_profiling() { impl_->enable_profiling(); }
  const ExecutionProfile* profile() const { return impl_->profile(); }

 private:
  // Runs impl_ with the kept arguments on their host copies.
  Status run_on_host_copies(std::span<Tensor* const> args);

  std::shared_ptr<const Executable> exe_;
  std::unique_ptr<DeviceExecutor> impl_;
  DeviceTensors* tensors_ = nullptr;
  bool tensors_native_ = false;         // impl_ runs on them itself
  std::vector<int> updated_args_;       // the arguments a result updates
  std::vector<Tensor> copy_views_;      // per argument: a view of its host copy
  std::vector<Tensor*> run_args_;       // per argument: the tensor impl_ runs on
};

}  // namespace mlc::rt
