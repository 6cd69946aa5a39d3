// Rules of the elementwise ops (unary, binary, compare, select, cast) and the
// shared helpers of the rule files.
#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

Error infer_error(const InferContext& ctx, const std::string& message) {
  return make_error(std::string(ctx.op_name) + ": " + message);
}

std::optional<int64_t> normalize_axis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

const std::vector<AttrSpec>& attrs_none() {
  static const std::vector<AttrSpec> specs;
  return specs;
}

const std::vector<AttrSpec>& attrs_compare() {
  static const std::vector<AttrSpec> specs = {{"direction", AttrKind::String, std::nullopt}};
  return specs;
}

namespace {
std::string dtype_str(DType t) { return std::string(dtype_name(t)); }

Status require_float(const InferContext& ctx, const TensorType& t) {
  if (!is_float(t.dtype))
    return infer_error(ctx, "expected a float operand (f32, f64, bf16, f16), got " + t.str());
  return {};
}

Status require_numeric(const InferContext& ctx, const TensorType& t) {
  if (t.dtype == DType::boolean)
    return infer_error(ctx, "expected a numeric operand, got " + t.str());
  return {};
}

Expected<Shape> broadcast_all(const InferContext& ctx) {
  Shape shape = ctx.operand(0).shape;
  for (size_t i = 1; i < ctx.operands.size(); ++i) {
    auto s = broadcast_shapes(shape, ctx.operand(i).shape);
    if (!s) {
      std::string list;
      for (size_t j = 0; j < ctx.operands.size(); ++j)
        list += (j ? " and " : "") + shape_to_string(ctx.operand(j).shape);
      return infer_error(ctx, "operand shapes " + list + " do not broadcast");
    }
    shape = *s;
  }
  return shape;
}

Status require_same_dtype(const InferContext& ctx, size_t first, size_t last) {
  for (size_t i = first + 1; i <= last; ++i)
    if (ctx.operand(i).dtype != ctx.operand(first).dtype)
      return infer_error(ctx, "operand " + std::to_string(i) + " has dtype " +
                                  dtype_str(ctx.operand(i).dtype) + " but operand " +
                                  std::to_string(first) + " has " +
                                  dtype_str(ctx.operand(first).dtype));
  return {};
}
}  // namespace

Expected<TensorType> infer_unary(const InferContext& ctx) {
  MLC_CHECK_OK(require_numeric(ctx, ctx.operand(0)));
  return ctx.operand(0);
}

Expected<TensorType> infer_unary_float(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, ctx.operand(0)));
  return ctx.operand(0);
}

Expected<TensorType> infer_binary(const InferContext& ctx) {
  MLC_CHECK_OK(require_numeric(ctx, ctx.operand(0)));
  MLC_CHECK_OK(require_same_dtype(ctx, 0, 1));
  MLC_TRY(Shape shape, broadcast_all(ctx));
  return TensorType{ctx.operand(0).dtype, shape};
}

Expected<TensorType> infer_binary_float(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, ctx.operand(0)));
  return infer_binary(ctx);
}

Expected<TensorType> infer_compare(const InferContext& ctx) {
  const std::string& dir = ctx.attrs.get_string("direction");
  if (dir != "eq" && dir != "ne" && dir != "lt" && dir != "le" && dir != "gt" && dir != "ge")
    return infer_error(ctx, "direction must be one of eq, ne, lt, le, gt, ge, got \"" + dir + "\"");
  MLC_CHECK_OK(require_same_dtype(ctx, 0, 1));
  MLC_TRY(Shape shape, broadcast_all(ctx));
  return TensorType{DType::boolean, shape};
}

const std::vector<AttrSpec>& attrs_random() {
  static const std::vector<AttrSpec> specs = {{"seed", AttrKind::Int, std::nullopt},
                                              {"stream", AttrKind::Int, std::nullopt}};
  return specs;
}

Expected<TensorType> infer_random_uniform(const InferContext& ctx) {
  for (size_t i = 0; i < 2; ++i)
    if (ctx.operand(i).dtype != DType::i64)
      return infer_error(ctx, std::string(i == 0 ? "index" : "step") + " must be i64, got " + ctx.operand(i).str());
  int64_t stream = ctx.attrs.get_int("stream");
  if (stream < 0 || stream > 0xFFFFFFFFll)
    return infer_error(ctx, "stream must be in [0, 2^32), got " + std::to_string(stream));
  MLC_TRY(Shape shape, broadcast_all(ctx));
  return TensorType{DType::f32, shape};
}

Expected<TensorType> infer_select(const InferContext& ctx) {
  if (ctx.operand(0).dtype != DType::boolean)
    return infer_error(ctx, "predicate must be bool, got " + ctx.operand(0).str());
  MLC_CHECK_OK(require_same_dtype(ctx, 1, 2));
  MLC_TRY(Shape shape, broadcast_all(ctx));
  return TensorType{ctx.operand(1).dtype, shape};
}

Expected<TensorType> infer_cast(const InferContext& ctx) {
  if (!ctx.declared) return infer_error(ctx, "the result type must be given");
  if (ctx.declared->shape != ctx.operand(0).shape)
    return infer_error(ctx, "cannot change the shape " + shape_to_string(ctx.operand(0).shape) +
                                " to " + shape_to_string(ctx.declared->shape) + " (use reshape)");
  return *ctx.declared;
}

Cost cost_elementwise(const Op& op) {
  Cost c;
  c.flops = op.result()->type.num_elements();
  for (const Value* v : op.operands) c.bytes += v->type.num_bytes();
  c.bytes += op.result()->type.num_bytes();
  return c;
}

Cost cost_movement(const Op& op) {
  Cost c = cost_elementwise(op);
  c.flops = 0;
  return c;
}

Cost cost_reduce(const Op& op) {
  Cost c = cost_elementwise(op);
  c.flops = op.operands[0]->type.num_elements();
  return c;
}

}  // namespace mlc::rules
