// Layers that behave differently in training and evaluation (LayerContext::
// training): BatchNorm1d, BatchNorm2d and Dropout, with PyTorch 1.13's
// semantics.
//
// BatchNorm over the channel dim 1 of [N,C] / [N,C,L] (1d) or [N,C,H,W] (2d):
//  - training: batch statistics over every dim but 1 (n values per channel):
//    mean = sum(x)/n, var = sum((x-mean)^2)/n (biased), y = (x-mean) *
//    rsqrt(var+eps) [* weight + bias]; with track_running_stats the buffers
//    are updated as results of the function: running_mean' = (1-momentum) *
//    running_mean + momentum * mean, running_var' likewise with the unbiased
//    variance sum((x-mean)^2)/(n-1), num_batches_tracked' = num_batches_tracked + 1.
//  - evaluation: the running statistics (batch statistics without
//    track_running_stats, as PyTorch).
//  The batch sums are ordinary reduce_sums over the batch dim, so on a mesh
//  whose data axes shard the batch the sharding pass turns them into partial
//  sums and all_reduces: global-batch (SyncBatchNorm) statistics. Per-device
//  statistics (BatchNorm under DDP without SyncBatchNorm) are not expressed:
//  a mesh run refuses a BatchNorm without "sync": true (driver/program.cc).
//
// Dropout(p): training draws u = random_uniform(index, step) {seed, stream}
// per element, index being the element's flat position in the whole (global)
// tensor, and computes x * (u >= p ? 1/(1-p) : 0) (torch: bernoulli(1-p)
// mask divided by 1-p). The mask is the same value in the forward and the
// gradient (mul's VJP). Evaluation, and p = 0, return x itself.
#include <cmath>

#include "frontends/emit_util.h"
#include "frontends/layers.h"
#include "frontends/random_ops.h"

namespace mlc {

namespace {

ParamInit filled(ParamInit::Kind kind) {
  ParamInit init;
  init.kind = kind;
  return init;
}

class BatchNorm : public Layer {
 public:
  // 2 reductions and their arithmetic, 4 affine ops, 8 update ops and their
  // scalar constants: a bound, checked by tests/frontends/layers_test.cc.
  int64_t max_ops() const override { return 48; }
  bool two_d = false;  // BatchNorm2d
  int64_t num_features = 0;
  double eps = 1e-5, momentum = 0.1;
  bool affine = true, track_running_stats = true, sync = false;

  std::vector<ParamDecl> params() const override {
    if (!affine) return {};
    return {{"weight", {num_features}, filled(ParamInit::Kind::ones)},
            {"bias", {num_features}, filled(ParamInit::Kind::zeros)}};
  }
  std::vector<ParamDecl> buffers() const override {
    if (!track_running_stats) return {};
    return {{"running_mean", {num_features}, filled(ParamInit::Kind::zeros)},
            {"running_var", {num_features}, filled(ParamInit::Kind::ones)},
            {"num_batches_tracked", {}, filled(ParamInit::Kind::zeros), DType::i64}};
  }

  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    const int64_t rank = x->type.rank();
    if (two_d ? rank != 4 : (rank != 2 && rank != 3))
      return error(ctx, std::string("expected an input ") + (two_d ? "[N,C,H,W]" : "[N,C] or [N,C,L]") +
                            ", found " + x->type.str());
    if (x->type.shape[1] != num_features)
      return error(ctx, "input has " + std::to_string(x->type.shape[1]) + " channels but num_features is " +
                            std::to_string(num_features));
    Builder& b = ctx.b;
    const DType t = x->type.dtype;
    std::vector<int64_t> dims = {0};
    int64_t n = x->type.shape[0];
    Shape per_channel = {num_features};  // broadcasts against x from the right
    for (int64_t d = 2; d < rank; ++d) {
      dims.push_back(d);
      n *= x->type.shape[d];
      per_channel.push_back(1);
    }
    auto channel = [&](Value* v) { return emit_reshape(b, v, per_channel); };
    auto scalar = [&](double v) { return emit_scalar(b, v, t); };
    const bool batch_stats = ctx.training || !track_running_stats;
    Value *mean, *centered, *var_sum = nullptr, *inv_std;
    if (batch_stats) {
      if (ctx.training && ctx.training_batch && n == 1)
        return error(ctx, "expected more than 1 value per channel when training, found input " + x->type.str());
      MLC_TRY(Value* count, scalar(static_cast<double>(n)));
      MLC_TRY(Value* sum, emit_op(b, OpCode::ReduceSum, {x}, {{"dims", dims}, {"keepdim", false}}));
      MLC_TRY(mean, emit_op(b, OpCode::Div, {sum, count}));
      MLC_TRY(Value* mean_c, channel(mean));
      MLC_TRY(centered, emit_op(b, OpCode::Sub, {x, mean_c}));
      MLC_TRY(Value* sq, emit_op(b, OpCode::Mul, {centered, centered}));
      MLC_TRY(var_sum, emit_op(b, OpCode::ReduceSum, {sq}, {{"dims", dims}, {"keepdim", false}}));
      MLC_TRY(Value* var, emit_op(b, OpCode::Div, {var_sum, count}));
      MLC_TRY(Value* e, scalar(eps));
      MLC_TRY(Value* var_eps, emit_op(b, OpCode::Add, {var, e}));
      MLC_TRY(inv_std, emit_op(b, OpCode::Rsqrt, {var_eps}));
    } else {
      mean = ctx.param("running_mean");
      MLC_TRY(Value* mean_c, channel(mean));
      MLC_TRY(centered, emit_op(b, OpCode::Sub, {x, mean_c}));
      MLC_TRY(Value* e, scalar(eps));
      MLC_TRY(Value* var_eps, emit_op(b, OpCode::Add, {ctx.param("running_var"), e}));
      MLC_TRY(inv_std, emit_op(b, OpCode::Rsqrt, {var_eps}));
    }
    MLC_TRY(Value* inv_std_c, channel(inv_std));
    MLC_TRY(Value* y, emit_op(b, OpCode::Mul, {centered, inv_std_c}));
    if (affine) {
      MLC_TRY(Value* w, channel(ctx.param("weight")));
      MLC_TRY(Value* bias, channel(ctx.param("bias")));
      MLC_TRY(y, emit_op(b, OpCode::Mul, {y, w}));
      MLC_TRY(y, emit_op(b, OpCode::Add, {y, bias}));
    }
    if (ctx.training && track_running_stats) {
      MLC_TRY(Value* keep, scalar(1 - momentum));
      MLC_TRY(Value* take, scalar(momentum));
      auto blend = [&](Value* running, Value* batch) -> Expected<Value*> {
        MLC_TRY(Value* old_part, emit_op(b, OpCode::Mul, {running, keep}));
        MLC_TRY(Value* new_part, emit_op(b, OpCode::Mul, {batch, take}));
        return emit_op(b, OpCode::Add, {old_part, new_part});
      };
      MLC_TRY(Value* new_mean, blend(ctx.param("running_mean"), mean));
      MLC_TRY(Value* n_minus_1, scalar(static_cast<double>(n - 1)));
      MLC_TRY(Value* unbiased, emit_op(b, OpCode::Div, {var_sum, n_minus_1}));
      MLC_TRY(Value* new_var, blend(ctx.param("running_var"), unbiased));
      MLC_TRY(Value* one, emit_scalar(b, 1, DType::i64));
      MLC_TRY(Value* tracked, emit_op(b, OpCode::Add, {ctx.param("num_batches_tracked"), one}));
      ctx.update_buffer("running_mean", new_mean);
      ctx.update_buffer("running_var", new_var);
      ctx.update_buffer("num_batches_tracked", tracked);
    }
    return y;
  }
};

class Dropout : public Layer {
 public:
  int64_t max_ops() const override { return 9; }  // iota, reshape, random_uniform, p, compare, 2 scalars, select, mul
  double p = 0.5;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, false));
    return emit_dropout(ctx, x, p, ctx.stream);
  }
};

Expected<double> nonnegative(const Fields& f, std::string_view key, double dflt) {
  MLC_TRY(double v, f.number(key, dflt));
  if (v < 0) return f.doc().error(*f.get(key), "'" + std::string(key) + "': must be >= 0");
  return v;
}

Expected<std::unique_ptr<Layer>> parse_batch_norm(const Fields& f, bool two_d) {
  MLC_CHECK_OK(f.allow(with_common_fields({"num_features", "eps", "momentum", "affine", "track_running_stats", "sync"})));
  auto l = std::make_unique<BatchNorm>();
  l->two_d = two_d;
  MLC_TRY(l->num_features, f.positive("num_features"));
  MLC_TRY(l->eps, nonnegative(f, "eps", 1e-5));
  MLC_TRY(l->momentum, nonnegative(f, "momentum", 0.1));
  if (l->momentum > 1)
    return f.doc().error(*f.get("momentum"), "'momentum': must be in [0, 1]");
  MLC_TRY(l->affine, f.boolean("affine", true));
  MLC_TRY(l->track_running_stats, f.boolean("track_running_stats", true));
  MLC_TRY(l->sync, f.boolean("sync", false));
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_dropout(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"p"})));
  auto l = std::make_unique<Dropout>();
  MLC_TRY(l->p, f.number("p", 0.5));
  if (l->p < 0 || l->p >= 1)
    return f.doc().error(*f.get("p"), "'p': must be in [0, 1) (p = 1 drops everything)");
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace

Expected<std::unique_ptr<Layer>> parse_train_mode_layer(const Fields& f, const std::string& type) {
  if (type == "BatchNorm1d" || type == "BatchNorm2d") return parse_batch_norm(f, type == "BatchNorm2d");
  if (type == "Dropout") return parse_dropout(f);
  return std::unique_ptr<Layer>();
}

bool is_unsynced_batch_norm(const Layer& layer) {
  const auto* bn = dynamic_cast<const BatchNorm*>(&layer);
  return bn && !bn->sync;
}

Expected<Value*> emit_dropout(LayerContext& ctx, Value* x, double p, uint32_t stream) {
  if (!ctx.training || p == 0) return x;
  return emit_dropout(ctx.b, x, p, RandomKey{ctx.seed, stream, ctx.step()});
}

}  // namespace mlc
