// autocast: a mixed-precision policy (ir/model_config.h MixedPrecisionConfig)
// applied to @loss and @eval as casts in the IR, before autodiff, so that the
// gradient of each cast is the cast back (the cast's VJP) as in PyTorch, and
// parameters and their gradients stay f32 at the function boundary (f32 master
// weights; the optimizer never sees a half tensor). A pass over the IR rather
// than a choice made in lowering: autodiff then differentiates the half ops
// with the rules it has (the backward runs in bf16 where the forward does, as
// torch's does), the sharding pass sees the casts (so ZeRO-3 gathers the half
// parameter and reduces the f32 gradient), every backend runs the same
// program, and `mlc ir --after autocast` shows where each cast went.
//
// With `param` = bf16/f16 (FSDP2's param_dtype), every float {param}/{frozen}
// and {input} argument is cast once, at the top of the function; every use
// reads the cast, and ops follow their operands' dtype (PyTorch without
// autocast) except the losses, which run in f32 (as below; a bf16 loss would be
// rounded to 2^-5 near 4). On a ZeRO-3 mesh the sharding pass then gathers the
// cast (half) parameter, and reduces gradients after their cast back to f32.
//
// With `compute` = bf16/f16 it is torch.autocast("cpu", dtype) of torch 1.13
// (aten/src/ATen/autocast_mode.cpp, AutocastCPU), restricted to mlc's ops; the
// cast of each value to each dtype is made once (PyTorch's cast cache):
//   lower precision: dot, conv2d (torch's mm/bmm/matmul/linear/addmm/baddbmm/
//                    conv2d): float operands cast to `compute`.
//   f32:             cross_entropy, mse (torch's cross_entropy_loss, nll_loss,
//                    mse_loss): half operands cast to f32.
//   promote:         ops with several float operands (add, mul, select,
//                    concat, layer_norm, ...) cast them to the widest dtype
//                    among them (bf16 with f16: f32), as torch's type
//                    promotion does; constants (and broadcasts/reshapes of
//                    them) and 0-d values do not vote, they take the others'
//                    dtype (torch's scalars). The bias add of a lower-precision
//                    dot/conv2d (an add in the same layer scope of its result
//                    and a parameter, possibly reshaped/broadcast) casts the
//                    bias down instead: torch's linear/conv2d take the bias
//                    into the lower-precision op.
//   everything else: follows its operands' dtype.
//   Composites (softmax, log_softmax, rms_norm, layer_norm, silu, gelu, relu)
//   on half operands run their decomposition in f32 and round the result once,
//   as torch's bf16 CPU kernels accumulate in float.
// Results keep their dtypes: a result whose dtype changed is cast back.
//
// With loss scaling, @loss also gets a 0-d f32 {state} argument
// `grad_scaler.scale` (kLossScaleArg): autodiff seeds the backward with it, and
// the optimizer pass unscales, checks and updates it (passes/optimizer.h).
#pragma once

#include <memory>

#include "ir/model_config.h"
#include "passes/pass.h"

namespace mlc {

// `f` with `policy` applied (same name, arguments and result types).
Expected<std::unique_ptr<Function>> autocast_function(const Function& f, const MixedPrecisionConfig& policy);

// The `autocast` pass: autocast_function on @loss and @eval. Options (mlc opt):
// `autocast{compute=bf16,param=f32,loss_scale=dynamic}`.
class AutocastPass : public Pass {
 public:
  AutocastPass() = default;
  explicit AutocastPass(MixedPrecisionConfig policy) : policy_(policy) {}
  std::string_view name() const override { return "autocast"; }
  Expected<bool> run(Module& module) override;
  std::vector<PassOption> options() override;

 private:
  MixedPrecisionConfig policy_;
};

}  // namespace mlc
