// What one rank runs for one optimizer step: an ordered list of calls of a
// Program's functions (driver/program.h), each binding its arguments from the
// named buffers the rank holds. The training loop (driver/train.cc) runs
// whatever schedule build_step_schedule gives it, through a StepRunner
// (driver/step_runner.h); it has no second loop.
//
// Schedules built today, for a step of B examples:
//  - K = 1: [@train_step(B)] — the loss, gradients and update in one call.
//  - K > 1 (gradient accumulation, train.grad_accumulation_steps or
//    --grad-accum): K times [@loss_grad(B/K) on micro-batch j,
//    @accumulate_grads], then [@apply_update]. Micro-batch j is rows
//    [j*B/K, (j+1)*B/K) of the step's batch (the sampler's order is that of
//    K = 1). The accumulated gradient is sum_j g_j * (1/K): what PyTorch's
//    `(loss / K).backward()` over the micro-batches leaves in .grad (exact
//    for K a power of two); the step's loss is the mean of the K losses.
//    Forward buffers (BatchNorm's running statistics) are updated by every
//    micro-batch, as in PyTorch; Dropout reads the same step counter in
//    every micro-batch of a step.
//  - Training in phases (train.phases, driver/program.h): [@<P>.train_step(B)]
//    for each phase P in order; each binds the parameters by name, so a
//    phase reads the parameters earlier phases of the step updated, and all
//    read the step's batch. The step's loss is the sum of the phases' losses
//    (StepSchedule::sum_losses).
//  - A pipelined plan (driver/pipeline_step_schedule.h): each rank's list
//    from its pipeline schedule's actions: its stages' forward and backward
//    calls per micro-batch, with the sends and receives between them, then
//    its stages' updates.
//
// Binding contract (StepRunner::bind): an argument named N of a call is, in
// this order of precedence,
//   1. the result of an earlier call of this step (Call::from_results): that
//      function must not run again between the two calls (a function's
//      results are valid until its next run);
//   2. the schedule's own buffer named N, or named as the call's
//      buffer_args say for N (StepSchedule::buffers), typed as its type says
//      or else as the first argument bound to it;
//   3. the step counter, for a {step} argument;
//   4. for an {input} argument, the model input N of the call's micro-batch;
//   5. the rank's parameter (or forward buffer) or optimizer state named N.
// A result that updates an argument (`{updates = %N}`) updates the buffer
// bound to it, in place: parameters, state and the schedule's buffers stay
// where they are from step to step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "driver/rank.h"

namespace mlc {

struct StepSchedule {
  struct FromResult {
    std::string arg;  // the argument's name
    size_t call = 0, result = 0;
  };
  // A call of a function, a message to or from another rank (the world's
  // point-to-point send and recv, matched in order per pair of ranks), or a
  // sum of a buffer over the ranks of a mesh axis (all_reduce, in rank order).
  enum class Kind : uint8_t { function, send, recv, all_reduce };
  struct Call {
    std::string function;  // a Program function
    int64_t batch = 0;     // the (global) batch size it is compiled for
    int64_t micro_batch = 0;  // whose inputs its {input} arguments read
    std::vector<FromResult> from_results;
    // The result holding this call's loss, when it has one: the step's loss
    // is the mean of these over the step's calls.
    std::optional<size_t> loss;
    // Arguments bound to the schedule's buffers of other names: (argument, buffer).
    std::vector<std::pair<std::string, std::string>> buffer_args = {};
    Kind kind = Kind::function;
    // send: from_results[0] (an earlier call's result, which must not have
    // been overwritten since) or else `buffer`; recv and all_reduce: into
    // `buffer`. `peer` is a world rank; `tag` names the message in errors.
    int peer = -1;
    int axis = -1;  // all_reduce: the mesh axis whose group sums
    std::string buffer = {}, tag = {};
  };
  // A buffer the schedule owns: zeroed before every step's first call
  // (gradient sums) or filled with `value` once (constants).
  struct Buffer {
    std::string name;
    double value = 0;
    bool each_step = false;
    std::optional<TensorType> type = std::nullopt;  // else the first argument's bound to it
  };
  std::vector<Call> calls;
  std::vector<Buffer> buffers;
  // The step's batch split into this many consecutive micro-batches of equal size.
  int64_t micro_batches = 1;
  // Set where other ranks compute the loss (a pipeline's last stages, one
  // per replica): after the step every rank's loss is the sum over the world
  // of each rank's mean loss (0 without a loss call) divided by this count.
  std::optional<int> loss_replicas;
  // The step's loss is the sum of its calls' losses, not their mean (phases).
  bool sum_losses = false;
};

// The function whose {state} arguments are the optimizer state, in their
// order, of the schedule build_step_schedule builds for
// `grad_accumulation_steps`: @train_step for 1, else @apply_update.
std::string optimizer_state_function(int64_t grad_accumulation_steps);

// The schedule of one optimizer step of `rank` for steps of `batch` (global)
// examples, `grad_accumulation_steps` (K >= 1) micro-batches each.
// Precondition (check_grad_accumulation, driver/train.h, tells the user): K
// divides `batch`, and K > 1 only on a single device; otherwise an internal
// error. Asks rank's FunctionCache for @loss_grad's signature (compiling it)
// when K > 1.
Expected<StepSchedule> build_step_schedule(const Rank& rank, int64_t batch, int64_t grad_accumulation_steps);

}  // namespace mlc
