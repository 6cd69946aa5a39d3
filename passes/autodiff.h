// autodiff: reverse-mode differentiation of a loss function.
//
// From `@F(args...) -> (loss: f[] , ...)` it builds `@F_grad(args...) ->
// (loss, dloss/d arg for each arg being differentiated)`, where the arguments
// differentiated are the `{param}` arguments (not `{frozen}` ones, not inputs).
// The backward ops are emitted in reverse topological order after a copy of the
// forward ops; each op contributes through its VJP rule (passes/vjp_rules.cc);
// gradients of a value used several times are summed. Composite ops without a
// rule of their own are differentiated through their decomposition. An op with
// no rule on the path from a parameter to the loss is an error naming the op
// and its location. Results of `F` that update an argument (`{updates = %a}`,
// a {buffer}'s new value) follow the gradients unchanged, still updating it.
#pragma once

#include <string>
#include <vector>

#include "passes/pass.h"

namespace mlc {

// Loss scaling (mixed precision, passes/autocast.h): when `f` has a 0-d
// {state} argument of this name, the backward starts from it instead of 1, so
// the gradients returned are those of loss * scale.
inline constexpr std::string_view kLossScaleArg = "grad_scaler.scale";

// Adds @<f.name>_grad to `module`. `f` must return a 0-d float loss first.
// `also_wrt`: indices of further arguments of `f` (not {param} ones: a
// pipeline stage's received activations, passes/pipeline_split.h) whose
// gradients follow the {param} arguments' among the results, in the order
// given, before the carried buffer updates. Without `params`, the {param}
// arguments get no gradient (a zero-bubble schedule's input-gradient half).
Expected<Function*> differentiate(Module& module, const Function& f, const std::vector<size_t>& also_wrt = {},
                                  bool params = true);

// The `autodiff` pass: differentiates @loss (if present) into @loss_grad.
class AutodiffPass : public Pass {
 public:
  std::string_view name() const override { return "autodiff"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
