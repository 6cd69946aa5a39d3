#include "passes/optimizer.h"

#include <cmath>
#include <optional>
#include <unordered_set>

#include "ir/builder.h"
#include "passes/loss_scaling.h"

namespace mlc {

namespace {

// One parameter's update: its value, gradient and state slots.
struct Slot {
  Value* param;
  Value* grad;
  Value* grad_source_param = nullptr;  // the parameter argument (param is replaced by its update)
  std::vector<Value*> state;      // state arguments, in `state_names` order
  std::vector<Value*> new_state;  // results, same order
};

// Scalars of the update, built once per step: f64 math rounded to the param dtype.
// `step` counts the train steps (the schedule's clock); `opt_step` the
// updates the optimizer took (its own `state["step"]`), which lags behind when
// loss scaling skips steps.
class Scalars {
 public:
  Scalars(Builder& b, Value* step, Value* opt_step) : b_(b), step_(step), opt_step_(opt_step) {}
  Value* f64(double v) { return b_.scalar(v, DType::f64); }
  // Python float `v` used with an f32 tensor.
  Value* f32(double v) { return b_.scalar(v, DType::f32); }
  Value* to_f32(Value* v) { return b_.cast(v, DType::f32); }
  Value* t() { return b_.cast(opt_step_, DType::f64); }          // 1-based optimizer step, f64
  Value* s() { return b_.sub(t(), f64(1)); }                      // 0-based optimizer step, f64
  Value* sched_s() { return b_.sub(b_.cast(step_, DType::f64), f64(1)); }  // 0-based train step, f64
  Value* sched_s_i64() { return b_.sub(step_, b_.scalar(1, DType::i64)); }
  Builder& b() { return b_; }

 private:
  Builder& b_;
  Value* step_;
  Value* opt_step_;
};

// lr(s) per the schedule, f64.
Value* learning_rate(Scalars& k, const OptimizerConfig& c) {
  Builder& b = k.b();
  const ScheduleConfig& sc = c.schedule;
  Value* lr = k.f64(c.lr);
  if (sc.type == "constant") return lr;
  if (sc.type == "linear_warmup") {
    Value* progress = b.div(b.create(OpCode::Min, {k.sched_s(), k.f64(static_cast<double>(sc.warmup_steps))}),
                            k.f64(static_cast<double>(sc.warmup_steps)));
    Value* factor = b.add(k.f64(sc.start_factor), b.mul(k.f64(1 - sc.start_factor), progress));
    return b.mul(lr, factor);
  }
  if (sc.type == "step") {
    Value* k_steps = b.cast(b.div(k.sched_s_i64(), b.scalar(static_cast<double>(sc.step_size), DType::i64)),
                            DType::f64);
    return b.mul(lr, b.binary(OpCode::Pow, k.f64(sc.gamma), k_steps));
  }
  // cosine, with optional linear warmup.
  double w = static_cast<double>(sc.warmup_steps);
  double span = static_cast<double>(sc.total_steps - sc.warmup_steps);
  Value* s_after = b.create(OpCode::Min, {b.sub(k.sched_s(), k.f64(w)), k.f64(span)});
  Value* cosine = b.unary(OpCode::Cos, b.mul(k.f64(M_PI), b.div(s_after, k.f64(span))));
  Value* decayed = b.add(k.f64(sc.min_lr),
                         b.mul(k.f64(c.lr - sc.min_lr), b.div(b.add(k.f64(1), cosine), k.f64(2))));
  if (sc.warmup_steps == 0) return decayed;
  Value* warm = b.mul(lr, b.div(b.add(k.sched_s(), k.f64(1)), k.f64(w)));
  return b.select(b.compare(k.sched_s(), k.f64(w), "lt"), warm, decayed);
}

// A gradient's 2-norm squared, as torch.nn.utils.clip_grad_norm_ adds them:
// the norm (in the gradient's dtype), times itself.
Value* squared_norm(Builder& b, Value* g) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < g->type.rank(); ++d) dims.push_back(d);
  Value* sq = dims.empty() ? b.mul(g, g) : b.reduce_sum(b.mul(g, g), dims, false);
  Value* norm = b.unary(OpCode::Sqrt, sq);
  return b.mul(norm, norm);
}

// torch.nn.utils.clip_grad_norm_: per-tensor 2-norms, their 2-norm, then
// g *= min(max_norm / (total + 1e-6), 1). With `norms` (a pipeline stage's
// update, SplitUpdate), the squared norms are the entries of that vector,
// the model's every tensor, added in its order as one device adds them.
void clip_gradients(Scalars& k, std::vector<Slot>& slots, double max_norm, Value* norms = nullptr) {
  Builder& b = k.b();
  Value* total_sq = nullptr;
  const int64_t entries = norms ? norms->type.shape[0] : static_cast<int64_t>(slots.size());
  for (int64_t e = 0; e < entries; ++e) {
    Value* norm_sq = norms ? b.reshape(b.create(OpCode::Slice, {norms}, {{"start", std::vector<int64_t>{e}},
                                                                         {"limit", std::vector<int64_t>{e + 1}},
                                                                         {"stride", std::vector<int64_t>{1}}}),
                                       {})
                           : squared_norm(b, slots[static_cast<size_t>(e)].grad);
    total_sq = total_sq ? b.add(total_sq, norm_sq) : norm_sq;
  }
  if (!total_sq) return;
  Value* total = b.unary(OpCode::Sqrt, total_sq);
  Value* coef = b.div(k.f32(max_norm), b.add(total, k.f32(1e-6)));
  coef = b.create(OpCode::Min, {coef, k.f32(1.0)});
  for (Slot& slot : slots) slot.grad = b.mul(slot.grad, coef);
}

bool decays(const OptimizerConfig& c, const Value* param) {
  return c.weight_decay != 0 && (c.decay == "all" || param->type.rank() >= 2);
}

// self + alpha * other (torch's add with alpha; alpha == 1 adds directly).
Value* add_scaled(Builder& b, Value* self, Value* other, Value* alpha) {
  return b.add(self, b.mul(other, alpha));
}

void update_sgd(Scalars& k, const OptimizerConfig& c, Slot& p, Value* neg_lr) {
  Builder& b = k.b();
  Value* d_p = p.grad;
  if (decays(c, p.param)) d_p = add_scaled(b, d_p, p.param, k.f32(c.weight_decay));
  if (c.momentum != 0) {
    Value* buf = p.state[0];
    Value* damped = c.dampening == 0 ? d_p : b.mul(d_p, k.f32(1 - c.dampening));
    Value* next = b.add(b.mul(buf, k.f32(c.momentum)), damped);
    // The first step clones d_p (no dampening).
    if (c.dampening != 0)
      next = b.select(b.compare(k.t(), k.f64(1), "eq"), d_p, next);
    p.new_state = {next};
    d_p = c.nesterov ? add_scaled(b, d_p, next, k.f32(c.momentum)) : next;
  }
  p.param = add_scaled(b, p.param, d_p, neg_lr);
}

void update_adam(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr, bool decoupled) {
  Builder& b = k.b();
  Value* param = p.param;
  Value* g = p.grad;
  if (decays(c, param)) {
    if (decoupled)
      param = b.mul(param, k.to_f32(b.sub(k.f64(1), b.mul(lr, k.f64(c.weight_decay)))));
    else
      g = add_scaled(b, g, param, k.f32(c.weight_decay));
  }
  Value* m = b.add(b.mul(p.state[0], k.f32(c.beta1)), b.mul(g, k.f32(1 - c.beta1)));
  Value* v = b.add(b.mul(p.state[1], k.f32(c.beta2)), b.mul(b.mul(g, k.f32(1 - c.beta2)), g));
  Value* bc1 = b.sub(k.f64(1), b.binary(OpCode::Pow, k.f64(c.beta1), k.t()));
  Value* bc2 = b.sub(k.f64(1), b.binary(OpCode::Pow, k.f64(c.beta2), k.t()));
  Value* neg_step_size = k.to_f32(b.unary(OpCode::Neg, b.div(lr, bc1)));
  Value* denom = b.add(b.div(b.unary(OpCode::Sqrt, v), k.to_f32(b.unary(OpCode::Sqrt, bc2))),
                       k.f32(c.eps));
  p.param = b.add(param, b.div(b.mul(m, neg_step_size), denom));
  p.new_state = {m, v};
}

void update_rmsprop(Scalars& k, const OptimizerConfig& c, Slot& p, Value* neg_lr) {
  // State order: square_avg, [momentum_buffer], [grad_avg] (see state_names).
  Builder& b = k.b();
  Value* g = p.grad;
  if (decays(c, p.param)) g = add_scaled(b, g, p.param, k.f32(c.weight_decay));
  Value* old_buf = c.momentum > 0 ? p.state[1] : nullptr;
  Value* old_grad_avg = c.centered ? p.state.back() : nullptr;
  Value* sq = b.add(b.mul(p.state[0], k.f32(c.alpha)), b.mul(b.mul(g, k.f32(1 - c.alpha)), g));
  Value* grad_avg = nullptr;
  Value* avg;
  if (c.centered) {
    grad_avg = b.add(b.mul(old_grad_avg, k.f32(c.alpha)), b.mul(g, k.f32(1 - c.alpha)));
    avg = b.unary(OpCode::Sqrt, b.add(sq, b.mul(b.mul(grad_avg, k.f32(-1)), grad_avg)));
  } else {
    avg = b.unary(OpCode::Sqrt, sq);
  }
  avg = b.add(avg, k.f32(c.eps));
  p.new_state = {sq};
  if (old_buf) {
    Value* buf = b.add(b.mul(old_buf, k.f32(c.momentum)), b.div(g, avg));
    p.new_state.push_back(buf);
    p.param = add_scaled(b, p.param, buf, neg_lr);
  } else {
    p.param = b.add(p.param, b.div(b.mul(g, neg_lr), avg));
  }
  if (grad_avg) p.new_state.push_back(grad_avg);
}

void update_adagrad(Scalars& k, const OptimizerConfig& c, Slot& p, Value* lr) {
  Builder& b = k.b();
  Value* g = p.grad;
  if (decays(c, p.param)) g = add_scaled(b, g, p.param, k.f32(c.weight_decay));
  Value* clr = b.div(lr, b.add(k.f64(1), b.mul(k.s(), k.f64(c.lr_decay))));
  Value* sum = b.add(p.state[0], b.mul(g, g));
  Value* std = b.add(b.unary(OpCode::Sqrt, sum), k.f32(c.eps));
  p.param = b.add(p.param, b.div(b.mul(g, k.to_f32(b.unary(OpCode::Neg, clr))), std));
  p.new_state = {sum};
}

// State names per optimizer, suffixes of the parameter name.
std::vector<std::string> state_names(const OptimizerConfig& c) {
  if (c.type == "sgd") return c.momentum != 0 ? std::vector<std::string>{"momentum_buffer"}
                                              : std::vector<std::string>{};
  if (c.type == "adam" || c.type == "adamw") return {"exp_avg", "exp_avg_sq"};
  if (c.type == "rmsprop") {
    std::vector<std::string> names = {"square_avg"};
    if (c.momentum > 0) names.push_back("momentum_buffer");
    if (c.centered) names.push_back("grad_avg");
    return names;
  }
  return {"sum"};  // adagrad
}

// `base`, or `base_1`, `base_2`, ... if an argument of `f` already has the name
// (a model input may be called "step").
std::string unused_arg_name(const Function& f, const std::string& base) {
  std::unordered_set<std::string_view> taken;
  for (const Value* a : f.args) taken.insert(a->name);
  std::string name = base;
  for (int i = 1; taken.count(name); ++i) name = base + "_" + std::to_string(i);
  return name;
}

double initial_state(const OptimizerConfig& c) {
  return c.type == "adagrad" ? c.initial_accumulator_value : 0.0;
}

// The optimizer's update of every slot at train step `step` (`opt_step`: the
// updates taken, see Scalars), emitted at the end of `b`'s function: the
// learning rate, clipping, then each slot's param and new_state set to their
// updated values. The one emitter of the update formulas, for @train_step and
// @apply_update alike.
void emit_update(Builder& b, const OptimizerConfig& config, std::vector<Slot>& slots, Value* step, Value* opt_step,
                 Value* norms = nullptr) {
  const std::string& t = config.type;
  Scalars k(b, step, opt_step);
  Value* lr = learning_rate(k, config);
  Value* neg_lr = k.to_f32(b.unary(OpCode::Neg, lr));
  if (config.clip_grad_norm > 0) clip_gradients(k, slots, config.clip_grad_norm, norms);
  for (Slot& slot : slots) {
    // The update's ops are the optimizer's, for this parameter (what `mlc
    // plan`'s collective ledger names them by).
    b.set_scope("optimizer." + slot.param->name);
    if (t == "sgd") update_sgd(k, config, slot, neg_lr);
    else if (t == "adam" || t == "adamw") update_adam(k, config, slot, lr, t == "adamw");
    else if (t == "rmsprop") update_rmsprop(k, config, slot, neg_lr);
    else update_adagrad(k, config, slot, lr);
  }
  b.set_scope("");
}

}  // namespace

Expected<Function*> build_train_step(Module& module, const OptimizerConfig& config, const LossScaleConfig& loss_scale) {
  const std::string& t = config.type;
  if (t != "sgd" && t != "adam" && t != "adamw" && t != "rmsprop" && t != "adagrad")
    return make_error("error: optimizer: unknown type '" + t + "'");
  const Function* grad_fn = module.find("loss_grad");
  if (!grad_fn) return make_error("error: optimizer: the module has no @loss_grad (run autodiff first)");
  if (module.find("train_step")) return make_error("error: optimizer: @train_step already exists");
  std::unique_ptr<Function> owned = grad_fn->clone();
  Function& f = *owned;
  f.name = "train_step";

  std::vector<Slot> slots;
  size_t grad_index = 1;
  for (size_t i = 0; i < f.args.size(); ++i)
    if (f.arg_kinds[i] == ArgKind::param) slots.push_back({f.args[i], f.results[grad_index++], f.args[i], {}, {}});
  const std::vector<std::string> names = state_names(config);
  for (Slot& slot : slots)
    for (const std::string& n : names)
      slot.state.push_back(f.add_arg(slot.param->name + "." + n, slot.param->type, ArgKind::state));
  std::optional<LossScaling> scaling;
  if (loss_scale.enabled) {
    MLC_TRY(scaling, add_loss_scale_state(f));
  }
  // The forward may read the step already (dropout's random stream): one counter.
  Value* step = nullptr;
  for (size_t i = 0; i < f.args.size(); ++i)
    if (f.arg_kinds[i] == ArgKind::step) step = f.args[i];
  if (!step) step = f.add_arg(unused_arg_name(f, "step"), TensorType{DType::i64, {}}, ArgKind::step);
  // Buffer updates of the forward (after the gradients of @loss_grad) stay results.
  std::vector<Value*> buffer_results;
  std::vector<int> buffer_updates;
  for (size_t k = grad_index; k < f.results.size(); ++k) {
    buffer_results.push_back(f.results[k]);
    buffer_updates.push_back(f.updated_arg(k));
  }

  // Where each updated value goes back to: the param args, then their state.
  std::vector<int> updates = {-1};
  auto arg_index = [&](const Value* v) {
    for (size_t i = 0; i < f.args.size(); ++i)
      if (f.args[i] == v) return static_cast<int>(i);
    return -1;
  };
  for (Slot& slot : slots) updates.push_back(arg_index(slot.param));
  for (Slot& slot : slots)
    for (Value* v : slot.state) updates.push_back(arg_index(v));

  Builder b(f);
  Value* opt_step = step;
  if (scaling) {
    b.set_scope("grad_scaler");
    std::vector<Value*> grads;
    for (Slot& slot : slots) grads.push_back(slot.grad);
    unscale_gradients(b, *scaling, grads);
    for (size_t i = 0; i < slots.size(); ++i) slots[i].grad = grads[i];
    opt_step = b.sub(step, scaling->skipped);
    b.set_scope("");
  }
  emit_update(b, config, slots, step, opt_step);
  if (scaling) {
    // A step whose gradients overflowed changes nothing but the scaler.
    b.set_scope("grad_scaler");
    for (Slot& slot : slots) {
      slot.param = unless_skipped(b, *scaling, slot.param, slot.grad_source_param);
      for (size_t i = 0; i < slot.new_state.size(); ++i)
        slot.new_state[i] = unless_skipped(b, *scaling, slot.new_state[i], slot.state[i]);
    }
    b.set_scope("");
  }
  std::vector<Value*> results = {f.results[0]};
  for (Slot& slot : slots) results.push_back(slot.param);
  for (Slot& slot : slots)
    for (Value* v : slot.new_state) results.push_back(v);
  if (scaling) {
    b.set_scope("grad_scaler");
    for (Value* v : update_loss_scale(b, *scaling, loss_scale)) results.push_back(v);
    for (Value* v : {scaling->scale, scaling->growth_tracker, scaling->skipped}) updates.push_back(arg_index(v));
    b.set_scope("");
  }
  results.insert(results.end(), buffer_results.begin(), buffer_results.end());
  updates.insert(updates.end(), buffer_updates.begin(), buffer_updates.end());
  f.results = results;
  f.result_updates = updates;

  // Initial state, in the order of the {state} arguments: the scale (an
  // argument of @loss, so before the parameters' state), the parameters'
  // state, then the growth tracker and skip count.
  Function& init = module.add_function("optimizer_init");
  Builder ib(init);
  std::vector<Value*> scaler_init;
  if (scaling) scaler_init = initial_loss_scale_state(ib, loss_scale);
  if (scaling) init.results.push_back(scaler_init[0]);
  for (Slot& slot : slots)
    for (size_t i = 0; i < names.size(); ++i)
      init.results.push_back(ib.broadcast_to(ib.scalar(initial_state(config), slot.param->type.dtype),
                                             slot.param->type.shape));
  if (scaling) init.results.insert(init.results.end(), scaler_init.begin() + 1, scaler_init.end());
  module.functions.insert(module.functions.end() - 1, std::move(owned));
  return module.find("train_step");
}

Status build_update_functions(Module& module, const OptimizerConfig& config, const LossScaleConfig& loss_scale,
                              const SplitUpdate* split) {
  if (loss_scale.enabled)
    return make_error("error: optimizer: gradient accumulation with dynamic loss scaling (train.mixed_precision "
                      "with f16) is not supported: set train.grad_accumulation_steps to 1");
  const Function* grad_fn = module.find("loss_grad");
  if (!grad_fn) return make_error("error: optimizer: the module has no @loss_grad (run autodiff first)");
  if (module.find("apply_update") || module.find("accumulate_grads"))
    return make_error("error: optimizer: @apply_update or @accumulate_grads already exists");
  std::vector<const Value*> params;
  for (size_t i = 0; i < grad_fn->args.size(); ++i)
    if (grad_fn->arg_kinds[i] == ArgKind::param) params.push_back(grad_fn->args[i]);

  // @accumulate_grads: acc' = acc + g * grad_scale, in place.
  Function& acc = module.add_function("accumulate_grads");
  std::vector<Value*> sums, micro;
  for (const Value* p : params) sums.push_back(acc.add_arg(p->name + ".grad", p->type, ArgKind::state));
  for (const Value* p : params) micro.push_back(acc.add_arg(p->name + ".micro_grad", p->type, ArgKind::input));
  // Cannot clash with a gradient sum's name: those end in ".grad".
  Value* scale = acc.add_arg("grad_scale", TensorType{DType::f32, {}}, ArgKind::input);
  Builder ab(acc);
  for (size_t i = 0; i < params.size(); ++i) {
    Value* s = sums[i]->type.dtype == DType::f32 ? scale : ab.cast(scale, sums[i]->type.dtype);
    acc.results.push_back(ab.add(sums[i], ab.mul(micro[i], s)));
    acc.result_updates.push_back(static_cast<int>(i));
  }

  // @apply_update: @train_step's update, of gradients given as arguments.
  Function& f = module.add_function("apply_update");
  std::vector<Slot> slots;
  for (const Value* p : params) {
    Value* arg = f.add_arg(p->name, p->type, ArgKind::param);
    slots.push_back({arg, nullptr, arg, {}, {}});
  }
  for (size_t i = 0; i < params.size(); ++i) slots[i].grad = f.add_arg(params[i]->name + ".grad", params[i]->type, ArgKind::input);
  const std::vector<std::string> names = state_names(config);
  for (Slot& slot : slots)
    for (const std::string& n : names)
      slot.state.push_back(f.add_arg(slot.param->name + "." + n, slot.param->type, ArgKind::state));
  // A pipeline stage's part: the model's squared norms, summed over the stages.
  const bool split_clip = split && config.clip_grad_norm > 0;
  if (split_clip && split->norm_index.size() != params.size())
    return make_error("mlc internal error: optimizer: a split update of " + std::to_string(params.size()) +
                      " parameters with " + std::to_string(split->norm_index.size()) + " norm entries");
  const TensorType norms_type{DType::f32, {split ? split->norm_count : 0}};
  Value* norms = split_clip ? f.add_arg(std::string(kGradNormsArg), norms_type, ArgKind::input) : nullptr;
  Value* step = f.add_arg(unused_arg_name(f, "step"), TensorType{DType::i64, {}}, ArgKind::step);
  Builder b(f);
  emit_update(b, config, slots, step, step, norms);
  // Results: the params, then their state, each updating its argument.
  int arg = 0;
  for (Slot& slot : slots) {
    f.results.push_back(slot.param);
    f.result_updates.push_back(arg++);
  }
  arg += static_cast<int>(slots.size());  // the gradients
  for (Slot& slot : slots)
    for (Value* v : slot.new_state) {
      f.results.push_back(v);
      f.result_updates.push_back(arg++);
    }
  if (split_clip) {
    // @grad_norms(grad_norms {state}, <param>.grad...) -> grad_norms + this stage's entries, in place.
    Function& g = module.add_function("grad_norms");
    Value* acc = g.add_arg(std::string(kGradNormsArg), norms_type, ArgKind::state);
    std::vector<Value*> grads;
    for (const Value* p : params) grads.push_back(g.add_arg(p->name + ".grad", p->type, ArgKind::input));
    Builder gb(g);
    std::vector<Value*> entries(static_cast<size_t>(split->norm_count), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      const int64_t e = split->norm_index[i];
      if (e < 0) continue;
      if (e >= split->norm_count || entries[static_cast<size_t>(e)])
        return make_error("mlc internal error: optimizer: norm entry " + std::to_string(e) + " of '" + params[i]->name +
                          "' is out of range or taken");
      Value* sq = squared_norm(gb, grads[i]);
      entries[static_cast<size_t>(e)] = gb.reshape(sq->type.dtype == DType::f32 ? sq : gb.cast(sq, DType::f32), {1});
    }
    // Runs of other stages' entries as zeros; x + 0 is x, so the sum over the stages is exact.
    std::vector<Value*> pieces;
    for (int64_t e = 0; e < split->norm_count;) {
      if (entries[static_cast<size_t>(e)]) {
        pieces.push_back(entries[static_cast<size_t>(e++)]);
        continue;
      }
      int64_t end = e;
      while (end < split->norm_count && !entries[static_cast<size_t>(end)]) ++end;
      pieces.push_back(gb.broadcast_to(gb.scalar(0.0, DType::f32), {end - e}));
      e = end;
    }
    Value* mine = pieces.size() == 1 ? pieces[0] : gb.create(OpCode::Concat, pieces, {{"axis", int64_t{0}}});
    g.results.push_back(gb.add(acc, mine));
    g.result_updates.push_back(0);
  }
  return {};
}

Expected<bool> OptimizerPass::run(Module& module) {
  if (module.find("train_step")) return false;
  MLC_TRY(Function * f, build_train_step(module, config_, loss_scale_));
  (void)f;
  if (update_functions_) MLC_CHECK_OK(build_update_functions(module, config_, loss_scale_));
  return true;
}

}  // namespace mlc
