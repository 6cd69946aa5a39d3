// The compiler's pass pipeline: the ordered list of passes a model goes through
// after the frontend. `mlc ir --after=PASS` stops after PASS; `--after=all`
// prints every stage; `--timings` reports the time of each pass.
//
//   autocast      with a mixed-precision policy only: casts in @loss and @eval
//                 (passes/autocast.h)
//   autodiff      @loss -> + @loss_grad
//   optimizer     @loss_grad -> + @train_step, @optimizer_init (needs an optimizer),
//                 and with update_functions + @accumulate_grads, @apply_update
//   decompose     composites -> primitives
//   canonicalize  simplify, fold constants, CSE, DCE to a fixed point
//   sharding      with a mesh only: @train_step, @eval, @loss_grad -> SPMD
//                 programs with collectives (passes/sharding.h), by the
//                 options' ParallelPlan (ir/parallel_plan.h), which is
//                 validated first: a plan asking for what is not implemented
//                 is an error before any pass runs
//
// Contract: with `verify_each`, the verifier runs after every pass, and a pass
// that leaves invalid IR is an internal error naming the pass and what the
// verifier found. It is on by default in debug builds and wherever the
// environment sets MLC_VERIFY_PASSES=1 (ctest does, for every test).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/model_config.h"
#include "ir/parallel_plan.h"
#include "passes/pass.h"
#include "passes/sharding.h"

namespace mlc {

// Debug build, or MLC_VERIFY_PASSES=1 in the environment.
bool verify_each_pass_by_default();

struct PassTiming {
  std::string pass;
  double ms = 0;
};

struct PassPipelineOptions {
  std::optional<OptimizerConfig> optimizer;  // without it, the optimizer pass is skipped
  // The optimizer pass also builds @accumulate_grads and @apply_update
  // (passes/optimizer.h build_update_functions: gradient accumulation).
  bool update_functions = false;
  MixedPrecisionConfig mixed_precision;      // off (the default): the autocast pass is skipped
  // The sharding pass's plan: without a mesh the pass is skipped; with one,
  // the module gets it.
  ParallelPlan parallel;
  // When set, receives the sharding pass's collective ledger, by function.
  std::map<std::string, std::vector<LedgerEntry>>* ledger = nullptr;
  bool verify_each = verify_each_pass_by_default();
  // Called after each pass that ran, with its name and the module after it.
  std::function<void(const std::string& pass, const Module&)> after_each;
  // When set, receives the wall time of each pass that ran, in order.
  std::vector<PassTiming>* timings = nullptr;
};

// Pass names in pipeline order.
const std::vector<std::string>& pass_pipeline_names();

// Runs the pipeline up to and including `last` (all of it when `last` is
// empty). An unknown `last` is an error listing the pipeline.
Status run_pass_pipeline(Module& module, const PassPipelineOptions& options, const std::string& last = "");

// Runs one pass as the pipeline does: timed, verified after it when
// options.verify_each, reported to options.after_each.
Status run_pass_pipeline_stage(Pass& pass, Module& module, const PassPipelineOptions& options);

}  // namespace mlc
