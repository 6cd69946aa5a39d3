// Rules of the contractions and window ops: dot, conv2d, max/avg pooling,
// unfold/fold.
#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

namespace {
std::string ints_str(const std::vector<int64_t>& v) { return attr_value_to_string(AttrValue{v}); }

Status require_float(const InferContext& ctx, size_t i) {
  if (!is_float(ctx.operand(i).dtype))
    return infer_error(ctx, "operand " + std::to_string(i) + " must be a float tensor, got " +
                                ctx.operand(i).str());
  return {};
}

// Checks that attribute `name` has two entries, each >= min.
Status check_pair(const InferContext& ctx, const char* name, int64_t min) {
  const auto& v = ctx.attrs.get_ints(name);
  if (v.size() != 2 || v[0] < min || v[1] < min || v[0] > (1 << 20) || v[1] > (1 << 20))
    return infer_error(ctx, std::string(name) + " must be two integers in [" + std::to_string(min) +
                                ", 2^20], got " + ints_str(v));
  return {};
}

// Output size of a window op along one spatial dim; negative if the window does
// not fit.
int64_t window_out(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  int64_t span = dilation * (kernel - 1) + 1;
  int64_t padded = in + 2 * pad;
  if (padded < span) return -1;
  return (padded - span) / stride + 1;
}
}  // namespace

const std::vector<AttrSpec>& attrs_dot() {
  static const std::vector<AttrSpec> specs = {{"transpose_a", AttrKind::Bool, AttrValue{false}},
                                              {"transpose_b", AttrKind::Bool, AttrValue{false}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_conv2d() {
  static const std::vector<AttrSpec> specs = {
      {"stride", AttrKind::Ints, AttrValue{std::vector<int64_t>{1, 1}}},
      {"padding", AttrKind::Ints, AttrValue{std::vector<int64_t>{0, 0}}},
      {"dilation", AttrKind::Ints, AttrValue{std::vector<int64_t>{1, 1}}},
      {"groups", AttrKind::Int, AttrValue{int64_t{1}}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_pool() {
  static const std::vector<AttrSpec> specs = {
      {"kernel", AttrKind::Ints, std::nullopt},
      {"stride", AttrKind::Ints, std::nullopt},
      {"padding", AttrKind::Ints, AttrValue{std::vector<int64_t>{0, 0}}}};
  return specs;
}
const std::vector<AttrSpec>& attrs_unfold() {
  static const std::vector<AttrSpec> specs = {
      {"kernel", AttrKind::Ints, std::nullopt},
      {"stride", AttrKind::Ints, AttrValue{std::vector<int64_t>{1, 1}}},
      {"padding", AttrKind::Ints, AttrValue{std::vector<int64_t>{0, 0}}},
      {"dilation", AttrKind::Ints, AttrValue{std::vector<int64_t>{1, 1}}}};
  return specs;
}
// unfold's window and the size of the image it is folded back into.
const std::vector<AttrSpec>& attrs_fold() {
  static const std::vector<AttrSpec> specs = [] {
    std::vector<AttrSpec> s = {{"output_size", AttrKind::Ints, std::nullopt}};
    s.insert(s.end(), attrs_unfold().begin(), attrs_unfold().end());
    return s;
  }();
  return specs;
}
const std::vector<AttrSpec>& attrs_avg_pool() {
  static const std::vector<AttrSpec> specs = {
      {"kernel", AttrKind::Ints, std::nullopt},
      {"stride", AttrKind::Ints, std::nullopt},
      {"padding", AttrKind::Ints, AttrValue{std::vector<int64_t>{0, 0}}},
      {"count_include_pad", AttrKind::Bool, AttrValue{true}}};
  return specs;
}

Expected<TensorType> infer_dot(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, 0));
  const TensorType& a = ctx.operand(0);
  const TensorType& b = ctx.operand(1);
  if (a.dtype != b.dtype)
    return infer_error(ctx, "operand dtypes differ: " + a.str() + " and " + b.str());
  if (a.rank() < 2 || b.rank() < 2)
    return infer_error(ctx, "operands must have rank >= 2, got " + a.str() + " and " + b.str());
  bool ta = ctx.attrs.get_bool("transpose_a"), tb = ctx.attrs.get_bool("transpose_b");
  int64_t m = a.shape[a.rank() - (ta ? 1 : 2)], ka = a.shape[a.rank() - (ta ? 2 : 1)];
  int64_t kb = b.shape[b.rank() - (tb ? 1 : 2)], n = b.shape[b.rank() - (tb ? 2 : 1)];
  if (ka != kb)
    return infer_error(ctx, "contracting dims differ: " + a.str() + (ta ? " (transposed)" : "") +
                                " has K=" + std::to_string(ka) + ", " + b.str() +
                                (tb ? " (transposed)" : "") + " has K=" + std::to_string(kb));
  Shape batch(a.shape.begin(), a.shape.end() - 2);
  Shape batch_b(b.shape.begin(), b.shape.end() - 2);
  if (b.rank() != 2 && batch_b != batch)
    return infer_error(ctx, "batch dims differ: " + a.str() + " and " + b.str() +
                                " (b must have a's batch dims or be rank 2)");
  TensorType out{a.dtype, batch};
  out.shape.push_back(m);
  out.shape.push_back(n);
  return out;
}

Expected<TensorType> infer_conv2d(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, 0));
  const TensorType& x = ctx.operand(0);
  const TensorType& w = ctx.operand(1);
  if (x.rank() != 4) return infer_error(ctx, "input must be [N,C,H,W], got " + x.str());
  if (w.rank() != 4) return infer_error(ctx, "weight must be [O,C/groups,KH,KW], got " + w.str());
  if (x.dtype != w.dtype)
    return infer_error(ctx, "input " + x.str() + " and weight " + w.str() + " dtypes differ");
  MLC_CHECK_OK(check_pair(ctx, "stride", 1));
  MLC_CHECK_OK(check_pair(ctx, "padding", 0));
  MLC_CHECK_OK(check_pair(ctx, "dilation", 1));
  int64_t groups = ctx.attrs.get_int("groups");
  if (groups < 1 || groups > x.shape[1])
    return infer_error(ctx, "groups must be in [1, input channels " + std::to_string(x.shape[1]) +
                                "], got " + std::to_string(groups));
  if (x.shape[1] != w.shape[1] * groups)
    return infer_error(ctx, "input channels " + std::to_string(x.shape[1]) +
                                " do not match weight in_channels " + std::to_string(w.shape[1]) +
                                " x groups " + std::to_string(groups));
  if (w.shape[0] % groups != 0)
    return infer_error(ctx, "out_channels " + std::to_string(w.shape[0]) +
                                " is not divisible by groups " + std::to_string(groups));
  const auto& s = ctx.attrs.get_ints("stride");
  const auto& p = ctx.attrs.get_ints("padding");
  const auto& d = ctx.attrs.get_ints("dilation");
  int64_t oh = window_out(x.shape[2], w.shape[2], s[0], p[0], d[0]);
  int64_t ow = window_out(x.shape[3], w.shape[3], s[1], p[1], d[1]);
  if (oh < 1 || ow < 1)
    return infer_error(ctx, "kernel " + shape_to_string({w.shape[2], w.shape[3]}) +
                                " (dilation " + ints_str(d) + ") does not fit input " +
                                shape_to_string({x.shape[2], x.shape[3]}) + " with padding " +
                                ints_str(p));
  return TensorType{x.dtype, {x.shape[0], w.shape[0], oh, ow}};
}

Expected<TensorType> infer_pool2d(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, 0));
  const TensorType& x = ctx.operand(0);
  if (x.rank() != 4) return infer_error(ctx, "input must be [N,C,H,W], got " + x.str());
  MLC_CHECK_OK(check_pair(ctx, "kernel", 1));
  MLC_CHECK_OK(check_pair(ctx, "stride", 1));
  MLC_CHECK_OK(check_pair(ctx, "padding", 0));
  const auto& k = ctx.attrs.get_ints("kernel");
  const auto& s = ctx.attrs.get_ints("stride");
  const auto& p = ctx.attrs.get_ints("padding");
  if (2 * p[0] > k[0] || 2 * p[1] > k[1])
    return infer_error(ctx, "padding " + ints_str(p) + " must be at most half of kernel " +
                                ints_str(k));
  int64_t oh = window_out(x.shape[2], k[0], s[0], p[0], 1);
  int64_t ow = window_out(x.shape[3], k[1], s[1], p[1], 1);
  if (oh < 1 || ow < 1)
    return infer_error(ctx, "kernel " + ints_str(k) + " does not fit input " +
                                shape_to_string({x.shape[2], x.shape[3]}) + " with padding " +
                                ints_str(p));
  return TensorType{x.dtype, {x.shape[0], x.shape[1], oh, ow}};
}

namespace {
// The blocks [OH, OW] of unfold/fold's window over an input of spatial size
// [h, w], after checking the window attributes.
Expected<std::pair<int64_t, int64_t>> unfold_blocks(const InferContext& ctx, int64_t h, int64_t w) {
  for (auto [name, min] : {std::pair{"kernel", 1}, {"stride", 1}, {"padding", 0}, {"dilation", 1}})
    MLC_CHECK_OK(check_pair(ctx, name, min));
  const auto& k = ctx.attrs.get_ints("kernel");
  const auto& p = ctx.attrs.get_ints("padding");
  const auto& d = ctx.attrs.get_ints("dilation");
  auto blocks = [&](size_t i, int64_t size) { return window_out(size, k[i], ctx.attrs.get_ints("stride")[i], p[i], d[i]); };
  int64_t oh = blocks(0, h), ow = blocks(1, w);
  if (oh < 1 || ow < 1)
    return infer_error(ctx, "kernel " + ints_str(k) + " (dilation " + ints_str(d) + ") does not fit input " +
                                shape_to_string({h, w}) + " with padding " + ints_str(p));
  return std::make_pair(oh, ow);
}
}  // namespace

Expected<TensorType> infer_unfold(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, 0));
  const TensorType& x = ctx.operand(0);
  if (x.rank() != 4) return infer_error(ctx, "input must be [N,C,H,W], got " + x.str());
  MLC_TRY(auto blocks, unfold_blocks(ctx, x.shape[2], x.shape[3]));
  const auto& k = ctx.attrs.get_ints("kernel");
  return TensorType{x.dtype, {x.shape[0], x.shape[1] * k[0] * k[1], blocks.first * blocks.second}};
}

Expected<TensorType> infer_fold(const InferContext& ctx) {
  MLC_CHECK_OK(require_float(ctx, 0));
  const TensorType& cols = ctx.operand(0);
  if (cols.rank() != 3) return infer_error(ctx, "input must be [N, C*KH*KW, L], got " + cols.str());
  MLC_CHECK_OK(check_pair(ctx, "output_size", 1));
  const auto& size = ctx.attrs.get_ints("output_size");
  MLC_TRY(auto blocks, unfold_blocks(ctx, size[0], size[1]));
  const auto& k = ctx.attrs.get_ints("kernel");
  if (cols.shape[1] % (k[0] * k[1]) != 0)
    return infer_error(ctx, "input dim 1 (" + std::to_string(cols.shape[1]) +
                                ") must be a multiple of the kernel size " + ints_str(k) + " = " +
                                std::to_string(k[0] * k[1]) + ", got " + cols.str());
  if (cols.shape[2] != blocks.first * blocks.second)
    return infer_error(ctx, "input dim 2 (" + std::to_string(cols.shape[2]) + ") must be the " +
                                std::to_string(blocks.first * blocks.second) + " blocks (" +
                                std::to_string(blocks.first) + " x " + std::to_string(blocks.second) +
                                ") of output_size " + ints_str(size) + ", got " + cols.str());
  return TensorType{cols.dtype, {cols.shape[0], cols.shape[1] / (k[0] * k[1]), size[0], size[1]}};
}

Cost cost_dot(const Op& op) {
  const TensorType& a = op.operands[0]->type;
  bool ta = op.attrs.get_bool("transpose_a");
  int64_t k = a.shape[a.rank() - (ta ? 2 : 1)];
  Cost c;
  c.flops = 2 * op.result()->type.num_elements() * k;
  c.bytes = a.num_bytes() + op.operands[1]->type.num_bytes() + op.result()->type.num_bytes();
  return c;
}

Cost cost_conv2d(const Op& op) {
  const TensorType& w = op.operands[1]->type;
  Cost c;
  c.flops = 2 * op.result()->type.num_elements() * w.shape[1] * w.shape[2] * w.shape[3];
  c.bytes = op.operands[0]->type.num_bytes() + w.num_bytes() + op.result()->type.num_bytes();
  return c;
}

Cost cost_pool2d(const Op& op) {
  const auto& k = op.attrs.get_ints("kernel");
  Cost c;
  c.flops = op.result()->type.num_elements() * k[0] * k[1];
  c.bytes = op.operands[0]->type.num_bytes() + op.result()->type.num_bytes();
  return c;
}

}  // namespace mlc::rules

// ---- gradients of the window ops: each checks that running the forward op on
// the declared (or given) input reproduces dy's type.
namespace mlc::rules {

namespace {
// Runs `forward` on (x, w-or-nothing) and checks the result is `dy`.
Status check_forward(const InferContext& ctx, InferFn forward, std::vector<const TensorType*> operands,
                     const TensorType& dy) {
  InferContext fwd{ctx.op_name, operands, ctx.attrs, nullptr};
  auto y = forward(fwd);
  if (!y) return y.take_error();
  if (*y != dy)
    return infer_error(ctx, "dy " + dy.str() + " does not match the forward result " + y->str());
  return {};
}

Expected<TensorType> declared(const InferContext& ctx) {
  if (!ctx.declared) return infer_error(ctx, "the result type must be given");
  return *ctx.declared;
}
}  // namespace

Expected<TensorType> infer_conv2d_input_grad(const InferContext& ctx) {
  MLC_TRY(TensorType x, declared(ctx));
  MLC_CHECK_OK(check_forward(ctx, infer_conv2d, {&x, ctx.operands[1]}, ctx.operand(0)));
  return x;
}

Expected<TensorType> infer_conv2d_weight_grad(const InferContext& ctx) {
  MLC_TRY(TensorType w, declared(ctx));
  MLC_CHECK_OK(check_forward(ctx, infer_conv2d, {ctx.operands[0], &w}, ctx.operand(1)));
  return w;
}

Expected<TensorType> infer_max_pool2d_grad(const InferContext& ctx) {
  MLC_CHECK_OK(check_forward(ctx, infer_pool2d, {ctx.operands[0]}, ctx.operand(1)));
  return ctx.operand(0);
}

Expected<TensorType> infer_max_pool2d_indices(const InferContext& ctx) {
  MLC_TRY(TensorType y, infer_pool2d(ctx));
  y.dtype = DType::i64;
  return y;
}

Expected<TensorType> infer_max_pool2d_scatter(const InferContext& ctx) {
  MLC_TRY(TensorType x, declared(ctx));
  const TensorType& dy = ctx.operand(0);
  const TensorType& indices = ctx.operand(1);
  if (indices.dtype != DType::i64 || indices.shape != dy.shape)
    return infer_error(ctx, "indices must be i64 shaped like dy " + dy.str() + ", got " + indices.str());
  MLC_CHECK_OK(check_forward(ctx, infer_pool2d, {&x}, dy));
  return x;
}

Expected<TensorType> infer_avg_pool2d_grad(const InferContext& ctx) {
  MLC_TRY(TensorType x, declared(ctx));
  MLC_CHECK_OK(check_forward(ctx, infer_pool2d, {&x}, ctx.operand(0)));
  return x;
}

Cost cost_conv2d_grad(const Op& op) {
  // Same multiply-adds as the forward conv: dy elements x (C/groups * KH * KW).
  const bool input_grad = op.code == OpCode::Conv2dInputGrad;
  const TensorType& dy = input_grad ? op.operands[0]->type : op.operands[1]->type;
  const TensorType& w = input_grad ? op.operands[1]->type : op.result()->type;
  Cost c;
  c.flops = 2 * dy.num_elements() * w.shape[1] * w.shape[2] * w.shape[3];
  c.bytes = op.operands[0]->type.num_bytes() + op.operands[1]->type.num_bytes() +
            op.result()->type.num_bytes();
  return c;
}

Cost cost_pool2d_grad(const Op& op) {
  const auto& k = op.attrs.get_ints("kernel");
  const TensorType& dy = op.operands.back()->type;
  Cost c;
  c.flops = dy.num_elements() * k[0] * k[1];
  for (const Value* v : op.operands) c.bytes += v->type.num_bytes();
  c.bytes += op.result()->type.num_bytes();
  return c;
}

}  // namespace mlc::rules
