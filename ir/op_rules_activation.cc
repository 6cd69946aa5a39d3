// Rules of the activation composites (log1p, leaky_relu, elu, softplus,
// hardswish, mish) and cumsum: attributes, inference, and the decompositions
// that define them (PyTorch 1.13's CPU kernels, operation for operation, so
// that the forward values agree with PyTorch's to f32 rounding).
#include <algorithm>
#include <cmath>

#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

const std::vector<AttrSpec>& attrs_leaky_relu() {
  static const std::vector<AttrSpec> specs = {{"negative_slope", AttrKind::Float, AttrValue{0.01}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_elu() {
  static const std::vector<AttrSpec> specs = {{"alpha", AttrKind::Float, AttrValue{1.0}},
                                              {"scale", AttrKind::Float, AttrValue{1.0}},
                                              {"input_scale", AttrKind::Float, AttrValue{1.0}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_softplus() {
  static const std::vector<AttrSpec> specs = {{"beta", AttrKind::Float, AttrValue{1.0}},
                                              {"threshold", AttrKind::Float, AttrValue{20.0}}};
  return specs;
}

Expected<TensorType> infer_cumsum(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  const TensorType& x = ctx.operand(0);
  if (!normalize_axis(ctx.attrs.get_int("axis"), std::max<int64_t>(x.rank(), 1)))
    return infer_error(ctx, "axis " + std::to_string(ctx.attrs.get_int("axis")) + " out of range for " + x.str());
  return x;
}

namespace {
Value* splat(Builder& b, double v, const Value* like) { return b.scalar(v, like->type.dtype); }
}  // namespace

Value* decompose_log1p(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* one = splat(b, 1, x);
  Value* w = b.add(one, x);
  // log(w) * (x / (w - 1)): the rounding of 1 + x cancels (Goldberg, "What every
  // computer scientist should know about floating-point arithmetic", theorem 4).
  Value* accurate = b.mul(b.unary(OpCode::Log, w), b.div(x, b.sub(w, one)));
  Value* tiny = b.compare(w, one, "eq");
  Value* infinite = b.compare(x, splat(b, INFINITY, x), "eq");
  return b.select(infinite, x, b.select(tiny, x, accurate));
}

Value* decompose_leaky_relu(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* slope = splat(b, op.attrs.get_float("negative_slope"), x);
  return b.select(b.compare(x, splat(b, 0, x), "gt"), x, b.mul(x, slope));
}

Value* decompose_elu(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  const double alpha = op.attrs.get_float("alpha"), scale = op.attrs.get_float("scale");
  Value* scaled = b.mul(x, splat(b, op.attrs.get_float("input_scale"), x));
  Value* negative = b.mul(b.sub(b.unary(OpCode::Exp, scaled), splat(b, 1, x)), splat(b, alpha * scale, x));
  Value* positive = b.mul(x, splat(b, scale, x));
  return b.select(b.compare(x, splat(b, 0, x), "le"), negative, positive);
}

Value* decompose_softplus(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* beta = splat(b, op.attrs.get_float("beta"), x);
  Value* bx = b.mul(x, beta);
  Value* soft = b.div(b.unary(OpCode::Log1p, b.unary(OpCode::Exp, bx)), beta);
  return b.select(b.compare(bx, splat(b, op.attrs.get_float("threshold"), x), "gt"), x, soft);
}

Value* decompose_hardswish(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* gate = b.binary(OpCode::Min, b.max(b.add(x, splat(b, 3, x)), splat(b, 0, x)), splat(b, 6, x));
  return b.div(b.mul(x, gate), splat(b, 6, x));
}

Value* decompose_mish(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  return b.mul(x, b.unary(OpCode::Tanh, b.unary(OpCode::Softplus, x)));
}

// x moved so that `axis` is last, flattened to [rows, n], times the [n, n]
// matrix with ones where row <= column, and moved back.
Value* decompose_cumsum(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  const Shape shape = x->type.shape;
  if (shape.empty()) return x;
  const int64_t rank = x->type.rank();
  const int64_t axis = *normalize_axis(op.attrs.get_int("axis"), rank);
  const int64_t n = shape[axis];
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  std::vector<int64_t> inverse(rank);
  for (int64_t d = 0; d < rank; ++d) inverse[perm[d]] = d;
  Value* moved = axis == rank - 1 ? x : b.transpose(x, perm);
  Shape moved_shape = moved->type.shape;
  Value* rows = b.reshape(moved, {x->type.num_elements() / std::max<int64_t>(n, 1), n});
  TensorType square{DType::i64, {n, n}};
  Value* upper = b.compare(b.iota(square, 0), b.iota(square, 1), "le");
  Value* ones = b.select(upper, splat(b, 1, x), splat(b, 0, x));
  Value* sums = b.create(OpCode::Dot, {rows, ones});
  Value* back = b.reshape(sums, moved_shape);
  return axis == rank - 1 ? back : b.transpose(back, inverse);
}

}  // namespace mlc::rules
