// A StepSchedule (driver/step_schedule.h) made runnable on one rank: its
// functions compiled, its buffers made and every call's arguments bound once,
// so that a step allocates nothing and copies no parameter.
//
// Contracts:
//  - Calls of the same (function, batch) share one StepFunction (one arena):
//    they run one after another. bind() checks that no call reads a result
//    its function has overwritten by running again.
//  - After bind() the runner must not move (its arguments point into itself
//    and into the rank's tensors given to bind, which must not move either).
//  - run(): the loop fills inputs(j) for every micro-batch and sets the step
//    counter first; run zeroes the per-step buffers and makes the calls in
//    order. loss() is then the mean of the calls' losses (for one call, its
//    value exactly), or their sum with StepSchedule::sum_losses.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/model_config.h"
#include "runtime/parameters.h"
#include "driver/rank.h"
#include "driver/step_function.h"
#include "driver/step_schedule.h"

namespace mlc {

// With profiling: the wall time a runner's calls took over the steps it ran,
// by kind (a pipeline's --profile compares them with the plan's bubble):
// forward calls (@forward), backward calls (@loss_grad and its zb1p halves,
// @accumulate_grads), the rest of the functions (updates, clipping norms);
// receives (mostly waiting for the peer: a pipeline's bubble), sends and
// all_reduces.
struct CallTimes {
  double forward_ms = 0, backward_ms = 0, other_ms = 0, recv_ms = 0, send_ms = 0, all_reduce_ms = 0;
  int64_t steps = 0;
  double busy_ms() const { return forward_ms + backward_ms + other_ms; }
};

class StepRunner {
 public:
  // The schedule's functions for `rank` (profiling them when `profile`).
  static Expected<StepRunner> create(StepSchedule schedule, const Rank& rank, bool profile);

  // Binds every call's arguments (the precedence of driver/step_schedule.h):
  // `params` and `state` by name, `step` the counter; the inputs are the
  // runner's own micro-batch buffers, in `config.inputs` order.
  Status bind(const ModelConfig& config, std::vector<rt::NamedTensor>& params, std::vector<rt::NamedTensor>& state,
              rt::Tensor* step);

  int64_t micro_batches() const { return schedule_.micro_batches; }
  // Micro-batch j's input buffers, config.inputs order (the loop gathers into them).
  std::vector<rt::Tensor>& inputs(size_t j) { return inputs_[j]; }
  Status run();
  // run in two halves: start makes every call but the last and starts the
  // last (rt::Executor::start), after which the loop may refill inputs(j)
  // and the step counter for the next step while a GPU runs this one;
  // finish waits for it. loss() is valid after finish.
  Status start();
  Status finish();
  double loss() const { return loss_; }
  // The losses of this step's calls that have one, in call order (a phased
  // step's: each phase's), valid after finish.
  std::span<const double> call_losses() const { return {call_losses_.data(), losses_}; }
  const CallTimes& call_times() const { return times_; }

  // The schedule's buffer named `name` (after run(): a gradient sum holds
  // the step's accumulated gradient); null when it has none.
  const rt::Tensor* buffer(const std::string& name) const;
  const StepSchedule& schedule() const { return schedule_; }
  // The distinct functions, in the order of their first call, with their batch.
  struct Compiled {
    std::string name;
    int64_t batch = 0;
    StepFunction fn;
  };
  const std::vector<Compiled>& functions() const { return functions_; }
  // The bytes of the arenas of its functions.
  int64_t arena_bytes() const;
  // The bytes of the schedule's own buffers that bind() made (gradient sums,
  // a pipeline's received activations and gradient seeds, the gradient scale).
  int64_t buffer_bytes() const;

 private:
  static constexpr size_t kNoFunction = ~size_t{0};
  struct Bound {
    size_t function = 0;  // into functions_; kNoFunction for a send or recv
    std::vector<rt::Tensor*> args;
    struct Refresh {
      size_t arg, call, result;
    };
    std::vector<Refresh> from_results;  // args set from an earlier call's result before each run
    // send: the result it sends (from_results[0]) or else args[0], a buffer; recv: args[0].
  };
  Status transfer(size_t call);  // a send or recv call
  void add_loss(size_t call);  // call's loss (if it has one) into loss_

  StepSchedule schedule_;
  std::vector<Compiled> functions_;
  std::vector<Bound> calls_;
  std::vector<std::vector<rt::Tensor>> inputs_;  // per micro-batch
  std::vector<std::optional<rt::Tensor>> buffers_;  // schedule_.buffers, made at bind
  std::vector<rt::Tensor*> zeroed_;                  // the per-step ones
  double loss_ = 0;
  size_t losses_ = 0;  // of the calls made so far this step
  std::vector<double> call_losses_;
  bool profile_ = false;
  CallTimes times_;
  void add_time(size_t call, double ms);
  rt::World* world_ = nullptr;  // sends, receives and the loss's broadcast
  std::string prefix_;          // of this rank's errors
};

}  // namespace mlc
