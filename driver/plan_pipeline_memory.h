// What each rank of `mlc run --mesh pp=N` holds and runs, predicted from the
// program's IR without compiling a kernel: the step schedule the rank would
// build (driver/pipeline_step_schedule.h, from the stage functions'
// signatures), the tensors its stages hold, and each distinct function of its
// step lowered with compile_kernels = false (compiler/lower.h), as
// `mlc plan` lowers @train_step.
//
// Contract: on the CPU target, parameters, optimizer_state, arena and
// schedule_buffers() equal the run's RankMemory of the same rank
// (driver/train.h; `mlc run` prints "memory of rank R: ..."):
//   parameters       the bytes of the parameters its stages read (a shared,
//                    tied parameter on each of its stages' ranks);
//   optimizer_state  the bytes of their optimizer state;
//   arena            the sum of the arenas of its distinct step functions:
//                    stage<s>.forward (not on the last stage), loss_grad or
//                    zb1p's loss_grad_input and loss_grad_weight,
//                    accumulate_grads, grad_norms (global-norm clipping) and
//                    apply_update, per stage it runs;
//   schedule buffers what the schedule binds beside them: the activations it
//                    received for every micro-batch (recomputation keeps
//                    those only), the gradient seeds received for its sent
//                    values, a gradient sum per parameter of its stages (and
//                    per shared parameter of the model, which every rank
//                    sums), and the gradient scale and squared norms.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/plan_cost.h"
#include "driver/program.h"

namespace mlc {

struct PlannedStepFunction {
  std::string name;  // "stage1.loss_grad"
  int64_t batch = 0;
  int calls = 0;        // per step
  int64_t arena = 0;    // bytes of its arena
  CallCost cost;        // of one call (driver/plan_cost.h)
};

struct PlannedPipelineRank {
  int rank = 0;
  std::vector<int> stages;
  int64_t parameters = 0, optimizer_state = 0, arena = 0;
  int64_t received = 0, seeds = 0, gradient_sums = 0, other_buffers = 0;
  std::vector<PlannedStepFunction> functions;  // in the order of their first call
  int64_t schedule_buffers() const { return received + seeds + gradient_sums + other_buffers; }
};

// Every pipeline rank's prediction for steps of `batch` (global) examples.
// `program`: a model file's, with a pipelined plan (ParallelPlan::pipelined)
// whose mesh is pp alone. Errors are the schedule's or the stages' (a
// micro-batch count that does not divide the batch, too few cuts).
Expected<std::vector<PlannedPipelineRank>> plan_pipeline_ranks(const Program& program, int64_t batch);

}  // namespace mlc
