// The reference interpreter: runs a Function on host tensors with the
// reference kernels (runtime/kernels/kernels.h).
//
// Contracts:
//  - `create` clones the function, fills attribute defaults, re-runs every
//    op's inference (so kernels only see ops they accept: an invalid op is an
//    Error located at the op), decomposes composites into primitives (they
//    have no reference kernel of their own) and plans buffer lifetimes. The
//    caller's Function is not referenced afterwards.
//  - `run` checks the argument count and each argument's type (index 0-based):
//      "argument 2 'conv1.weight': expected f32[16,1,3,3], got f32[16,1,3]"
//    then executes the ops in program order. Each intermediate is freed right
//    after its last use. Arguments are borrowed, never copied, except when an
//    argument is itself a function result.
//  - A kernel failure is returned as an Error located at the op (its loc, which
//    decomposed ops inherit from their composite) and naming it:
//      "model.json:14:9: error: gather: index 70 out of range [0, 64) along axis 0"
//  - `run` is const and keeps no state between calls: one Interpreter may run
//    on several threads at once.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "runtime/comm/communicator.h"
#include "runtime/tensor.h"

namespace mlc::rt {

class Interpreter {
 public:
  static Expected<Interpreter> create(const Function& f);

  // `world`: this device's communicator in a sharded program, which runs its
  // collectives and shard_slice (runtime/collective_run.h); without one they fail.
  Expected<std::vector<Tensor>> run(std::span<const Tensor* const> args, World* world = nullptr) const;
  Expected<std::vector<Tensor>> run(const std::vector<Tensor>& args, World* world = nullptr) const;
  // Runs like `run` (no collectives) up to the first op, in program order,
  // whose result satisfies `found`, and returns that op (of function()), or
  // nullptr if none does. For diagnostics (the first non-finite value).
  Expected<const Op*> find_first(std::span<const Tensor* const> args,
                                 const std::function<bool(const Tensor&)>& found) const;

  // The function being run: the clone, with composites decomposed.
  const Function& function() const { return *f_; }

 private:
  // A buffer slot per value: arguments first (borrowed), then one per op.
  struct Step {
    const Op* op;
    std::vector<int> operands;  // slots
    int result;                 // slot
    std::vector<int> release;   // slots whose last use is this step
  };

  void plan();
  // The shared loop: `after` sees each op's result and returns false to stop
  // (then the results are empty).
  Expected<std::vector<Tensor>> execute(
      std::span<const Tensor* const> args, World* world,
      const std::function<bool(const Op&, const Tensor&)>* after) const;

  std::unique_ptr<Function> f_;
  std::vector<Step> steps_;
  std::vector<int> result_slots_;
  int num_slots_ = 0;
};

}  // namespace mlc::rt
