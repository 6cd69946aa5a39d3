#include "passes/optimizer.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <unordered_set>

#include "ir/builder.h"
#include "passes/loss_scaling.h"
#include "passes/lr_plateau.h"
#include "passes/lr_schedule.h"
#include "passes/optimizer_rules.h"
#include "support/glob.h"

namespace mlc {

namespace {

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
  Value* coef = b.div(k.tensor(max_norm), b.add(total, k.tensor(1e-6)));
  coef = b.create(OpCode::Min, {coef, k.tensor(1.0)});
  for (Slot& slot : slots) slot.grad = b.mul(slot.grad, coef);
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

// Each slot's parameter group (OptimizerConfig::param_groups): the first
// group with a pattern matching its name, else `config`. A pattern that
// matches no parameter is an error at its group.
Status assign_groups(const OptimizerConfig& config, std::vector<Slot>& slots) {
  for (Slot& slot : slots) {
    slot.group = &config;
    for (const OptimizerConfig& g : config.param_groups)
      if (std::any_of(g.params.begin(), g.params.end(),
                      [&](const std::string& p) { return glob_match(p, slot.param->name); })) {
        slot.group = &g;
        break;
      }
  }
  for (size_t i = 0; i < config.param_groups.size(); ++i)
    for (const std::string& pattern : config.param_groups[i].params)
      if (std::none_of(slots.begin(), slots.end(), [&](const Slot& s) { return glob_match(pattern, s.param->name); })) {
        std::string names;
        for (const Slot& s : slots) names += (names.empty() ? "" : ", ") + s.param->name;
        const Loc& loc = config.param_groups[i].loc;
        return make_error((loc.known() ? loc.str() + ": " : std::string()) + "error: optimizer: param_groups[" +
                          std::to_string(i) + "]: the pattern '" + pattern +
                          "' matches no parameter (the parameters: " + names + ")");
      }
  return {};
}

// The state arguments of every slot, `<param>.<state name>`, added to `f`.
void add_state_args(Function& f, std::vector<Slot>& slots) {
  for (Slot& slot : slots)
    for (const StateSpec& s : state_specs(*slot.group))
      slot.state.push_back(f.add_arg(slot.param->name + "." + s.name,
                                     s.scalar ? TensorType{slot.param->type.dtype, {}} : slot.param->type,
                                     ArgKind::state));
}

// The optimizer's update of every slot at train step `step` (`opt_step`: the
// updates taken, see Scalars), emitted at the end of `b`'s function: the
// learning rate of each group, clipping, then each slot's param and new_state
// set to their updated values. The one emitter of the update formulas, for
// @train_step and @apply_update alike.
// With `plateau` lrs (passes/lr_plateau.h) each group's lr is its argument.
Status emit_update(Builder& b, const OptimizerConfig& config, std::vector<Slot>& slots, Value* step, Value* opt_step,
                   const PlateauArgs& plateau, Value* norms = nullptr) {
  // The parameters' dtype: f32, or f64 for an f64 model (all of one dtype).
  const DType tensors = slots.empty() ? DType::f32 : slots.front().param->type.dtype;
  Scalars k(b, step, opt_step, tensors == DType::f64 ? DType::f64 : DType::f32);
  // Each group's lr (f64) and -lr in the parameters' dtype, built where first needed.
  struct GroupLr {
    const OptimizerConfig* group;
    Value* lr;
    Value* neg_lr;
  };
  std::vector<GroupLr> lrs;
  auto lr_of = [&](const OptimizerConfig* group) -> Expected<GroupLr> {
    for (const GroupLr& l : lrs)
      if (l.group == group) return l;
    ScheduledValues v;
    if (!plateau.lrs.empty()) {
      v.lr = plateau.lrs[group == &config ? 0 : static_cast<size_t>(group - config.param_groups.data()) + 1];
    } else {
      MLC_TRY(v, scheduled_values(b, config, group->lr, step));
    }
    if (v.momentum) k.momentum = v.momentum;
    lrs.push_back({group, v.lr, k.to_tensor(b.unary(OpCode::Neg, v.lr))});
    return lrs.back();
  };
  MLC_CHECK_OK(lr_of(&config));
  if (config.clip_grad_norm > 0) clip_gradients(k, slots, config.clip_grad_norm, norms);
  for (Slot& slot : slots) {
    MLC_TRY(GroupLr l, lr_of(slot.group));
    // The update's ops are the optimizer's, for this parameter (what `mlc
    // plan`'s collective ledger names them by).
    b.set_scope("optimizer." + slot.param->name);
    update_parameter(k, slot, l.lr, l.neg_lr);
  }
  b.set_scope("");
  return {};
}

}  // namespace

Expected<Function*> build_train_step(Module& module, const OptimizerConfig& config, const LossScaleConfig& loss_scale) {
  const std::string& t = config.type;
  if (t != "sgd" && t != "adam" && t != "adamw" && t != "rmsprop" && t != "adagrad" && t != "adadelta" &&
      t != "adamax" && t != "nadam" && t != "radam")
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
  MLC_CHECK_OK(assign_groups(config, slots));
  add_state_args(f, slots);
  const PlateauArgs plateau = add_plateau_args(f, config);
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
  MLC_CHECK_OK(emit_update(b, config, slots, step, opt_step, plateau));
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
    for (const StateSpec& s : state_specs(*slot.group)) {
      Value* v = ib.scalar(s.initial, slot.param->type.dtype);
      init.results.push_back(s.scalar ? v : ib.broadcast_to(v, slot.param->type.shape));
    }
  add_plateau_initial_state(ib, config, init.results);
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
  MLC_CHECK_OK(assign_groups(config, slots));
  add_state_args(f, slots);
  const PlateauArgs plateau = add_plateau_args(f, config);
  // A pipeline stage's part: the model's squared norms, summed over the stages.
  const bool split_clip = split && config.clip_grad_norm > 0;
  if (split_clip && split->norm_index.size() != params.size())
    return make_error("mlc internal error: optimizer: a split update of " + std::to_string(params.size()) +
                      " parameters with " + std::to_string(split->norm_index.size()) + " norm entries");
  const TensorType norms_type{DType::f32, {split ? split->norm_count : 0}};
  Value* norms = split_clip ? f.add_arg(std::string(kGradNormsArg), norms_type, ArgKind::input) : nullptr;
  Value* step = f.add_arg(unused_arg_name(f, "step"), TensorType{DType::i64, {}}, ArgKind::step);
  Builder b(f);
  MLC_CHECK_OK(emit_update(b, config, slots, step, step, plateau, norms));
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
  // LBFGS re-evaluates @loss_grad within its step: the driver runs it (driver/lbfgs.h).
  if (config_.type == "lbfgs" || module.find("train_step")) return false;
  MLC_TRY(Function * f, build_train_step(module, config_, loss_scale_));
  (void)f;
  if (update_functions_) MLC_CHECK_OK(build_update_functions(module, config_, loss_scale_));
  return true;
}

}  // namespace mlc
