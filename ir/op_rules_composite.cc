// Rules of the composite ops: inference, and the decomposition into primitives
// that defines their meaning (PyTorch's formulas, computed stably).
#include <cmath>
#include <unordered_map>

#include "ir/graph.h"

#include "ir/op_rules.h"

namespace mlc::rules {

const std::vector<AttrSpec>& attrs_gelu() {
  static const std::vector<AttrSpec> specs = {
      {"approximate", AttrKind::String, AttrValue{std::string("none")}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_eps() {
  static const std::vector<AttrSpec> specs = {{"eps", AttrKind::Float, AttrValue{1e-5}}};
  return specs;
}

Status require_float_operand(const InferContext& ctx, size_t i) {
  if (!is_float(ctx.operand(i).dtype))
    return infer_error(ctx, "operand " + std::to_string(i) + " must be a float tensor, got " +
                                ctx.operand(i).str());
  return {};
}

namespace {

// A norm's weight (and bias) must be [D] with D the last dim of x.
Status check_norm_param(const InferContext& ctx, size_t i, const char* what) {
  const TensorType& x = ctx.operand(0);
  const TensorType& p = ctx.operand(i);
  if (x.rank() < 1) return infer_error(ctx, "input must have rank >= 1, got " + x.str());
  if (p.dtype != x.dtype || p.rank() != 1 || p.shape[0] != x.shape.back())
    return infer_error(ctx, std::string(what) + " must be " +
                                TensorType{x.dtype, {x.shape.back()}}.str() +
                                " (the last dim of " + x.str() + "), got " + p.str());
  return {};
}
}  // namespace

Expected<TensorType> infer_gelu(const InferContext& ctx) {
  const std::string& a = ctx.attrs.get_string("approximate");
  if (a != "none" && a != "tanh")
    return infer_error(ctx, "approximate must be \"none\" or \"tanh\", got \"" + a + "\"");
  return infer_unary_float(ctx);
}

Expected<TensorType> infer_softmax(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  const TensorType& x = ctx.operand(0);
  auto axis = normalize_axis(ctx.attrs.get_int("axis"), x.rank());
  if (!axis)
    return infer_error(ctx, "axis " + std::to_string(ctx.attrs.get_int("axis")) +
                                " out of range for " + x.str());
  if (x.shape[*axis] == 0)
    return infer_error(ctx, "axis " + std::to_string(*axis) + " of " + x.str() + " is empty");
  return x;
}

Expected<TensorType> infer_layer_norm(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  MLC_CHECK_OK(check_norm_param(ctx, 1, "weight"));
  MLC_CHECK_OK(check_norm_param(ctx, 2, "bias"));
  if (ctx.attrs.get_float("eps") < 0) return infer_error(ctx, "eps must be >= 0");
  return ctx.operand(0);
}

Expected<TensorType> infer_rms_norm(const InferContext& ctx) {
  MLC_CHECK_OK(require_float_operand(ctx, 0));
  MLC_CHECK_OK(check_norm_param(ctx, 1, "weight"));
  if (ctx.attrs.get_float("eps") < 0) return infer_error(ctx, "eps must be >= 0");
  return ctx.operand(0);
}

Cost cost_composite(const Op& op) {
  Function scratch("cost");
  std::vector<Value*> args;
  for (const Value* v : op.operands)
    args.push_back(scratch.add_arg("a" + std::to_string(args.size()), v->type, ArgKind::input));
  Op* copy = scratch.insert_op(0, op.code, args, op.attrs, result_types(op), op.loc);
  copy->body = op.body;
  Builder b(scratch, 0);
  scratch.results = op_info(op.code).decompose(b, *copy);
  Cost total;
  for (const auto& o : scratch.ops)
    if (o.get() != copy) total += op_cost(*o);
  return total;
}

// ---- decompositions

Value* decompose_relu(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  return b.max(x, b.scalar(0.0, x->type.dtype));
}

Value* decompose_silu(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  return b.mul(x, b.unary(OpCode::Sigmoid, x));
}

Value* decompose_gelu(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  DType t = x->type.dtype;
  Value* half_x = b.mul(x, b.scalar(0.5, t));
  Value* inner;
  if (op.attrs.get_string("approximate") == "tanh") {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value* cube = b.mul(b.mul(x, x), x);
    Value* poly = b.add(x, b.mul(cube, b.scalar(0.044715, t)));
    inner = b.unary(OpCode::Tanh, b.mul(poly, b.scalar(std::sqrt(2.0 / M_PI), t)));
  } else {
    // 0.5 x (1 + erf(x / sqrt(2)))
    inner = b.unary(OpCode::Erf, b.mul(x, b.scalar(M_SQRT1_2, t)));
  }
  return b.mul(half_x, b.add(b.scalar(1.0, t), inner));
}

namespace {
// x - max(x, axis): the shifted logits both softmax forms start from.
Value* shifted(Builder& b, Value* x, int64_t axis) {
  Value* m = b.reduce(OpCode::ReduceMax, x, {axis}, true);
  return b.sub(x, m);
}
int64_t softmax_axis(const Op& op) {
  return *normalize_axis(op.attrs.get_int("axis"), op.operands[0]->type.rank());
}
// sum(x) / n over `dims` (keepdim), dividing like torch.mean.
Value* mean(Builder& b, Value* x, std::vector<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= x->type.shape[d];
  return b.div(b.reduce_sum(x, std::move(dims), true), b.scalar(static_cast<double>(n), x->type.dtype));
}
}  // namespace

Value* decompose_softmax(Builder& b, const Op& op) {
  int64_t axis = softmax_axis(op);
  Value* e = b.unary(OpCode::Exp, shifted(b, op.operands[0], axis));
  return b.div(e, b.reduce_sum(e, {axis}, true));
}

Value* decompose_log_softmax(Builder& b, const Op& op) {
  int64_t axis = softmax_axis(op);
  Value* s = shifted(b, op.operands[0], axis);
  Value* lse = b.unary(OpCode::Log, b.reduce_sum(b.unary(OpCode::Exp, s), {axis}, true));
  return b.sub(s, lse);
}

Value* decompose_layer_norm(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  int64_t axis = last_axis(x);
  Value* centered = b.sub(x, mean(b, x, {axis}));
  Value* var = mean(b, b.mul(centered, centered), {axis});
  Value* eps = b.scalar(op.attrs.get_float("eps"), x->type.dtype);
  Value* normed = b.mul(centered, b.unary(OpCode::Rsqrt, b.add(var, eps)));
  return b.add(b.mul(normed, op.operands[1]), op.operands[2]);
}

Value* decompose_rms_norm(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  Value* ms = mean(b, b.mul(x, x), {last_axis(x)});
  Value* eps = b.scalar(op.attrs.get_float("eps"), x->type.dtype);
  return b.mul(b.mul(x, b.unary(OpCode::Rsqrt, b.add(ms, eps))), op.operands[1]);
}

std::vector<Value*> decompose_split(Builder& b, const Op& op) {
  Value* x = op.operands[0];
  const int64_t rank = x->type.rank();
  const int64_t axis = *normalize_axis(op.attrs.get_int("axis"), rank);
  std::vector<int64_t> start(rank, 0), limit = x->type.shape, stride(rank, 1);
  std::vector<Value*> pieces;
  for (int64_t size : op.attrs.get_ints("sizes")) {
    limit[axis] = start[axis] + size;
    pieces.push_back(b.create(OpCode::Slice, {x}, {{"start", start}, {"limit", limit}, {"stride", stride}}));
    start[axis] = limit[axis];
  }
  return pieces;
}

// The body's types are checked against the operands and the declared types
// by the verifier and the parser (inference sees operand types, not the body).
// One result per body result: a kernel with several outputs has several.
Expected<std::vector<TensorType>> infer_fusion(const InferContext& ctx) {
  if (ctx.declared_all.empty()) return infer_error(ctx, "the result types must be declared");
  return std::vector<TensorType>(ctx.declared_all.begin(), ctx.declared_all.end());
}

// Inlines the body: each body op again, on the operands, with its own loc and scope.
std::vector<Value*> decompose_fusion(Builder& b, const Op& op) {
  const Function& body = *op.body;
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < body.args.size(); ++i) map[body.args[i]] = op.operands[i];
  const Loc loc = b.loc();
  const std::string scope = b.scope();
  for (const auto& inner : body.ops) {
    std::vector<Value*> operands;
    for (const Value* v : inner->operands) operands.push_back(map.at(v));
    b.set_loc(inner->loc);
    b.set_scope(inner->meta.scope);
    std::vector<Value*> results = b.create_results(inner->code, std::move(operands), inner->attrs, result_types(*inner));
    for (size_t k = 0; k < results.size(); ++k) map[inner->results[k]] = results[k];
  }
  b.set_loc(loc);
  b.set_scope(scope);
  std::vector<Value*> results;
  for (const Value* r : body.results) results.push_back(map.at(r));
  return results;
}

}  // namespace mlc::rules
