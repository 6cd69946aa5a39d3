#include "passes/loss_scaling.h"

#include <limits>

#include "passes/autodiff.h"

namespace mlc {

Expected<LossScaling> add_loss_scale_state(Function& f) {
  LossScaling ls;
  for (size_t i = 0; i < f.args.size(); ++i)
    if (f.arg_kinds[i] == ArgKind::state && f.args[i]->name == kLossScaleArg) ls.scale = f.args[i];
  if (!ls.scale || ls.scale->type != TensorType{DType::f32, {}})
    return make_error("error: optimizer: loss scaling needs @loss's f32[] {state} argument %" +
                      std::string(kLossScaleArg) + " (run the autocast pass with loss_scale=dynamic)");
  ls.growth_tracker = f.add_arg("grad_scaler.growth_tracker", TensorType{DType::i64, {}}, ArgKind::state);
  ls.skipped = f.add_arg("grad_scaler.skipped", TensorType{DType::i64, {}}, ArgKind::state);
  return ls;
}

void unscale_gradients(Builder& b, LossScaling& ls, std::vector<Value*>& grads) {
  Value* inv = b.cast(b.div(b.scalar(1.0, DType::f64), b.cast(ls.scale, DType::f64)), DType::f32);
  Value* nonfinite = nullptr;  // count of inf/NaN elements, f32[]
  for (Value*& g : grads) {
    // x is finite iff |x| <= max (false for inf and NaN).
    Value* max = b.scalar(static_cast<double>(std::numeric_limits<float>::max()), g->type.dtype);
    Value* finite = b.compare(b.unary(OpCode::Abs, g), max, "le");
    Value* bad = b.select(finite, b.scalar(0.0, DType::f32), b.scalar(1.0, DType::f32));
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < g->type.rank(); ++d) dims.push_back(d);
    if (!dims.empty()) bad = b.reduce_sum(bad, dims, false);
    nonfinite = nonfinite ? b.add(nonfinite, bad) : bad;
    g = b.mul(g, g->type.dtype == DType::f32 ? inv : b.cast(inv, g->type.dtype));
  }
  ls.found_inf = nonfinite ? b.compare(nonfinite, b.scalar(0.0, DType::f32), "gt")
                           : b.compare(b.scalar(0.0, DType::f32), b.scalar(0.0, DType::f32), "gt");
}

Value* unless_skipped(Builder& b, const LossScaling& ls, Value* updated, Value* old) {
  return b.select(ls.found_inf, old, updated);
}

std::vector<Value*> update_loss_scale(Builder& b, const LossScaling& ls, const LossScaleConfig& config) {
  Value* scale64 = b.cast(ls.scale, DType::f64);
  Value* backed_off = b.cast(b.mul(scale64, b.scalar(config.backoff_factor, DType::f64)), DType::f32);
  Value* grown = b.cast(b.mul(scale64, b.scalar(config.growth_factor, DType::f64)), DType::f32);
  Value* grown_finite = b.compare(b.unary(OpCode::Abs, grown),
                                  b.scalar(static_cast<double>(std::numeric_limits<float>::max()), DType::f32), "le");
  Value* zero = b.scalar(0, DType::i64);
  Value* good = b.add(ls.growth_tracker, b.scalar(1, DType::i64));
  Value* grow = b.compare(good, b.scalar(static_cast<double>(config.growth_interval), DType::i64), "eq");
  Value* if_good = b.select(grow, b.select(grown_finite, grown, ls.scale), ls.scale);
  Value* scale = b.select(ls.found_inf, backed_off, if_good);
  Value* tracker = b.select(ls.found_inf, zero, b.select(grow, zero, good));
  Value* skipped = b.add(ls.skipped, b.cast(ls.found_inf, DType::i64));
  return {scale, tracker, skipped};
}

std::vector<Value*> initial_loss_scale_state(Builder& b, const LossScaleConfig& config) {
  return {b.scalar(config.init_scale, DType::f32), b.scalar(0, DType::i64), b.scalar(0, DType::i64)};
}

}  // namespace mlc
