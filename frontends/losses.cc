#include "frontends/losses.h"

#include <algorithm>
#include <numeric>

#include "frontends/emit_util.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

struct LossRow {
  std::string_view name;
  OpCode code;
};
// The functional names and their ops; cross_entropy's general form is nll_loss
// over log_softmax (emit_cross_entropy).
constexpr LossRow kLosses[] = {
    {"cross_entropy", OpCode::CrossEntropy},
    {"nll_loss", OpCode::NllLoss},
    {"mse_loss", OpCode::Mse},
    {"l1_loss", OpCode::L1Loss},
    {"smooth_l1_loss", OpCode::SmoothL1Loss},
    {"huber_loss", OpCode::HuberLoss},
    {"binary_cross_entropy", OpCode::BinaryCrossEntropy},
    {"binary_cross_entropy_with_logits", OpCode::BinaryCrossEntropyWithLogits},
    {"kl_div", OpCode::KlDiv},
    {"cosine_embedding_loss", OpCode::CosineEmbeddingLoss},
};

std::vector<int64_t> all_dims(const Value* v) {
  std::vector<int64_t> dims(static_cast<size_t>(v->type.rank()));
  std::iota(dims.begin(), dims.end(), int64_t{0});
  return dims;
}

// The reduction of per-element losses as apply_loss_reduction does it.
Expected<Value*> reduce(Builder& b, Value* x, const std::string& reduction) {
  if (reduction == "none") return x;
  MLC_TRY(Value* sum, emit_op(b, OpCode::ReduceSum, {x}, {{"dims", all_dims(x)}, {"keepdim", false}}));
  if (reduction == "sum") return sum;
  MLC_TRY(Value* n, emit_scalar(b, static_cast<double>(x->type.num_elements()), x->type.dtype));
  return emit_op(b, OpCode::Div, {sum, n});
}

Expected<Value*> scalar_like(Builder& b, double v, const Value* like) { return emit_scalar(b, v, like->type.dtype); }

// Per position, weight[target] (0 for a target outside [0, C)): a one-hot sum
// over logits_shape's last dim.
Expected<Value*> weight_at_target(Builder& b, Value* weight, Value* targets, const Shape& logits_shape) {
  const int64_t axis = static_cast<int64_t>(logits_shape.size()) - 1;
  MLC_TRY(Value* classes, emit_iota(b, TensorType{targets->type.dtype, logits_shape}, axis));
  Shape keep = targets->type.shape;
  keep.push_back(1);
  MLC_TRY(Value* t, emit_reshape(b, targets, keep));
  MLC_TRY(Value* hit, emit_op(b, OpCode::Compare, {classes, t}, {{"direction", std::string("eq")}}));
  MLC_TRY(Value* zero, scalar_like(b, 0, weight));
  MLC_TRY(Value* picked, emit_op(b, OpCode::Select, {hit, weight, zero}));
  return emit_op(b, OpCode::ReduceSum, {picked}, {{"dims", std::vector<int64_t>{axis}}, {"keepdim", false}});
}

// Cross entropy's label-smoothing term (PyTorch 1.13's cross_entropy): per
// position -sum_c logp[c] (times weight[c]), 0 where ignored; its mean divides by
// the kept positions' weights (their count without a weight).
Expected<Value*> smoothing_term(Builder& b, Value* logp, Value* targets, const LossArgs& args, Value* kept) {
  const int64_t axis = logp->type.rank() - 1;
  Value* terms = logp;
  if (args.weight) {
    MLC_TRY(terms, emit_op(b, OpCode::Mul, {logp, args.weight}));
  }
  MLC_TRY(Value* sum, emit_op(b, OpCode::ReduceSum, {terms}, {{"dims", std::vector<int64_t>{axis}}, {"keepdim", false}}));
  MLC_TRY(Value* smooth, emit_op(b, OpCode::Neg, {sum}));
  MLC_TRY(Value* zero, scalar_like(b, 0, logp));
  if (kept) {
    MLC_TRY(smooth, emit_op(b, OpCode::Select, {kept, smooth, zero}));
  }
  if (args.reduction != "mean") return reduce(b, smooth, args.reduction);
  Value* counted;
  if (args.weight) {
    MLC_TRY(counted, weight_at_target(b, args.weight, targets, logp->type.shape));
  } else {
    MLC_TRY(counted, scalar_like(b, 1, logp));
    MLC_TRY(counted, b.try_create(OpCode::Broadcast, {counted}, {{"dims", std::vector<int64_t>{}}},
                                  TensorType{logp->type.dtype, targets->type.shape}));
  }
  if (kept) {
    MLC_TRY(counted, emit_op(b, OpCode::Select, {kept, counted, zero}));
  }
  MLC_TRY(Value* total, reduce(b, smooth, "sum"));
  MLC_TRY(Value* denominator, reduce(b, counted, "sum"));
  return emit_op(b, OpCode::Div, {total, denominator});
}

Expected<Value*> emit_class_loss(Builder& b, std::string_view name, Value* input, Value* targets,
                                 const LossArgs& args, const std::string& what, const Loc& at) {
  if (!is_float(input->type.dtype) || input->type.rank() == 0)
    return error_at(at, what + ": expected float scores of rank >= 1 (classes along " +
                            (args.class_dim_1 ? "dim 1" : "the last dim") + "), found " + input->type.str());
  if (!is_integer(targets->type.dtype))
    return error_at(at, what + ": targets must be class indices (i32 or i64), found " + targets->type.str() +
                            (is_float(targets->type.dtype) ? " (class probabilities as targets are not supported)" : ""));
  const int64_t rank = input->type.rank();
  if (args.class_dim_1 && rank >= 3) {  // [N, C, d1, ...] -> [N, d1, ..., C]
    std::vector<int64_t> perm{0};
    for (int64_t d = 2; d < rank; ++d) perm.push_back(d);
    perm.push_back(1);
    MLC_TRY(input, emit_transpose(b, input, perm));
  }
  const int64_t classes = input->type.shape.back();
  Shape expected(input->type.shape.begin(), input->type.shape.end() - 1);
  if (targets->type.shape != expected)
    return error_at(at, what + ": targets must have shape " + shape_to_string(expected) + " (the input " +
                            input->type.str() + " without its class dim), found " + targets->type.str());
  if (args.weight && (args.weight->type != TensorType{input->type.dtype, {classes}}))
    return error_at(at, what + ": weight must be " + TensorType{input->type.dtype, {classes}}.str() +
                            " (one per class), found " + args.weight->type.str());
  if (args.label_smoothing < 0 || args.label_smoothing > 1)
    return error_at(at, what + ": label_smoothing must be in [0, 1], found " + float_to_string(args.label_smoothing));
  const bool cross = name == "cross_entropy";
  Attrs attrs{{"reduction", args.reduction}};
  if (cross && !args.weight && !args.ignore_index && args.label_smoothing == 0)
    return emit_op(b, OpCode::CrossEntropy, {input, targets}, attrs);
  Value* logp = input;
  if (cross) {
    MLC_TRY(logp, emit_op(b, OpCode::LogSoftmax, {input}, {{"axis", rank - 1}}));
  }
  const int64_t ignore = args.ignore_index.value_or(-100);
  attrs.set("ignore_index", ignore);
  std::vector<Value*> operands{logp, targets};
  if (args.weight) operands.push_back(args.weight);
  MLC_TRY(Value* nll, emit_op(b, OpCode::NllLoss, operands, attrs));
  if (!cross || args.label_smoothing == 0) return nll;
  Value* kept = nullptr;
  if (args.ignore_index) {
    MLC_TRY(Value* ig, emit_scalar(b, static_cast<double>(ignore), targets->type.dtype));
    MLC_TRY(kept, emit_op(b, OpCode::Compare, {targets, ig}, {{"direction", std::string("ne")}}));
  }
  MLC_TRY(Value* smooth, smoothing_term(b, logp, targets, args, kept));
  MLC_TRY(Value* keep_share, scalar_like(b, 1 - args.label_smoothing, nll));
  MLC_TRY(Value* smooth_share, scalar_like(b, args.label_smoothing / static_cast<double>(classes), nll));
  MLC_TRY(Value* a, emit_op(b, OpCode::Mul, {nll, keep_share}));
  MLC_TRY(Value* c, emit_op(b, OpCode::Mul, {smooth, smooth_share}));
  return emit_op(b, OpCode::Add, {a, c});
}

}  // namespace

const std::vector<std::string>& loss_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const LossRow& r : kLosses) n.emplace_back(r.name);
    return n;
  }();
  return names;
}

bool is_class_index_loss(std::string_view name) { return name == "cross_entropy" || name == "nll_loss"; }

int loss_arity(std::string_view name) { return name == "cosine_embedding_loss" ? 3 : 2; }

Expected<Value*> emit_loss(Builder& b, std::string_view name, const std::vector<Value*>& tensors,
                           const LossArgs& args, const std::string& what, const Loc& at) {
  const LossRow* row = nullptr;
  for (const LossRow& r : kLosses)
    if (r.name == name) row = &r;
  if (!row || static_cast<int>(tensors.size()) != loss_arity(name))
    return error_at(at, "mlc internal error: no loss " + squote(name) + " of " + std::to_string(tensors.size()) +
                            " tensors");
  if (is_class_index_loss(name)) return emit_class_loss(b, name, tensors[0], tensors[1], args, what, at);
  Value* input = tensors[0];
  if (!is_float(input->type.dtype))
    return error_at(at, what + ": expected a float input, found " + input->type.str());
  // The target (cosine_embedding_loss: the second input; its targets are 1 or -1 of any dtype).
  const size_t same_type = name == "cosine_embedding_loss" ? 2 : tensors.size();
  for (size_t i = 1; i < same_type; ++i)
    if (tensors[i]->type != input->type)
      return error_at(at, what + ": the target must have the input's type " + input->type.str() + ", found " +
                              tensors[i]->type.str());
  Attrs attrs{{"reduction", args.reduction}};
  if (row->code == OpCode::SmoothL1Loss) {
    if (args.beta < 0) return error_at(at, what + ": beta must be >= 0, found " + float_to_string(args.beta));
    attrs.set("beta", args.beta);
  }
  if (row->code == OpCode::HuberLoss) {
    if (args.delta <= 0) return error_at(at, what + ": delta must be > 0, found " + float_to_string(args.delta));
    attrs.set("delta", args.delta);
  }
  if (row->code == OpCode::KlDiv) attrs.set("log_target", args.log_target);
  if (row->code == OpCode::CosineEmbeddingLoss) attrs.set("margin", args.margin);
  std::vector<Value*> operands = tensors;
  if (args.pos_weight) operands.push_back(args.pos_weight);
  const bool weighted = args.weight != nullptr;
  if (weighted) {  // binary cross entropy: weight * per-element loss, then the reduction
    auto s = broadcast_shapes(input->type.shape, args.weight->type.shape);
    if (args.weight->type.dtype != input->type.dtype || !s || *s != input->type.shape)
      return error_at(at, what + ": weight " + args.weight->type.str() + " must be " +
                              std::string(dtype_name(input->type.dtype)) + " and broadcast to the input " +
                              input->type.str());
    attrs.set("reduction", std::string("none"));
  }
  MLC_TRY(Value* loss, emit_op(b, row->code, operands, attrs));
  if (!weighted) return loss;
  MLC_TRY(loss, emit_op(b, OpCode::Mul, {loss, args.weight}));
  return reduce(b, loss, args.reduction);
}

}  // namespace mlc
