// Dynamic loss scaling in the train step: torch.cuda.amp.GradScaler's
// semantics (torch 1.13, GradScaler.unscale_/step/update), lowered into the IR
// by the optimizer pass (passes/optimizer.h) when @loss carries the loss scale
// (passes/autocast.h, passes/autodiff.h kLossScaleArg).
//
// Per step, with S the scale argument (f32[]):
//   - the gradients are those of loss * S (autodiff seeds the backward with S);
//   - each is multiplied by inv = f32(1 / f64(S)) (GradScaler's inv_scale),
//     and found_inf is whether any element of any gradient (before the
//     multiplication) is inf or NaN;
//   - the optimizer's update happens only when !found_inf: otherwise every
//     parameter and optimizer-state result is its argument (the update is
//     skipped; the optimizer's own step count, step - skipped, does not
//     advance, the schedule's does);
//   - GradScaler.update: found_inf: S' = f32(f64(S) * backoff), tracker' = 0;
//     else tracker + 1 == growth_interval: S' = f32(f64(S) * growth) if that
//     is finite (else S), tracker' = 0; else S' = S, tracker' = tracker + 1.
//     skipped' = skipped + found_inf.
// State arguments (optimizer state, checkpointed): `grad_scaler.scale`,
// `grad_scaler.growth_tracker` (i64[]) and `grad_scaler.skipped` (i64[]).
#pragma once

#include <vector>

#include "ir/builder.h"
#include "ir/model_config.h"

namespace mlc {

struct LossScaling {
  Value* scale = nullptr;           // the state arguments
  Value* growth_tracker = nullptr;
  Value* skipped = nullptr;
  Value* found_inf = nullptr;       // bool[]: set by unscale_gradients
};

// The scale argument of `f` (a clone of @loss_grad) and two new state
// arguments (appended), or an Error when `f` has no scale argument.
Expected<LossScaling> add_loss_scale_state(Function& f);

// Unscales `grads` in place and sets ls.found_inf.
void unscale_gradients(Builder& b, LossScaling& ls, std::vector<Value*>& grads);

// `updated` where the step is taken, `old` where it is skipped.
Value* unless_skipped(Builder& b, const LossScaling& ls, Value* updated, Value* old);

// The new scale, growth tracker and skip count, in add_loss_scale_state's order.
std::vector<Value*> update_loss_scale(Builder& b, const LossScaling& ls, const LossScaleConfig& config);

// Their initial values (for @optimizer_init), in the same order.
std::vector<Value*> initial_loss_scale_state(Builder& b, const LossScaleConfig& config);

}  // namespace mlc
