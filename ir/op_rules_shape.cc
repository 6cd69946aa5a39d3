// Rules of the data-movement ops: broadcast, reshape, transpose, slice, concat,
// pad, reductions, argmax, gather, scatter_add, iota, constant.
#include <algorithm>

#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

Expected<TensorType> require_declared(const InferContext& ctx) {
  if (!ctx.declared) return infer_error(ctx, "the result type must be given");
  return *ctx.declared;
}

namespace {
std::string ints_str(const std::vector<int64_t>& v) { return attr_value_to_string(AttrValue{v}); }

Status check_rank_list(const InferContext& ctx, const char* attr, size_t rank) {
  const auto& v = ctx.attrs.get_ints(attr);
  if (v.size() != rank)
    return infer_error(ctx, std::string(attr) + " " + ints_str(v) + " must have " +
                                std::to_string(rank) + " entries (the operand rank)");
  return {};
}
}  // namespace

const std::vector<AttrSpec>& attrs_broadcast() {
  static const std::vector<AttrSpec> specs = {{"dims", AttrKind::Ints, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_transpose() {
  static const std::vector<AttrSpec> specs = {{"perm", AttrKind::Ints, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_slice() {
  static const std::vector<AttrSpec> specs = {{"start", AttrKind::Ints, std::nullopt},
                                              {"limit", AttrKind::Ints, std::nullopt},
                                              {"stride", AttrKind::Ints, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_concat() {
  static const std::vector<AttrSpec> specs = {{"axis", AttrKind::Int, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_split() {
  static const std::vector<AttrSpec> specs = {{"axis", AttrKind::Int, std::nullopt},
                                              {"sizes", AttrKind::Ints, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_pad() {
  static const std::vector<AttrSpec> specs = {{"low", AttrKind::Ints, std::nullopt},
                                              {"high", AttrKind::Ints, std::nullopt},
                                              {"value", AttrKind::Float, AttrValue{0.0}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_reduce() {
  static const std::vector<AttrSpec> specs = {{"dims", AttrKind::Ints, std::nullopt},
                                              {"keepdim", AttrKind::Bool, AttrValue{false}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_axis() {
  static const std::vector<AttrSpec> specs = {{"axis", AttrKind::Int, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_iota() {
  static const std::vector<AttrSpec> specs = {{"dim", AttrKind::Int, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_constant() {
  static const std::vector<AttrSpec> specs = {{"value", AttrKind::Number, std::nullopt}};
  return specs;
}

Expected<TensorType> infer_broadcast(const InferContext& ctx) {
  MLC_TRY(TensorType out, require_declared(ctx));
  const TensorType& in = ctx.operand(0);
  if (out.dtype != in.dtype)
    return infer_error(ctx, "result dtype " + out.str() + " differs from operand " + in.str());
  MLC_CHECK_OK(check_rank_list(ctx, "dims", in.shape.size()));
  const auto& dims = ctx.attrs.get_ints("dims");
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= out.rank() || (i && dims[i] <= dims[i - 1]))
      return infer_error(ctx, "dims " + ints_str(dims) + " must be increasing and within [0, " +
                                  std::to_string(out.rank()) + ")");
    if (in.shape[i] != 1 && in.shape[i] != out.shape[dims[i]])
      return infer_error(ctx, "operand dim " + std::to_string(i) + " of size " +
                                  std::to_string(in.shape[i]) + " cannot broadcast to size " +
                                  std::to_string(out.shape[dims[i]]) + " of result " + out.str());
  }
  return out;
}

Expected<TensorType> infer_reshape(const InferContext& ctx) {
  MLC_TRY(TensorType out, require_declared(ctx));
  const TensorType& in = ctx.operand(0);
  if (out.dtype != in.dtype)
    return infer_error(ctx, "result dtype " + out.str() + " differs from operand " + in.str());
  auto n = checked_num_elements(out.shape);
  if (!n || *n != in.num_elements())
    return infer_error(ctx, "cannot reshape " + in.str() + " (" + std::to_string(in.num_elements()) +
                                " elements) to " + shape_to_string(out.shape));
  return out;
}

Expected<TensorType> infer_transpose(const InferContext& ctx) {
  const TensorType& in = ctx.operand(0);
  MLC_CHECK_OK(check_rank_list(ctx, "perm", in.shape.size()));
  const auto& perm = ctx.attrs.get_ints("perm");
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != static_cast<int64_t>(i))
      return infer_error(ctx, "perm " + ints_str(perm) + " is not a permutation of 0.." +
                                  std::to_string(in.rank() - 1));
  TensorType out{in.dtype, {}};
  for (int64_t p : perm) out.shape.push_back(in.shape[p]);
  return out;
}

Expected<TensorType> infer_slice(const InferContext& ctx) {
  const TensorType& in = ctx.operand(0);
  for (const char* name : {"start", "limit", "stride"})
    MLC_CHECK_OK(check_rank_list(ctx, name, in.shape.size()));
  const auto& start = ctx.attrs.get_ints("start");
  const auto& limit = ctx.attrs.get_ints("limit");
  const auto& stride = ctx.attrs.get_ints("stride");
  TensorType out{in.dtype, {}};
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (stride[i] < 1 || start[i] < 0 || start[i] > limit[i] || limit[i] > in.shape[i])
      return infer_error(ctx, "dim " + std::to_string(i) + ": need 0 <= start <= limit <= " +
                                  std::to_string(in.shape[i]) + " and stride >= 1, got start " +
                                  std::to_string(start[i]) + ", limit " + std::to_string(limit[i]) +
                                  ", stride " + std::to_string(stride[i]));
    out.shape.push_back(limit[i] == start[i] ? 0 : (limit[i] - start[i] - 1) / stride[i] + 1);
  }
  return out;
}

Expected<std::vector<TensorType>> infer_split(const InferContext& ctx) {
  const TensorType& x = ctx.operand(0);
  auto axis = normalize_axis(ctx.attrs.get_int("axis"), x.rank());
  if (!axis)
    return infer_error(ctx, "axis " + std::to_string(ctx.attrs.get_int("axis")) +
                                " out of range for rank " + std::to_string(x.rank()));
  const std::vector<int64_t>& sizes = ctx.attrs.get_ints("sizes");
  if (sizes.empty()) return infer_error(ctx, "sizes must not be empty");
  int64_t total = 0;
  std::vector<TensorType> pieces;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || sizes[i] > x.shape[*axis])
      return infer_error(ctx, "sizes[" + std::to_string(i) + "] = " + std::to_string(sizes[i]) +
                                  " is outside [0, " + std::to_string(x.shape[*axis]) + "]");
    total += sizes[i];
    if (total > x.shape[*axis]) break;
    TensorType piece = x;
    piece.shape[*axis] = sizes[i];
    pieces.push_back(std::move(piece));
  }
  if (total != x.shape[*axis])
    return infer_error(ctx, "sizes " + shape_to_string(sizes) + " do not add up to " +
                                std::to_string(x.shape[*axis]) + ", the size of dim " +
                                std::to_string(*axis) + " of " + x.str());
  return pieces;
}

Expected<TensorType> infer_concat(const InferContext& ctx) {
  const TensorType& first = ctx.operand(0);
  auto axis = normalize_axis(ctx.attrs.get_int("axis"), first.rank());
  if (!axis)
    return infer_error(ctx, "axis " + std::to_string(ctx.attrs.get_int("axis")) +
                                " out of range for rank " + std::to_string(first.rank()));
  TensorType out = first;
  out.shape[*axis] = 0;
  for (size_t i = 0; i < ctx.operands.size(); ++i) {
    const TensorType& t = ctx.operand(i);
    bool same = t.dtype == first.dtype && t.rank() == first.rank();
    for (int64_t d = 0; same && d < t.rank(); ++d) same = d == *axis || t.shape[d] == first.shape[d];
    if (!same)
      return infer_error(ctx, "operand " + std::to_string(i) + " " + t.str() +
                                  " does not match operand 0 " + first.str() + " outside axis " +
                                  std::to_string(*axis));
    out.shape[*axis] += t.shape[*axis];
  }
  return out;
}

Expected<TensorType> infer_pad(const InferContext& ctx) {
  const TensorType& in = ctx.operand(0);
  MLC_CHECK_OK(check_rank_list(ctx, "low", in.shape.size()));
  MLC_CHECK_OK(check_rank_list(ctx, "high", in.shape.size()));
  const auto& low = ctx.attrs.get_ints("low");
  const auto& high = ctx.attrs.get_ints("high");
  TensorType out = in;
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (low[i] < 0 || high[i] < 0 || low[i] > kMaxElements || high[i] > kMaxElements)
      return infer_error(ctx, "padding must be in [0, 2^40], got low " + ints_str(low) +
                                  ", high " + ints_str(high));
    out.shape[i] += low[i] + high[i];
  }
  return out;
}

namespace {
Expected<TensorType> reduce_type(const InferContext& ctx, bool nonempty) {
  const TensorType& in = ctx.operand(0);
  const auto& dims = ctx.attrs.get_ints("dims");
  bool keepdim = ctx.attrs.get_bool("keepdim");
  std::vector<bool> reduced(in.shape.size(), false);
  for (int64_t d : dims) {
    auto axis = normalize_axis(d, in.rank());
    if (!axis || reduced[*axis])
      return infer_error(ctx, "dims " + ints_str(dims) + " must be distinct and within rank " +
                                  std::to_string(in.rank()) + " of " + in.str());
    reduced[*axis] = true;
    if (nonempty && in.shape[*axis] == 0)
      return infer_error(ctx, "cannot reduce over dim " + std::to_string(*axis) +
                                  " of size 0 of " + in.str() + " (no identity element)");
  }
  if (in.dtype == DType::boolean)
    return infer_error(ctx, "expected a numeric operand, got " + in.str() + " (cast it first)");
  TensorType out{in.dtype, {}};
  for (size_t i = 0; i < in.shape.size(); ++i) {
    if (!reduced[i]) out.shape.push_back(in.shape[i]);
    else if (keepdim) out.shape.push_back(1);
  }
  return out;
}
}  // namespace

Expected<TensorType> infer_reduce(const InferContext& ctx) { return reduce_type(ctx, false); }
Expected<TensorType> infer_reduce_nonempty(const InferContext& ctx) { return reduce_type(ctx, true); }

Expected<TensorType> infer_argmax(const InferContext& ctx) {
  const TensorType& in = ctx.operand(0);
  auto axis = normalize_axis(ctx.attrs.get_int("axis"), in.rank());
  if (!axis)
    return infer_error(ctx, "axis " + std::to_string(ctx.attrs.get_int("axis")) +
                                " out of range for " + in.str());
  if (in.shape[*axis] == 0)
    return infer_error(ctx, "cannot take argmax over dim " + std::to_string(*axis) +
                                " of size 0 of " + in.str());
  if (in.dtype == DType::boolean) return infer_error(ctx, "expected a numeric operand, got " + in.str());
  TensorType out{DType::i64, in.shape};
  out.shape.erase(out.shape.begin() + *axis);
  return out;
}

Expected<TensorType> infer_gather(const InferContext& ctx) {
  const TensorType& table = ctx.operand(0);
  const TensorType& idx = ctx.operand(1);
  if (!is_integer(idx.dtype))
    return infer_error(ctx, "indices must be i32 or i64, got " + idx.str());
  auto axis = normalize_axis(ctx.attrs.get_int("axis"), table.rank());
  if (!axis)
    return infer_error(ctx, "axis " + std::to_string(ctx.attrs.get_int("axis")) +
                                " out of range for " + table.str());
  TensorType out{table.dtype, {}};
  out.shape.insert(out.shape.end(), table.shape.begin(), table.shape.begin() + *axis);
  out.shape.insert(out.shape.end(), idx.shape.begin(), idx.shape.end());
  out.shape.insert(out.shape.end(), table.shape.begin() + *axis + 1, table.shape.end());
  return out;
}

Expected<TensorType> infer_scatter_add(const InferContext& ctx) {
  const TensorType* gather_operands[] = {ctx.operands[0], ctx.operands[1]};
  InferContext gather_ctx{ctx.op_name, gather_operands, ctx.attrs, nullptr};
  MLC_TRY(TensorType expected_updates, infer_gather(gather_ctx));
  if (ctx.operand(2) != expected_updates)
    return infer_error(ctx, "updates must be " + expected_updates.str() + ", got " +
                                ctx.operand(2).str());
  if (ctx.operand(0).dtype == DType::boolean)
    return infer_error(ctx, "expected a numeric operand, got " + ctx.operand(0).str());
  return ctx.operand(0);
}

Expected<TensorType> infer_iota(const InferContext& ctx) {
  MLC_TRY(TensorType out, require_declared(ctx));
  int64_t dim = ctx.attrs.get_int("dim");
  if (dim < 0 || dim >= out.rank())
    return infer_error(ctx, "dim " + std::to_string(dim) + " out of range for " + out.str());
  if (out.dtype == DType::boolean) return infer_error(ctx, "result must be numeric, got " + out.str());
  return out;
}

Expected<TensorType> infer_constant(const InferContext& ctx) {
  MLC_TRY(TensorType out, require_declared(ctx));
  const AttrValue& v = *ctx.attrs.find("value");
  size_t count = 1;
  if (auto* f = std::get_if<std::vector<double>>(&v)) count = f->size();
  if (auto* i = std::get_if<std::vector<int64_t>>(&v)) count = i->size();
  bool is_list = std::holds_alternative<std::vector<double>>(v) ||
                 std::holds_alternative<std::vector<int64_t>>(v);
  if (is_list && static_cast<int64_t>(count) != out.num_elements())
    return infer_error(ctx, "value has " + std::to_string(count) + " elements but " + out.str() +
                                " has " + std::to_string(out.num_elements()));
  bool float_value = std::holds_alternative<double>(v) || std::holds_alternative<std::vector<double>>(v);
  if (float_value && !is_float(out.dtype))
    return infer_error(ctx, "float value for the non-float type " + out.str());
  return out;
}

}  // namespace mlc::rules
