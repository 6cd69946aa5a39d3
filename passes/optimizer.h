// optimizer: lowers an optimizer update into the IR.
//
// From @loss_grad(args...) -> (loss, grads...) it builds
//   @train_step(args..., <state> {state}..., %step: i64[] {step})
//       -> (loss, <param'>..., <state'>..., <buffer'>...)
// where <buffer'> are @loss_grad's results after the gradients (the forward's
// {buffer} updates, kept as they are), and the {step} argument (reused when
// @loss already reads one: dropout's random stream) (named `step`, or `step_1`, ... when an input has
// that name) is the 1-based number of the update being taken, <param'> are
// the updated `{param}` arguments in order and <state'> the updated optimizer
// state in the order of the state arguments, named like PyTorch's state
// (`fc.weight.momentum_buffer`, `.exp_avg`, `.exp_avg_sq`, ...: the state of
// each parameter's group, passes/optimizer_rules.h state_specs). It also
// builds @optimizer_init() -> (<state>...), the initial state. The update
// formulas are torch 1.13's single-tensor paths, op for op
// (passes/optimizer_rules.h), per parameter group (OptimizerConfig::
// param_groups, matched by name; a pattern matching no parameter is an error),
// with the learning-rate schedule (passes/lr_schedule.h) and global-norm
// gradient clipping computed in the IR from `step`.
//
// For gradient accumulation (driver/step_schedule.h) build_update_functions
// adds the step split in two, from the same update emitter:
//   @accumulate_grads(<param>.grad {state}..., <param>.micro_grad...,
//                     %grad_scale: f32[]) -> (<param>.grad'...)
//       each sum plus a micro-batch's gradient times grad_scale, in place;
//   @apply_update(<param> {param}..., <param>.grad..., <state> {state}...,
//                 %step: i64[] {step}) -> (<param'>..., <state'>...)
//       @train_step's update (schedule, clipping, formulas) of the gradients
//       given as arguments.
// With schedule "plateau" (ReduceLROnPlateau) both functions take the lrs and
// the scheduler's counters as {state} after the parameters' state
// (passes/lr_plateau.h). Optimizer "lbfgs" builds nothing: the driver runs
// torch.optim.LBFGS around @loss_grad (driver/lbfgs.h).
#pragma once

#include "ir/model_config.h"
#include "passes/pass.h"

namespace mlc {

// With `loss_scale.enabled`, the step also does dynamic loss scaling
// (passes/loss_scaling.h): @loss must carry the scale argument.
Expected<Function*> build_train_step(Module& module, const OptimizerConfig& config,
                                     const LossScaleConfig& loss_scale = {});

// A pipeline stage's update (passes/pipeline_split.h): its {param}
// arguments are part of the model's. With global-norm clipping the norm is
// the model's: @apply_update takes `grad_norms: f32[norm_count] {input}`, the
// model's per-tensor squared norms in parameter order, and
//   @grad_norms(grad_norms: f32[norm_count] {state}, <param>.grad {input}...)
//       -> (grad_norms + the stage's entries {updates = %grad_norms})
// writes the stage's entries (param i at norm_index[i]; -1 for a tensor
// another stage counts: tied weights are counted once) and adds 0 elsewhere,
// so summing the stages' vectors is exact and @apply_update adds the entries
// in the order one device does.
struct SplitUpdate {
  int64_t norm_count = 0;
  std::vector<int64_t> norm_index;  // per {param} argument of @loss_grad
};
inline constexpr std::string_view kGradNormsArg = "grad_norms";

// Needs @loss_grad; dynamic loss scaling is refused (an Error naming
// train.grad_accumulation_steps).
Status build_update_functions(Module& module, const OptimizerConfig& config, const LossScaleConfig& loss_scale = {},
                              const SplitUpdate* split = nullptr);

class OptimizerPass : public Pass {
 public:
  // `update_functions`: also build_update_functions.
  explicit OptimizerPass(OptimizerConfig config, LossScaleConfig loss_scale = {}, bool update_functions = false)
      : config_(std::move(config)), loss_scale_(loss_scale), update_functions_(update_functions) {}
  std::string_view name() const override { return "optimizer"; }
  Expected<bool> run(Module& module) override;

 private:
  OptimizerConfig config_;
  LossScaleConfig loss_scale_;
  bool update_functions_ = false;
};

}  // namespace mlc
