// A function of the model, ready to run on a backend: compiled (an executable
// with native kernels, compiler/lower.h, run by rt::Executor; lowered now, or
// loaded from an artifact) or interp (the reference interpreter, the oracle).
//
// Contract of run(args): one tensor per argument of the signature, of the
// declared types. Results that update an argument (`{updates = %name}`) are
// in that argument's tensor afterwards (written in place by the compiled
// backend; replaced by the interpreter); result(k) is every result's value,
// valid until the next run.
//
// A sharded function (one device's SPMD program, ir/mesh.h) runs its
// collectives on the World given by set_world; replica() gives each rank of a
// mesh its own StepFunction over the same compiled code.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/lower.h"
#include "driver/device.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"

namespace mlc {

enum class Backend { compiled, interp };
// "compiled" or "interp"; nullopt for anything else.
std::optional<Backend> parse_backend(std::string_view name);

// A function's calling convention: its arguments by name, type and kind, and
// its results with the arguments they update.
struct Signature {
  struct Arg {
    std::string name;
    TensorType type;  // local (per-device) type in a sharded function
    ArgKind kind = ArgKind::input;
    Placements placements;  // one per mesh axis; empty when unsharded
  };
  struct Result {
    TensorType type;
    int updates = -1;
  };
  std::string name;
  std::vector<Arg> args;
  std::vector<Result> results;

  static Signature of(const Function& f);
  static Signature of(const rt::Executable& e);
};

class StepFunction {
 public:
  // `file` (the model or artifact, may be empty) prefixes the executor's
  // errors, "FILE: error: ...": an executable it refuses (runtime/
  // verify_executable.h) or an arena larger than the memory available.
  // `device`: where the compiled backend's code runs (driver/device.h).
  static Expected<StepFunction> create(const Function& f, Backend backend, const std::string& file = "",
                                       const Device& device = {});
  // An executable compiled before (an artifact's), kernels linked.
  static Expected<StepFunction> create(std::shared_ptr<const rt::Executable> exe, const std::string& file = "",
                                       const rt::ExecutorOptions& options = {});

  // Another StepFunction running the same code (the executable, or the
  // interpreter's function, shared read-only) with its own buffers, results,
  // world and profile: one per rank when ranks are threads.
  Expected<StepFunction> replica() const;
  // The code alone, to make replicas of: no buffers (the compiled backend's
  // arena is not allocated), and run() is an error.
  StepFunction code() const;
  // This device's communicator for a sharded function's collectives (not
  // owned; null: none, and collectives fail).
  void set_world(rt::World* world);
  // Where the tensors it is given may have device copies (not owned; null:
  // none): rt::Executor::set_device_tensors. The interpreter reads and writes
  // the host tensors, so it refuses any that keep tensors.
  Status set_device_tensors(rt::DeviceTensors* tensors);

  const Signature& signature() const { return signature_; }
  Status run(std::span<rt::Tensor* const> args);
  // run in two halves (rt::Executor::start): after start the caller may
  // refill the input tensors; result() is valid after finish.
  Status start(std::span<rt::Tensor* const> args);
  Status finish();
  const rt::Tensor& result(size_t k) const;
  size_t num_results() const { return signature_.results.size(); }
  // The compiled backend's lowering (memory plan, kernels); null for interp
  // and for executables loaded from an artifact.
  const LoweredFunction* lowered() const { return lowered_.get(); }
  // The executable run by the compiled backend; null for interp.
  std::shared_ptr<const rt::Executable> executable() const;
  // Bytes of the arena this function's executor allocated (the memory plan's
  // arena, compiler/memory_plan.h); 0 for interp and for code().
  int64_t arena_bytes() const { return executor_ ? executor_->arena_bytes() : 0; }
  // Compiled backend: times every instruction of the runs from now on
  // (rt::Executor::enable_profiling); profile() is what was timed, null for
  // interp and before enable_profiling.
  void enable_profiling();
  const rt::ExecutionProfile* profile() const;

 private:
  // An executor for exe_, its errors prefixed with file_.
  Expected<rt::Executor> make_executor() const;

  Signature signature_;
  std::string file_;
  rt::ExecutorOptions options_;
  std::shared_ptr<const rt::Interpreter> interp_;
  rt::World* world_ = nullptr;
  std::optional<rt::Executor> executor_;
  std::shared_ptr<const rt::Executable> exe_;  // the compiled backend's code
  std::shared_ptr<LoweredFunction> lowered_;
  std::vector<rt::Tensor> interp_results_;
  std::vector<const rt::Tensor*> result_ptrs_;
};

}  // namespace mlc
