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
// (`fc.weight.momentum_buffer`, `.exp_avg`, `.exp_avg_sq`, `.square_avg`,
// `.grad_avg`, `.sum`). It also builds @optimizer_init() -> (<state>...), the
// initial state. The update formulas are torch 1.13's single-tensor paths, op
// for op (scalars computed in f64 and rounded to f32 where torch passes a Python
// float), with the learning-rate schedule and global-norm gradient clipping
// computed in the IR from `step`.
#pragma once

#include "ir/model_config.h"
#include "passes/pass.h"

namespace mlc {

// With `loss_scale.enabled`, the step also does dynamic loss scaling
// (passes/loss_scaling.h): @loss must carry the scale argument.
Expected<Function*> build_train_step(Module& module, const OptimizerConfig& config,
                                     const LossScaleConfig& loss_scale = {});

class OptimizerPass : public Pass {
 public:
  explicit OptimizerPass(OptimizerConfig config, LossScaleConfig loss_scale = {})
      : config_(std::move(config)), loss_scale_(loss_scale) {}
  std::string_view name() const override { return "optimizer"; }
  Expected<bool> run(Module& module) override;

 private:
  OptimizerConfig config_;
  LossScaleConfig loss_scale_;
};

}  // namespace mlc
