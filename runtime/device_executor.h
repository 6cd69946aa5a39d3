// What one target's executor does (runtime/target.h creates them; the
// target-independent runtime/executor.h is the handle callers hold).
//
// Contracts:
//  - A DeviceExecutor is made for one verified executable (runtime/
//    verify_executable.h) and its loaded code; it owns the executable's arena,
//    allocated once when it is made, in the target's memory.
//  - run(args) runs the instruction list once; `args` are one tensor per
//    argument, already checked against the declared types by Executor::run.
//    It allocates nothing in steady state.
//  - result(k) is a view of result k, valid until the next run.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "ir/expected.h"
#include "runtime/comm/communicator.h"
#include "runtime/tensor.h"

namespace mlc::rt {

// Wall time of an executor's runs, per instruction. Each instruction's
// interval lies inside its run's, and the intervals of one run do not
// overlap, so the instructions' times add up to at most run_ns.
struct ExecutionProfile {
  int64_t runs = 0;
  int64_t run_ns = 0;          // summed over runs: start of the first instruction to end of the last
  std::vector<int64_t> calls;  // per instruction: times it ran
  std::vector<int64_t> ns;     // per instruction: nanoseconds summed over calls
};

// How an executor runs, beyond its executable. Targets ignore what does not
// apply to them.
struct ExecutorOptions {
  // cuda: the step captured once as a CUDA graph and replayed (false: every
  // instruction launched on every run; `mlc run --no-graph`).
  bool graph = true;
  // cuda: f32 GEMMs may use TF32 tensor cores (`mlc run --allow-tf32`).
  bool allow_tf32 = false;
};

class DeviceTensors;

class DeviceExecutor {
 public:
  virtual ~DeviceExecutor() = default;
  virtual Status run(std::span<Tensor* const> args) = 0;
  // A run in two halves, for targets that run asynchronously (cuda): start
  // returns once the run is under way and its arguments' bytes are taken (the
  // caller may refill the tensors it will not read back), finish waits for
  // it and does the rest; result(k) is valid after finish. A start that fails
  // needs no finish. The default runs all of it in start.
  virtual Status start(std::span<Tensor* const> args) { return run(args); }
  virtual Status finish() { return {}; }
  // This device's communicator, for the executable's collective
  // instructions. Not owned.
  virtual void set_world(World* world) = 0;
  // Whether it runs the arguments `tensors` keep on their device copies
  // itself (runtime/device_tensors.h); rt::Executor does it for the others
  // when their copies are in host memory.
  virtual bool run_on_device_tensors(DeviceTensors* tensors) {
    (void)tensors;
    return false;
  }
  virtual const Tensor& result(size_t k) const = 0;
  // Times every instruction of the runs from now on (and clears what was
  // timed before); profile() is null until then.
  virtual void enable_profiling() = 0;
  virtual const ExecutionProfile* profile() const = 0;
};

}  // namespace mlc::rt
