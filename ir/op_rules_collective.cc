// Rules of the collectives (all_reduce, all_gather, reduce_scatter, all_to_all,
// collective_broadcast, send, recv) and of shard_slice. Inference sees local
// shapes only; the verifier checks the mesh axis and the size ratio against
// the module's mesh (ir/collectives.h).
#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

namespace {

AttrSpec mesh_axis_spec() { return {"mesh_axis", AttrKind::String, std::nullopt}; }

Status check_numeric(const InferContext& ctx, const TensorType& t) {
  if (t.dtype == DType::boolean) return infer_error(ctx, "operand must be numeric, got " + t.str());
  return {};
}

Status check_mesh_axis(const InferContext& ctx) {
  if (ctx.attrs.get_string("mesh_axis").empty()) return infer_error(ctx, "mesh_axis must not be empty");
  return {};
}

Expected<int64_t> checked_dim(const InferContext& ctx, const char* attr, int64_t rank) {
  int64_t d = ctx.attrs.get_int(attr);
  if (d < 0 || d >= rank)
    return infer_error(ctx, std::string(attr) + " " + std::to_string(d) + " out of range for rank " +
                                std::to_string(rank));
  return d;
}

// `big` is `small` with dim `d` n times as large (n >= 1), other dims equal.
Status check_multiple(const InferContext& ctx, const TensorType& small, const TensorType& big, int64_t d,
                      const char* relation) {
  if (small.dtype != big.dtype || small.rank() != big.rank())
    return infer_error(ctx, "result " + ctx.declared->str() + " and operand " + ctx.operand(0).str() +
                                " differ in dtype or rank");
  for (int64_t i = 0; i < small.rank(); ++i) {
    if (i == d) continue;
    if (small.shape[i] != big.shape[i])
      return infer_error(ctx, "result " + ctx.declared->str() + " and operand " + ctx.operand(0).str() +
                                  " differ in dim " + std::to_string(i) + ", which is not dim " + std::to_string(d));
  }
  int64_t s = small.shape[d], b = big.shape[d];
  if (s == 0 ? b != 0 : b % s != 0)
    return infer_error(ctx, std::string(relation) + ": dim " + std::to_string(d) + " of " + big.str() +
                                " is not a multiple of dim " + std::to_string(d) + " of " + small.str());
  return {};
}

}  // namespace

const std::vector<AttrSpec>& attrs_all_reduce() {
  static const std::vector<AttrSpec> specs = {mesh_axis_spec(), {"reduce", AttrKind::String, std::string("sum")}};
  return specs;
}
const std::vector<AttrSpec>& attrs_comm_dim() {
  static const std::vector<AttrSpec> specs = {mesh_axis_spec(), {"dim", AttrKind::Int, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_all_to_all() {
  static const std::vector<AttrSpec> specs = {
      mesh_axis_spec(), {"split_dim", AttrKind::Int, std::nullopt}, {"concat_dim", AttrKind::Int, std::nullopt}};
  return specs;
}
const std::vector<AttrSpec>& attrs_comm_root() {
  static const std::vector<AttrSpec> specs = {mesh_axis_spec(), {"root", AttrKind::Int, int64_t{0}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_comm_peer() {
  static const std::vector<AttrSpec> specs = {mesh_axis_spec(), {"peer", AttrKind::Int, std::nullopt}};
  return specs;
}

Expected<TensorType> infer_all_reduce(const InferContext& ctx) {
  MLC_CHECK_OK(check_mesh_axis(ctx));
  MLC_CHECK_OK(check_numeric(ctx, ctx.operand(0)));
  const std::string& r = ctx.attrs.get_string("reduce");
  if (r != "sum" && r != "max") return infer_error(ctx, "reduce must be \"sum\" or \"max\", got \"" + r + "\"");
  return ctx.operand(0);
}

namespace {
// all_gather, reduce_scatter, shard_slice: the declared result is the operand
// with dim `dim` multiplied (`grows`) or divided by the axis size.
Expected<TensorType> infer_resized_dim(const InferContext& ctx, bool numeric, bool grows, const char* relation) {
  MLC_CHECK_OK(check_mesh_axis(ctx));
  MLC_TRY(TensorType out, require_declared(ctx));
  const TensorType& in = ctx.operand(0);
  if (numeric) MLC_CHECK_OK(check_numeric(ctx, in));
  MLC_TRY(int64_t d, checked_dim(ctx, "dim", in.rank()));
  MLC_CHECK_OK(grows ? check_multiple(ctx, in, out, d, relation) : check_multiple(ctx, out, in, d, relation));
  return out;
}
}  // namespace

Expected<TensorType> infer_all_gather(const InferContext& ctx) {
  return infer_resized_dim(ctx, false, true, "gathered result");
}
Expected<TensorType> infer_reduce_scatter(const InferContext& ctx) {
  return infer_resized_dim(ctx, true, false, "scattered operand");
}
Expected<TensorType> infer_shard_slice(const InferContext& ctx) {
  return infer_resized_dim(ctx, false, false, "sliced operand");
}

Expected<TensorType> infer_all_to_all(const InferContext& ctx) {
  MLC_CHECK_OK(check_mesh_axis(ctx));
  MLC_TRY(TensorType out, require_declared(ctx));
  const TensorType& in = ctx.operand(0);
  MLC_TRY(int64_t split, checked_dim(ctx, "split_dim", in.rank()));
  MLC_TRY(int64_t concat, checked_dim(ctx, "concat_dim", in.rank()));
  if (out.dtype != in.dtype || out.rank() != in.rank())
    return infer_error(ctx, "result " + out.str() + " and operand " + in.str() + " differ in dtype or rank");
  if (split == concat) {
    if (out != in) return infer_error(ctx, "with split_dim == concat_dim the result must be " + in.str());
    return out;
  }
  for (int64_t i = 0; i < in.rank(); ++i)
    if (i != split && i != concat && in.shape[i] != out.shape[i])
      return infer_error(ctx, "result " + out.str() + " and operand " + in.str() + " differ in dim " +
                                  std::to_string(i));
  // in[split] = n * out[split], out[concat] = n * in[concat], the same n.
  int64_t a = in.shape[split], b = out.shape[split], c = in.shape[concat], e = out.shape[concat];
  bool ok = b > 0 && c > 0 && a % b == 0 && e % c == 0 && a / b == e / c;
  if (!ok && !(a == 0 && b == 0 && c == e) && !(c == 0 && e == 0 && a == b))
    return infer_error(ctx, "result " + out.str() + " is not " + in.str() + " with dim " + std::to_string(split) +
                                " divided and dim " + std::to_string(concat) + " multiplied by the same factor");
  return out;
}

Expected<TensorType> infer_comm_identity(const InferContext& ctx) {
  MLC_CHECK_OK(check_mesh_axis(ctx));
  for (const char* a : {"root", "peer"})
    if (ctx.attrs.has(a) && ctx.attrs.get_int(a) < 0)
      return infer_error(ctx, std::string(a) + " must be >= 0, got " + std::to_string(ctx.attrs.get_int(a)));
  return ctx.operand(0);
}

Expected<TensorType> infer_recv(const InferContext& ctx) {
  MLC_CHECK_OK(check_mesh_axis(ctx));
  MLC_TRY(TensorType out, require_declared(ctx));
  if (ctx.attrs.get_int("peer") < 0)
    return infer_error(ctx, "peer must be >= 0, got " + std::to_string(ctx.attrs.get_int("peer")));
  return out;
}

Cost cost_collective(const Op& op) {
  Cost c;
  for (const Value* v : op.operands) c.bytes += v->type.num_bytes();
  for (const Value* r : op.results) c.bytes += r->type.num_bytes();
  return c;
}

}  // namespace mlc::rules
