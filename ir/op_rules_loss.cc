// Rules of the loss composites (ir/ops.def, "losses"): attributes, inference
// and the decompositions that define them, PyTorch 1.13's formulas operation
// for operation (aten/src/ATen/native/Loss.cpp, LossNLL.cpp), so that values
// agree with PyTorch's to f32 rounding and gradients follow by autodiff.
#include <cmath>

#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

namespace {
AttrSpec reduction_spec() { return {"reduction", AttrKind::String, AttrValue{std::string("mean")}}; }
}  // namespace

const std::vector<AttrSpec>& attrs_reduction() {
  static const std::vector<AttrSpec> specs = {reduction_spec()};
  return specs;
}
const std::vector<AttrSpec>& attrs_nll_loss() {
  static const std::vector<AttrSpec> specs = {reduction_spec(), {"ignore_index", AttrKind::Int, AttrValue{int64_t{-100}}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_smooth_l1() {
  static const std::vector<AttrSpec> specs = {reduction_spec(), {"beta", AttrKind::Float, AttrValue{1.0}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_huber() {
  static const std::vector<AttrSpec> specs = {reduction_spec(), {"delta", AttrKind::Float, AttrValue{1.0}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_kl_div() {
  static const std::vector<AttrSpec> specs = {reduction_spec(), {"log_target", AttrKind::Bool, AttrValue{false}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_cosine_embedding() {
  static const std::vector<AttrSpec> specs = {reduction_spec(), {"margin", AttrKind::Float, AttrValue{0.0}}};
  return specs;
}

namespace {

// The loss's type: `elementwise` for "none", else a scalar; mean needs elements.
Expected<TensorType> reduced(const InferContext& ctx, const TensorType& elementwise, DType dtype) {
  const std::string& r = ctx.attrs.get_string("reduction");
  const bool batchmean = r == "batchmean" && ctx.op_name == "kl_div";
  if (r != "mean" && r != "sum" && r != "none" && !batchmean)
    return infer_error(ctx, "reduction must be \"mean\", \"sum\" or \"none\"" +
                                std::string(ctx.op_name == "kl_div" ? " or \"batchmean\"" : "") + ", got \"" + r + "\"");
  if (r == "none") return TensorType{dtype, elementwise.shape};
  if (r == "mean" && elementwise.num_elements() == 0)
    return infer_error(ctx, "mean over zero elements of " + elementwise.str());
  if (batchmean && elementwise.rank() > 0 && elementwise.shape[0] == 0)
    return infer_error(ctx, "batchmean over a dim 0 of size 0 in " + elementwise.str());
  return TensorType{dtype, {}};
}

Status require_same_type(const InferContext& ctx, size_t a, size_t b, const char* what_a, const char* what_b) {
  if (ctx.operand(a) != ctx.operand(b))
    return infer_error(ctx, std::string(what_a) + " " + ctx.operand(a).str() + " and " + what_b + " " +
                                ctx.operand(b).str() + " must have the same type");
  return {};
}

Status require_arity(const InferContext& ctx, size_t lo, size_t hi) {
  if (ctx.operands.size() < lo || ctx.operands.size() > hi)
    return infer_error(ctx, "takes " + std::to_string(lo) + " or " + std::to_string(hi) + " operands, got " +
                                std::to_string(ctx.operands.size()));
  return {};
}

// Class-index losses: logits [..., C] and targets [...] of an integer dtype.
Status check_class_targets(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  const TensorType& logits = ctx.operand(0);
  const TensorType& targets = ctx.operand(1);
  if (!is_integer(targets.dtype))
    return infer_error(ctx, "targets must be class indices (i32 or i64), got " + targets.str());
  Shape expected(logits.shape.begin(), logits.shape.end() - (logits.rank() ? 1 : 0));
  if (logits.rank() < 1 || targets.shape != expected)
    return infer_error(ctx, "targets " + targets.str() + " must have the shape of logits " + logits.str() +
                                " without its last (class) dim");
  if (logits.shape.back() == 0) return infer_error(ctx, "logits " + logits.str() + " have no classes");
  return {};
}

}  // namespace

Expected<TensorType> infer_cross_entropy(const InferContext& ctx) {
  MLC_CHECK_OK(check_class_targets(ctx));
  return reduced(ctx, ctx.operand(1), ctx.operand(0).dtype);
}

Expected<TensorType> infer_nll_loss(const InferContext& ctx) {
  MLC_CHECK_OK(require_arity(ctx, 2, 3));
  MLC_CHECK_OK(check_class_targets(ctx));
  const TensorType& logp = ctx.operand(0);
  if (ctx.operands.size() == 3 && ctx.operand(2) != TensorType{logp.dtype, {logp.shape.back()}})
    return infer_error(ctx, "weight must be " + TensorType{logp.dtype, {logp.shape.back()}}.str() +
                                " (one per class of " + logp.str() + "), got " + ctx.operand(2).str());
  return reduced(ctx, ctx.operand(1), logp.dtype);
}

Expected<TensorType> infer_pointwise_loss(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  MLC_CHECK_OK(require_same_type(ctx, 0, 1, "prediction", "target"));
  return reduced(ctx, ctx.operand(0), ctx.operand(0).dtype);
}

Expected<TensorType> infer_bce_with_logits(const InferContext& ctx) {
  MLC_CHECK_OK(require_arity(ctx, 2, 3));
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  MLC_CHECK_OK(require_same_type(ctx, 0, 1, "input", "target"));
  const TensorType& x = ctx.operand(0);
  if (ctx.operands.size() == 3) {
    const TensorType& pw = ctx.operand(2);
    auto s = broadcast_shapes(x.shape, pw.shape);
    if (pw.dtype != x.dtype || !s || *s != x.shape)
      return infer_error(ctx, "pos_weight " + pw.str() + " must be " + std::string(dtype_name(x.dtype)) +
                                  " and broadcast to the input " + x.str());
  }
  return reduced(ctx, x, x.dtype);
}

Expected<TensorType> infer_kl_div(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  MLC_CHECK_OK(require_same_type(ctx, 0, 1, "input", "target"));
  return reduced(ctx, ctx.operand(0), ctx.operand(0).dtype);
}

Expected<TensorType> infer_cosine_embedding(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  MLC_CHECK_OK(require_same_type(ctx, 0, 1, "input1", "input2"));
  const TensorType& x = ctx.operand(0);
  const TensorType& y = ctx.operand(2);
  if (x.rank() != 1 && x.rank() != 2)
    return infer_error(ctx, "inputs must be [N, D] or [D], got " + x.str());
  Shape expected(x.shape.begin(), x.shape.end() - 1);
  if (y.dtype == DType::boolean || y.shape != expected)
    return infer_error(ctx, "target must be a numeric tensor of shape " + shape_to_string(expected) +
                                " (1 or -1 per pair of " + x.str() + "), got " + y.str());
  return reduced(ctx, y, x.dtype);
}

// ---- decompositions

namespace {

Value* splat(Builder& b, double v, const Value* like) { return b.scalar(v, like->type.dtype); }

// The reduction of per-element losses x: x itself ("none"), the sum, the sum
// over the element count ("mean") or over dim 0's size ("batchmean").
Value* reduce_loss(Builder& b, Value* x, const std::string& reduction) {
  if (reduction == "none") return x;
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < x->type.rank(); ++i) dims.push_back(i);
  Value* sum = b.reduce_sum(x, dims, false);
  if (reduction == "sum") return sum;
  if (reduction == "batchmean") return x->type.rank() ? b.div(sum, splat(b, static_cast<double>(x->type.shape[0]), x)) : sum;
  return b.div(sum, splat(b, static_cast<double>(x->type.num_elements()), x));
}
Value* reduce_loss(Builder& b, Value* x, const Op& op) { return reduce_loss(b, x, op.attrs.get_string("reduction")); }

// Per position, the entry of `table` [..., C] (broadcast over the leading dims)
// at the target class, 0 for a target outside [0, C): a one-hot sum.
Value* at_target(Builder& b, Value* table, Value* targets, const Shape& logits_shape) {
  const int64_t axis = static_cast<int64_t>(logits_shape.size()) - 1;
  Value* classes = b.iota(TensorType{targets->type.dtype, logits_shape}, axis);
  Shape keep = targets->type.shape;
  keep.push_back(1);
  Value* hit = b.compare(classes, b.reshape(targets, keep), "eq");
  return b.reduce_sum(b.select(hit, table, splat(b, 0, table)), {axis}, false);
}

Value* difference_magnitude(Builder& b, const Op& op) {
  return b.unary(OpCode::Abs, b.sub(op.operands[0], op.operands[1]));
}

}  // namespace

Value* decompose_cross_entropy(Builder& b, const Op& op) {
  Value* logits = op.operands[0];
  Value* logp = b.create(OpCode::LogSoftmax, {logits}, {{"axis", last_axis(logits)}});
  Value* nll = b.unary(OpCode::Neg, at_target(b, logp, op.operands[1], logits->type.shape));
  return reduce_loss(b, nll, op);
}

Value* decompose_nll_loss(Builder& b, const Op& op) {
  Value* logp = op.operands[0];
  Value* targets = op.operands[1];
  const Shape& shape = logp->type.shape;
  Value* picked = at_target(b, logp, targets, shape);
  Value* weight = op.operands.size() == 3 ? at_target(b, b.broadcast_to(op.operands[2], shape), targets, shape) : nullptr;
  Value* loss = b.unary(OpCode::Neg, weight ? b.mul(weight, picked) : picked);
  Value* kept = b.compare(targets, b.scalar(static_cast<double>(op.attrs.get_int("ignore_index")), targets->type.dtype), "ne");
  Value* zero = splat(b, 0, logp);
  loss = b.select(kept, loss, zero);
  const std::string& reduction = op.attrs.get_string("reduction");
  if (reduction != "mean") return reduce_loss(b, loss, reduction);
  // The mean over the weights of the positions kept: sum / sum of weights.
  Value* counted = b.select(kept, weight ? weight : splat(b, 1, logp), zero);
  counted = b.broadcast_to(counted, targets->type.shape);
  return b.div(reduce_loss(b, loss, "sum"), reduce_loss(b, counted, "sum"));
}

Value* decompose_mse(Builder& b, const Op& op) {
  Value* d = b.sub(op.operands[0], op.operands[1]);
  return reduce_loss(b, b.mul(d, d), op);
}

Value* decompose_l1_loss(Builder& b, const Op& op) { return reduce_loss(b, difference_magnitude(b, op), op); }

Value* decompose_smooth_l1_loss(Builder& b, const Op& op) {
  Value* z = difference_magnitude(b, op);
  const double beta = op.attrs.get_float("beta");
  if (beta == 0) return reduce_loss(b, z, op);  // PyTorch: l1_loss
  Value* beta_v = splat(b, beta, z);
  Value* quadratic = b.div(b.mul(b.mul(splat(b, 0.5, z), z), z), beta_v);
  Value* linear = b.sub(z, splat(b, 0.5 * beta, z));
  return reduce_loss(b, b.select(b.compare(z, beta_v, "lt"), quadratic, linear), op);
}

Value* decompose_huber_loss(Builder& b, const Op& op) {
  Value* z = difference_magnitude(b, op);
  const double delta = op.attrs.get_float("delta");
  Value* delta_v = splat(b, delta, z);
  Value* quadratic = b.mul(b.mul(splat(b, 0.5, z), z), z);
  Value* linear = b.mul(delta_v, b.sub(z, splat(b, 0.5 * delta, z)));
  return reduce_loss(b, b.select(b.compare(z, delta_v, "lt"), quadratic, linear), op);
}

Value* decompose_binary_cross_entropy(Builder& b, const Op& op) {
  Value* p = op.operands[0];
  Value* y = op.operands[1];
  Value* one = splat(b, 1, p);
  Value* floor = splat(b, -100, p);
  Value* log_q = b.max(b.unary(OpCode::Log, b.sub(one, p)), floor);
  Value* log_p = b.max(b.unary(OpCode::Log, p), floor);
  return reduce_loss(b, b.sub(b.mul(b.sub(y, one), log_q), b.mul(y, log_p)), op);
}

Value* decompose_bce_with_logits(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* y = op.operands[1];
  Value* one = splat(b, 1, x);
  Value* m = b.max(b.unary(OpCode::Neg, x), splat(b, 0, x));
  Value* neg_m = b.unary(OpCode::Neg, m);
  Value* l = b.unary(OpCode::Log, b.add(b.unary(OpCode::Exp, neg_m),
                                        b.unary(OpCode::Exp, b.sub(b.unary(OpCode::Neg, x), m))));
  Value* linear = b.mul(b.sub(one, y), x);
  Value* loss;
  if (op.operands.size() == 3) {
    Value* log_weight = b.add(b.mul(b.sub(op.operands[2], one), y), one);
    loss = b.add(linear, b.mul(log_weight, b.add(l, m)));
  } else {
    loss = b.add(b.add(linear, m), l);
  }
  return reduce_loss(b, loss, op);
}

Value* decompose_kl_div(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* t = op.operands[1];
  Value* loss;
  if (op.attrs.get_bool("log_target")) {
    loss = b.mul(b.unary(OpCode::Exp, t), b.sub(t, x));
  } else {
    // xlogy(t, t): t * log(t), 0 where t == 0 (log of 1 there keeps the gradient finite).
    Value* safe = b.select(b.compare(t, splat(b, 0, t), "eq"), splat(b, 1, t), t);
    loss = b.sub(b.mul(t, b.unary(OpCode::Log, safe)), b.mul(t, x));
  }
  return reduce_loss(b, loss, op);
}

Value* decompose_cosine_embedding(Builder& b, const Op& op) {
  Value* x1 = op.operands[0];
  Value* x2 = op.operands[1];
  Value* y = op.operands[2];
  const int64_t d = last_axis(x1);
  Value* eps = splat(b, 1e-12, x1);
  Value* prod = b.reduce_sum(b.mul(x1, x2), {d}, false);
  Value* mag1 = b.add(b.reduce_sum(b.mul(x1, x1), {d}, false), eps);
  Value* mag2 = b.add(b.reduce_sum(b.mul(x2, x2), {d}, false), eps);
  Value* cos = b.div(prod, b.unary(OpCode::Sqrt, b.mul(mag1, mag2)));
  Value* zero = splat(b, 0, x1);
  Value* pos = b.sub(splat(b, 1, x1), cos);
  Value* neg = b.max(b.sub(cos, splat(b, op.attrs.get_float("margin"), x1)), zero);
  Value* out_pos = b.select(b.compare(y, b.scalar(1, y->type.dtype), "eq"), pos, zero);
  Value* out_neg = b.select(b.compare(y, b.scalar(-1, y->type.dtype), "eq"), neg, zero);
  return reduce_loss(b, b.add(out_pos, out_neg), op);
}

}  // namespace mlc::rules
