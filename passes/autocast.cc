#include "passes/autocast.h"

#include <iterator>
#include <map>
#include <unordered_map>

#include "ir/builder.h"
#include "ir/op_table.h"
#include "passes/autodiff.h"

namespace mlc {

namespace {

// The dtype both a and b convert to without loss: the wider one; bf16 with f16 is f32.
DType widest(DType a, DType b) {
  if (a == b) return a;
  if (a == DType::f64 || b == DType::f64) return DType::f64;
  return DType::f32;  // f32 with a half dtype, or bf16 with f16
}

enum class CastPolicy { lower_precision, fp32, promote, follow };

CastPolicy policy_of(OpCode code) {
  switch (code) {
    case OpCode::Dot:
    case OpCode::Conv2d: return CastPolicy::lower_precision;
    case OpCode::CrossEntropy:
    case OpCode::NllLoss:
    case OpCode::Mse:
    case OpCode::L1Loss:
    case OpCode::SmoothL1Loss:
    case OpCode::HuberLoss:
    case OpCode::BinaryCrossEntropy:
    case OpCode::BinaryCrossEntropyWithLogits:
    case OpCode::KlDiv:
    case OpCode::CosineEmbeddingLoss: return CastPolicy::fp32;
    default: return CastPolicy::promote;  // promote with one float operand is follow
  }
}

class Autocast {
 public:
  Autocast(const Function& f, const MixedPrecisionConfig& policy)
      : old_(f), policy_(policy), new_(std::make_unique<Function>(f.name)), b_(*new_) {}

  Expected<std::unique_ptr<Function>> run() {
    const bool cast_args = policy_.param != DType::f32;
    for (size_t i = 0; i < old_.args.size(); ++i) {
      const Value* a = old_.args[i];
      Value* n = new_->add_arg(a->name, a->type, old_.arg_kinds[i]);
      n->placements = a->placements;
      map_[a] = n;
    }
    for (size_t i = 0; i < old_.args.size(); ++i) {
      const ArgKind k = old_.arg_kinds[i];
      const bool forward_arg = k == ArgKind::param || k == ArgKind::frozen || k == ArgKind::input;
      if (cast_args && forward_arg && old_.args[i]->type.dtype == DType::f32)
        map_[old_.args[i]] = cast(map_[old_.args[i]], policy_.param);
    }
    for (const auto& op : old_.ops) MLC_CHECK_OK(rewrite(*op));
    b_.set_loc({});
    b_.set_scope("");
    for (const Value* r : old_.results) {
      Value* n = map_.at(r);
      new_->results.push_back(n->type.dtype == r->type.dtype ? n : cast(n, r->type.dtype));
    }
    new_->result_updates = old_.result_updates;
    return std::move(new_);
  }

 private:
  bool autocast_on() const { return policy_.compute != DType::f32; }

  Value* cast(Value* v, DType to) {
    if (v->type.dtype == to) return v;
    Value*& slot = casts_[{v, to}];
    if (!slot) slot = b_.create(OpCode::Cast, {v}, {}, TensorType{to, v->type.shape});
    return slot;
  }

  // A value torch would treat as a scalar: a constant, possibly reshaped or
  // broadcast, or any 0-d value. It takes the dtype of the other operands.
  static bool weak(const Value* v) {
    if (v->type.rank() == 0) return true;
    for (const Op* p = v->producer; p; p = p->operands.empty() ? nullptr : p->operands[0]->producer) {
      if (p->code == OpCode::Constant) return true;
      if (p->code != OpCode::Broadcast && p->code != OpCode::Reshape) return false;
    }
    return false;
  }

  // A parameter argument, possibly reshaped or broadcast (a layer's bias).
  bool parameter(const Value* v) const {
    while (v->producer && (v->producer->code == OpCode::Broadcast || v->producer->code == OpCode::Reshape))
      v = v->producer->operands[0];
    for (size_t i = 0; i < old_.args.size(); ++i)
      if (old_.args[i] == v) return old_.arg_kinds[i] == ArgKind::param || old_.arg_kinds[i] == ArgKind::frozen;
    return false;
  }

  // The operand index of the bias in `op`, an add of a lower-precision
  // dot/conv2d result and a parameter of the same layer scope; -1 if none.
  int bias_operand(const Op& op) const {
    if (!autocast_on() || op.code != OpCode::Add) return -1;
    for (int k = 0; k < 2; ++k) {
      const Op* c = op.operands[k]->producer;
      if (c && (c->code == OpCode::Dot || c->code == OpCode::Conv2d) && c->meta.scope == op.meta.scope &&
          !op.meta.scope.empty() && parameter(op.operands[1 - k]))
        return 1 - k;
    }
    return -1;
  }

  // The dtype the float operands of `op` are cast to (nullopt: left as they are).
  std::optional<DType> operand_dtype(const Op& op, const std::vector<Value*>& in) const {
    CastPolicy p = policy_of(op.code);
    if (p == CastPolicy::lower_precision && !autocast_on()) p = CastPolicy::promote;
    if (op.code == OpCode::Cast) return std::nullopt;
    if (p == CastPolicy::lower_precision) return policy_.compute;
    if (p == CastPolicy::fp32) return DType::f32;
    std::optional<DType> strong, any;
    const int bias = bias_operand(op);
    for (size_t k = 0; k < in.size(); ++k) {
      DType t = in[k]->type.dtype;
      if (!is_float(t)) continue;
      any = any ? widest(*any, t) : t;
      if (static_cast<int>(k) != bias && !weak(op.operands[k])) strong = strong ? widest(*strong, t) : t;
    }
    return strong ? strong : any;
  }

  Status rewrite(const Op& op) {
    b_.set_loc(op.loc);
    b_.set_scope(op.meta.scope);
    std::vector<Value*> in;
    for (const Value* v : op.operands) in.push_back(map_.at(v));
    std::optional<DType> target = operand_dtype(op, in);
    if (target)
      for (Value*& v : in)
        if (is_float(v->type.dtype)) v = cast(v, *target);
    // A composite on half operands runs in f32 and rounds its result once.
    const bool in_f32 = autocast_on() && target && is_half(*target) && op_info(op.code).is_composite() &&
                        !op_info(op.code).has(kMovement) && op.code != OpCode::Fusion &&
                        op.code != OpCode::Relu;  // exact in any dtype
    if (in_f32)
      for (Value*& v : in)
        if (is_float(v->type.dtype)) v = cast(v, DType::f32);
    // Result dtypes: a float result that had its operands' dtype gets theirs.
    std::optional<DType> old_follow, new_follow;
    for (size_t k = 0; k < op.operands.size(); ++k)
      if (is_float(op.operands[k]->type.dtype)) {
        old_follow = op.operands[k]->type.dtype;
        new_follow = in[k]->type.dtype;
        break;
      }
    std::vector<TensorType> declared;
    for (const Value* r : op.results) {
      TensorType t = r->type;
      if (op.code != OpCode::Cast && old_follow && t.dtype == *old_follow) t.dtype = *new_follow;
      declared.push_back(t);
    }
    auto made = b_.try_create_results(op.code, in, op.attrs, declared);
    if (!made)
      return make_error(op.loc.str() + (op.loc.known() ? ": " : "") + "mlc internal error: autocast: " +
                        made.error().message);
    for (size_t k = 0; k < op.results.size(); ++k) {
      Value* r = (*made)[k];
      if (in_f32 && r->type.dtype == DType::f32) r = cast(r, *target);
      map_[op.results[k]] = r;
    }
    return {};
  }

  const Function& old_;
  const MixedPrecisionConfig& policy_;
  std::unique_ptr<Function> new_;
  Builder b_;
  std::unordered_map<const Value*, Value*> map_;
  std::map<std::pair<Value*, DType>, Value*> casts_;
};

}  // namespace

Expected<std::unique_ptr<Function>> autocast_function(const Function& f, const MixedPrecisionConfig& policy) {
  return Autocast(f, policy).run();
}

Expected<bool> AutocastPass::run(Module& module) {
  bool changed = false;
  for (auto& f : module.functions) {
    if (f->name != "loss" && f->name != "eval") continue;
    if (policy_.param != DType::f32 || policy_.compute != DType::f32) {
      MLC_TRY(std::unique_ptr<Function> cast, autocast_function(*f, policy_));
      f = std::move(cast);
      changed = true;
    }
    if (f->name == "loss" && policy_.loss_scale.enabled) {
      for (const Value* a : f->args)
        if (a->name == kLossScaleArg)
          return make_error("error: autocast: @loss already has an argument %" + std::string(kLossScaleArg));
      f->add_arg(std::string(kLossScaleArg), TensorType{DType::f32, {}}, ArgKind::state);
      changed = true;
    }
  }
  return changed;
}

std::vector<PassOption> AutocastPass::options() {
  static const DType kDTypes[] = {DType::f32, DType::bf16, DType::f16};
  auto dtype_option = [](const char* name, DType* target, const char* help) {
    size_t current = 0;
    while (kDTypes[current] != *target && current + 1 < std::size(kDTypes)) ++current;
    return choice_option(name, {"f32", "bf16", "f16"}, current, [target](size_t i) { *target = kDTypes[i]; }, help);
  };
  return {dtype_option("compute", &policy_.compute, "dtype of matmuls, convolutions and their kin"),
          dtype_option("param", &policy_.param, "dtype parameters and inputs are cast to"),
          choice_option("loss_scale", {"none", "dynamic"}, policy_.loss_scale.enabled ? 1 : 0,
                        [this](size_t i) { policy_.loss_scale.enabled = i == 1; },
                        "dynamic: torch.amp.GradScaler's loss scaling")};
}

}  // namespace mlc
