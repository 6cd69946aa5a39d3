// The VJP rule of every op (the autodiff column of the op table), written as
// the math reads. Conventions: `dy` has the op's result type; rules emit ops
// through `b` and fill `dx[i]` with the gradient of operand i (same type as the
// operand) or leave it nullptr when the operand gets none.
#include <cmath>
#include <numeric>

#include "ir/graph.h"
#include "ir/op_rules.h"
#include "ir/op_table.h"
#include "passes/vjp.h"

namespace mlc {

namespace {

using Kind = VjpRule::Kind;

Value* operand(const Op& op, size_t i) { return op.operands[i]; }
DType dtype_of(const Op& op) { return op.result()->type.dtype; }
Value* scalar(Builder& b, double v, DType t) { return b.scalar(v, t); }
Value* zeros(Builder& b, const TensorType& t) { return b.broadcast_to(b.scalar(0.0, t.dtype), t.shape); }

std::vector<int64_t> attr_ints(const Op& op, const char* name) { return op.attrs.get_ints(name); }

// Swaps the last two dims.
Value* transpose_last2(Builder& b, Value* x) {
  std::vector<int64_t> perm(x->type.rank());
  std::iota(perm.begin(), perm.end(), 0);
  std::swap(perm[perm.size() - 1], perm[perm.size() - 2]);
  return b.transpose(x, perm);
}

Value* dot(Builder& b, Value* a, Value* c, bool ta, bool tc) {
  return b.create(OpCode::Dot, {a, c}, {{"transpose_a", ta}, {"transpose_b", tc}});
}

// Elementwise binary rules produce result-shaped gradients; sum them down to
// each operand's shape.
void set_binary(Builder& b, const Op& op, std::vector<Value*>& dx, Value* da, Value* db) {
  if (da) dx[0] = unbroadcast(b, da, operand(op, 0)->type.shape);
  if (db) dx[1] = unbroadcast(b, db, operand(op, 1)->type.shape);
}

// ---- unary
void neg_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.unary(OpCode::Neg, dy);
}
void abs_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // d|x| = sign(x) dy, with sign(0) = 0.
  Value* x = operand(op, 0);
  Value* zero = scalar(b, 0, x->type.dtype);
  Value* pos = b.select(b.compare(x, zero, "gt"), dy, zero);
  dx[0] = b.select(b.compare(x, zero, "lt"), b.unary(OpCode::Neg, dy), pos);
}
void exp_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.mul(dy, op.result());
}
void log_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.div(dy, operand(op, 0));
}
void sqrt_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // dy / (2 sqrt(x))
  dx[0] = b.div(dy, b.mul(op.result(), scalar(b, 2, dtype_of(op))));
}
void rsqrt_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // -0.5 x^(-3/2) dy = -0.5 y^3 dy
  Value* y = op.result();
  Value* y3 = b.mul(b.mul(y, y), y);
  dx[0] = b.mul(b.mul(dy, y3), scalar(b, -0.5, dtype_of(op)));
}
void tanh_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Value* y = op.result();
  dx[0] = b.mul(dy, b.sub(scalar(b, 1, dtype_of(op)), b.mul(y, y)));
}
void sigmoid_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Value* y = op.result();
  dx[0] = b.mul(dy, b.mul(y, b.sub(scalar(b, 1, dtype_of(op)), y)));
}
void erf_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // 2/sqrt(pi) exp(-x^2) dy
  Value* x = operand(op, 0);
  Value* e = b.unary(OpCode::Exp, b.unary(OpCode::Neg, b.mul(x, x)));
  dx[0] = b.mul(dy, b.mul(e, scalar(b, M_2_SQRTPI, dtype_of(op))));
}
void sin_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.mul(dy, b.unary(OpCode::Cos, operand(op, 0)));
}
void cos_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.mul(b.unary(OpCode::Neg, dy), b.unary(OpCode::Sin, operand(op, 0)));
}
void relu_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // relu'(0) = 0, from the result as PyTorch's threshold_backward (y > 0
  // exactly where x > 0): the input need not outlive the forward pass, so
  // the op that makes it (a bias add) fuses into the relu.
  Value* y = op.result();
  Value* zero = scalar(b, 0, y->type.dtype);
  dx[0] = b.select(b.compare(y, zero, "gt"), dy, zero);
}
void silu_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // PyTorch's silu_backward: dy (s (1 + x (1 - s))), s = sigmoid(x), from the
  // input alone: the backward pass needs neither the sigmoid nor the result
  // kept from the forward pass.
  Value* x = operand(op, 0);
  Value* one = scalar(b, 1, x->type.dtype);
  Value* s = b.unary(OpCode::Sigmoid, x);
  dx[0] = b.mul(dy, b.mul(s, b.add(one, b.mul(x, b.sub(one, s)))));
}
void log1p_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Value* x = operand(op, 0);
  dx[0] = b.div(dy, b.add(scalar(b, 1, x->type.dtype), x));
}
void softplus_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // PyTorch's softplus_backward: x * beta > threshold ? dy : dy * z / (z + 1),
  // z = exp(x * beta) (an overflowing z is never selected).
  Value* x = operand(op, 0);
  const DType t = x->type.dtype;
  Value* bx = b.mul(x, scalar(b, op.attrs.get_float("beta"), t));
  Value* z = b.unary(OpCode::Exp, bx);
  Value* smooth = b.div(b.mul(dy, z), b.add(z, scalar(b, 1, t)));
  dx[0] = b.select(b.compare(bx, scalar(b, op.attrs.get_float("threshold"), t), "gt"), dy, smooth);
}
void hardswish_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // PyTorch's hardswish_backward: 0 below -3, dy (x / 3 + 0.5) up to 3, dy above.
  Value* x = operand(op, 0);
  const DType t = x->type.dtype;
  Value* ramp = b.mul(dy, b.add(b.div(x, scalar(b, 3, t)), scalar(b, 0.5, t)));
  Value* upper = b.select(b.compare(x, scalar(b, 3, t), "le"), ramp, dy);
  dx[0] = b.select(b.compare(x, scalar(b, -3, t), "lt"), zeros(b, x->type), upper);
}

// ---- softmax and log_softmax over `axis`, as PyTorch's backward kernels
// compute them from the result y (the max subtracted in the forward pass
// shifts every logit of a row alike, so it has no gradient; differentiating
// the decomposition would route terms through the max that only cancel).
int64_t softmax_axis(const Op& op) {
  return *rules::normalize_axis(op.attrs.get_int("axis"), operand(op, 0)->type.rank());
}
void softmax_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // y (dy - sum(dy y))
  Value* y = op.result();
  dx[0] = b.mul(y, b.sub(dy, b.reduce_sum(b.mul(dy, y), {softmax_axis(op)}, true)));
}
void log_softmax_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // dy - exp(y) sum(dy)
  Value* y = op.result();
  dx[0] = b.sub(dy, b.mul(b.unary(OpCode::Exp, y), b.reduce_sum(dy, {softmax_axis(op)}, true)));
}

// ---- binary
void add_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  set_binary(b, op, dx, dy, dy);
}
void sub_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  set_binary(b, op, dx, dy, b.unary(OpCode::Neg, dy));
}
void mul_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  set_binary(b, op, dx, b.mul(dy, operand(op, 1)), b.mul(dy, operand(op, 0)));
}
void div_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // d(a/b) = dy/b, -dy a / b^2
  Value* a = operand(op, 0);
  Value* c = operand(op, 1);
  Value* db = b.div(b.mul(b.unary(OpCode::Neg, dy), a), b.mul(c, c));
  set_binary(b, op, dx, b.div(dy, c), db);
}
// max/min: the gradient goes to the selected operand; at a tie it is split in
// half, as torch.maximum / torch.minimum do.
void extremum_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx, const char* wins) {
  Value* a = operand(op, 0);
  Value* c = operand(op, 1);
  DType t = dtype_of(op);
  Value* zero = scalar(b, 0, t);
  Value* half = b.mul(dy, scalar(b, 0.5, t));
  Value* tie = b.compare(a, c, "eq");
  Value* a_wins = b.compare(a, c, wins);
  Value* da = b.select(tie, half, b.select(a_wins, dy, zero));
  Value* dc = b.select(tie, half, b.select(a_wins, zero, dy));
  set_binary(b, op, dx, da, dc);
}
void max_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  extremum_rule(b, op, dy, dx, "gt");
}
void min_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  extremum_rule(b, op, dy, dx, "lt");
}
void pow_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // d(a^c) = c a^(c-1) dy, a^c log(a) dy (0 where a == 0)
  Value* a = operand(op, 0);
  Value* c = operand(op, 1);
  DType t = dtype_of(op);
  Value* cm1 = b.sub(c, scalar(b, 1, t));
  Value* da = b.mul(dy, b.mul(c, b.binary(OpCode::Pow, a, cm1)));
  Value* zero = scalar(b, 0, t);
  Value* a_zero = b.compare(a, zero, "eq");
  Value* dc = b.select(a_zero, zero, b.mul(dy, b.mul(op.result(), b.unary(OpCode::Log, a))));
  set_binary(b, op, dx, da, dc);
}
void select_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Value* p = operand(op, 0);
  Value* zero = scalar(b, 0, dtype_of(op));
  dx[1] = unbroadcast(b, b.select(p, dy, zero), operand(op, 1)->type.shape);
  dx[2] = unbroadcast(b, b.select(p, zero, dy), operand(op, 2)->type.shape);
}
void cast_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  DType from = operand(op, 0)->type.dtype;
  if (is_float(from) && is_float(dtype_of(op))) dx[0] = b.cast(dy, from);
}

// ---- shape
void broadcast_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  const Shape& in = operand(op, 0)->type.shape;
  const auto& dims = op.attrs.get_ints("dims");
  std::vector<bool> kept(dy->type.rank(), false);
  std::vector<int64_t> reduce;
  for (size_t i = 0; i < dims.size(); ++i) kept[dims[i]] = in[i] == dy->type.shape[dims[i]];
  for (int64_t d = 0; d < dy->type.rank(); ++d)
    if (!kept[d]) reduce.push_back(d);
  Value* g = reduce.empty() ? dy : b.reduce_sum(dy, reduce, false);
  dx[0] = b.reshape(g, in);
}
void reshape_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.reshape(dy, operand(op, 0)->type.shape);
}
void transpose_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  const auto& perm = op.attrs.get_ints("perm");
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = static_cast<int64_t>(i);
  dx[0] = b.transpose(dy, inverse);
}
void slice_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // Scatter dy back one dim at a time: along dim d, row i goes to start + i*stride.
  const Shape& in = operand(op, 0)->type.shape;
  auto start = attr_ints(op, "start"), limit = attr_ints(op, "limit"), stride = attr_ints(op, "stride");
  Value* g = dy;
  for (size_t d = 0; d < in.size(); ++d) {
    if (start[d] == 0 && limit[d] == in[d] && stride[d] == 1) continue;
    Shape shape = g->type.shape;
    shape[d] = in[d];
    std::vector<double> rows;
    for (int64_t i = 0; i < g->type.shape[d]; ++i) rows.push_back(static_cast<double>(start[d] + i * stride[d]));
    Value* idx = b.constant(rows, TensorType{DType::i64, {g->type.shape[d]}});
    g = b.create(OpCode::ScatterAdd, {zeros(b, TensorType{g->type.dtype, shape}), idx, g},
                 {{"axis", static_cast<int64_t>(d)}});
  }
  dx[0] = g;
}
void concat_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  int64_t axis = op.attrs.get_int("axis");
  if (axis < 0) axis += dy->type.rank();
  int64_t offset = 0;
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Shape& s = operand(op, i)->type.shape;
    std::vector<int64_t> start(s.size(), 0), limit = dy->type.shape, stride(s.size(), 1);
    start[axis] = offset;
    limit[axis] = offset + s[axis];
    offset += s[axis];
    dx[i] = b.create(OpCode::Slice, {dy}, {{"start", start}, {"limit", limit}, {"stride", stride}});
  }
}
void pad_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  const Shape& in = operand(op, 0)->type.shape;
  auto low = attr_ints(op, "low");
  std::vector<int64_t> limit(in.size()), stride(in.size(), 1);
  for (size_t d = 0; d < in.size(); ++d) limit[d] = low[d] + in[d];
  dx[0] = b.create(OpCode::Slice, {dy}, {{"start", low}, {"limit", limit}, {"stride", stride}});
}

// ---- reductions
// dy of a reduction, reshaped to keepdim form and broadcast back to x's shape.
Value* expand_reduced(Builder& b, const Op& op, Value* g) {
  const Shape& in = operand(op, 0)->type.shape;
  Shape kept = in;
  for (int64_t d : op.attrs.get_ints("dims")) kept[d < 0 ? d + in.size() : d] = 1;
  return b.broadcast_to(b.reshape(g, kept), in);
}
void reduce_sum_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = expand_reduced(b, op, dy);
}
// max/min reductions: the gradient is shared evenly by the elements equal to
// the result (torch.amax / amin).
void reduce_extremum_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Value* x = operand(op, 0);
  DType t = x->type.dtype;
  Value* hit = b.compare(x, expand_reduced(b, op, op.result()), "eq");
  Value* count = b.reduce_sum(b.cast(hit, t), op.attrs.get_ints("dims"), op.attrs.get_bool("keepdim"));
  Value* share = expand_reduced(b, op, b.div(dy, count));
  dx[0] = b.select(hit, share, scalar(b, 0, t));
}

// ---- contractions
void dot_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // y = A' B' with A' = a or a^T, B' = c or c^T; dA' = dy B'^T, dB' = A'^T dy.
  Value* a = operand(op, 0);
  Value* c = operand(op, 1);
  bool ta = op.attrs.get_bool("transpose_a"), tc = op.attrs.get_bool("transpose_b");
  Value* da_prime = dot(b, dy, c, false, !tc);
  dx[0] = ta ? transpose_last2(b, da_prime) : da_prime;
  if (c->type.rank() == a->type.rank()) {
    dx[1] = tc ? dot(b, dy, a, true, ta) : dot(b, a, dy, !ta, false);
    return;
  }
  // c is shared by every batch: fold the batch dims into rows.
  Value* a_rows = ta ? transpose_last2(b, a) : a;
  int64_t k = a_rows->type.shape.back();
  int64_t rows = a_rows->type.num_elements() / std::max<int64_t>(k, 1);
  a_rows = b.reshape(a_rows, {rows, k});
  Value* dy_rows = b.reshape(dy, {rows, dy->type.shape.back()});
  dx[1] = tc ? dot(b, dy_rows, a_rows, true, false) : dot(b, a_rows, dy_rows, true, false);
}
Attrs window_attrs(const Op& op, std::initializer_list<const char*> names) {
  Attrs attrs;
  for (const char* n : names) attrs.set(n, *op.attrs.find(n));
  return attrs;
}
void conv2d_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Attrs attrs = window_attrs(op, {"stride", "padding", "dilation", "groups"});
  dx[0] = b.create(OpCode::Conv2dInputGrad, {dy, operand(op, 1)}, attrs, operand(op, 0)->type);
  dx[1] = b.create(OpCode::Conv2dWeightGrad, {operand(op, 0), dy}, attrs, operand(op, 1)->type);
}
// conv2d_input_grad(dy, w) = A_w^T dy is linear in each operand (a transposed
// convolution): its transpose in dy is conv2d(g, w), and in w it is the
// weight gradient of conv2d at input g and output gradient dy.
void conv2d_input_grad_rule(Builder& b, const Op& op, Value* g, std::vector<Value*>& dx) {
  Attrs attrs = window_attrs(op, {"stride", "padding", "dilation", "groups"});
  dx[0] = b.create(OpCode::Conv2d, {g, operand(op, 1)}, attrs);
  dx[1] = b.create(OpCode::Conv2dWeightGrad, {g, operand(op, 0)}, attrs, operand(op, 1)->type);
}
// The forward's choices are saved as indices (cheaper than choosing again for
// every input element) and dy is routed to them.
void max_pool2d_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Attrs attrs = window_attrs(op, {"kernel", "stride", "padding"});
  Value* indices = b.create(OpCode::MaxPool2dIndices, {operand(op, 0)}, attrs);
  dx[0] = b.create(OpCode::MaxPool2dScatter, {dy, indices}, attrs, operand(op, 0)->type);
}
void avg_pool2d_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.create(OpCode::AvgPool2dGrad, {dy},
                   window_attrs(op, {"kernel", "stride", "padding", "count_include_pad"}),
                   operand(op, 0)->type);
}
void unfold_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // fold is unfold's transpose: each input element gets the sum of the columns that copied it.
  const Shape& x = operand(op, 0)->type.shape;
  Attrs attrs = window_attrs(op, {"kernel", "stride", "padding", "dilation"});
  attrs.set("output_size", std::vector<int64_t>{x[2], x[3]});
  dx[0] = b.create(OpCode::Fold, {dy}, attrs);
}
void fold_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  // unfold is fold's transpose: each column entry reads the output element it was added to.
  dx[0] = b.create(OpCode::Unfold, {dy}, window_attrs(op, {"kernel", "stride", "padding", "dilation"}));
}

// ---- indexing
void gather_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  Value* table = operand(op, 0);
  dx[0] = b.create(OpCode::ScatterAdd, {zeros(b, table->type), operand(op, 1), dy},
                   {{"axis", op.attrs.get_int("axis")}});
}
void scatter_add_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = dy;
  dx[2] = b.create(OpCode::Gather, {dy, operand(op, 1)}, {{"axis", op.attrs.get_int("axis")}});
}

// Collectives, in the convention of Megatron-LM's conjugate pairs: the loss
// is replicated and counted once, and the gradient of a replicated value is
// replicated. So all_reduce (P -> R) passes dy through; a gather's gradient is
// this device's chunk of dy; a reduce_scatter's and a shard_slice's gather the
// chunks of dy; an all_to_all's is the all_to_all back.
Attrs comm_dim_attrs(const Op& op, int64_t dim) {
  return {{"mesh_axis", op.attrs.get_string("mesh_axis")}, {"dim", dim}};
}
void all_reduce_rule(Builder&, const Op&, Value* dy, std::vector<Value*>& dx) { dx[0] = dy; }
void all_gather_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.create(OpCode::ShardSlice, {dy}, comm_dim_attrs(op, op.attrs.get_int("dim")), operand(op, 0)->type);
}
void gather_chunks_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.create(OpCode::AllGather, {dy}, comm_dim_attrs(op, op.attrs.get_int("dim")), operand(op, 0)->type);
}
void all_to_all_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  dx[0] = b.create(OpCode::AllToAll, {dy},
                   {{"mesh_axis", op.attrs.get_string("mesh_axis")},
                    {"split_dim", op.attrs.get_int("concat_dim")},
                    {"concat_dim", op.attrs.get_int("split_dim")}},
                   operand(op, 0)->type);
}

// A custom op's declared gradient (ir/ops.def `call`): @<callee>_vjp on the
// operands, the result and dy returns one gradient per operand (autodiff has
// checked that it exists).
void call_rule(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx) {
  std::vector<Value*> operands = op.operands;
  operands.push_back(op.result());
  operands.push_back(dy);
  std::vector<TensorType> types;
  for (const Value* x : op.operands) types.push_back(x->type);
  std::vector<Value*> grads = b.create_results(
      OpCode::Call, std::move(operands), {{"callee", op.attrs.get_string("callee") + "_vjp"}}, std::move(types));
  for (size_t i = 0; i < grads.size(); ++i) dx[i] = grads[i];
}

constexpr VjpRule rule(VjpFn fn) { return {Kind::rule, fn}; }
constexpr VjpRule kZero{Kind::zero, nullptr};
constexpr VjpRule kNone{Kind::none, nullptr};
constexpr VjpRule kDecompose{Kind::via_decomposition, nullptr};

}  // namespace

// ---- the column: one entry per op of ir/ops.def
namespace vjp {
constexpr VjpRule Neg = rule(neg_rule), Abs = rule(abs_rule), Exp = rule(exp_rule),
                  Log = rule(log_rule), Sqrt = rule(sqrt_rule), Rsqrt = rule(rsqrt_rule),
                  Tanh = rule(tanh_rule), Sigmoid = rule(sigmoid_rule), Erf = rule(erf_rule),
                  Sin = rule(sin_rule), Cos = rule(cos_rule);
constexpr VjpRule Add = rule(add_rule), Sub = rule(sub_rule), Mul = rule(mul_rule),
                  Div = rule(div_rule), Max = rule(max_rule), Min = rule(min_rule),
                  Pow = rule(pow_rule), Compare = kZero, RandomUniform = kZero, Select = rule(select_rule),
                  Cast = rule(cast_rule);
constexpr VjpRule Broadcast = rule(broadcast_rule), Reshape = rule(reshape_rule),
                  Transpose = rule(transpose_rule), Slice = rule(slice_rule),
                  Concat = rule(concat_rule), Pad = rule(pad_rule);
// Multi-result ops have no rules of their own yet (VjpFn takes one dy).
constexpr VjpRule Split = kDecompose;
// Fusion ops are made after autodiff (compiler/outline_fusions.h).
constexpr VjpRule Fusion = kNone;
constexpr VjpRule Call = rule(call_rule);
constexpr VjpRule ReduceSum = rule(reduce_sum_rule), ReduceMax = rule(reduce_extremum_rule),
                  ReduceMin = rule(reduce_extremum_rule), Argmax = kZero;
constexpr VjpRule Dot = rule(dot_rule), Conv2d = rule(conv2d_rule),
                  MaxPool2d = rule(max_pool2d_rule), AvgPool2d = rule(avg_pool2d_rule),
                  MaxPool2dIndices = kZero;
constexpr VjpRule Unfold = rule(unfold_rule), Fold = rule(fold_rule);
constexpr VjpRule Gather = rule(gather_rule), ScatterAdd = rule(scatter_add_rule);
constexpr VjpRule Iota = kZero, Constant = kZero;
// Gradient ops are not differentiated again (no second-order autodiff yet),
// but conv2d_input_grad, which is also ConvTranspose's forward.
constexpr VjpRule Conv2dInputGrad = rule(conv2d_input_grad_rule);
constexpr VjpRule Conv2dWeightGrad = kNone, MaxPool2dGrad = kNone,
                  MaxPool2dScatter = kNone, AvgPool2dGrad = kNone;
// all_reduce with reduce = "max" has no rule (vjp checks the attribute);
// broadcast, send and recv have none yet.
constexpr VjpRule AllReduce = rule(all_reduce_rule), AllGather = rule(all_gather_rule),
                  ReduceScatter = rule(gather_chunks_rule), AllToAll = rule(all_to_all_rule),
                  ShardSlice = rule(gather_chunks_rule), CollectiveBroadcast = kNone, Send = kNone,
                  Recv = kNone;
constexpr VjpRule Relu = rule(relu_rule), Silu = rule(silu_rule), Gelu = kDecompose,
                  Softmax = rule(softmax_rule), LogSoftmax = rule(log_softmax_rule), LayerNorm = kDecompose,
                  RmsNorm = kDecompose;
constexpr VjpRule Log1p = rule(log1p_rule), Softplus = rule(softplus_rule), Hardswish = rule(hardswish_rule),
                  LeakyRelu = kDecompose, Elu = kDecompose, Mish = kDecompose, Cumsum = kDecompose;
constexpr VjpRule CrossEntropy = kDecompose, NllLoss = kDecompose, Mse = kDecompose, L1Loss = kDecompose,
                  SmoothL1Loss = kDecompose, HuberLoss = kDecompose, BinaryCrossEntropy = kDecompose,
                  BinaryCrossEntropyWithLogits = kDecompose, KlDiv = kDecompose, CosineEmbeddingLoss = kDecompose;
}  // namespace vjp

const VjpRule& vjp_rule(OpCode code) {
  static const VjpRule table[kNumOps] = {
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) vjp::Enum,
#include "ir/ops.def"
#undef OP
  };
  return table[static_cast<size_t>(code)];
}

Value* unbroadcast(Builder& b, Value* grad, const Shape& shape) {
  const Shape& from = grad->type.shape;
  if (from == shape) return grad;
  size_t extra = from.size() - shape.size();
  std::vector<int64_t> dims;
  for (size_t d = 0; d < from.size(); ++d)
    if (d < extra || (shape[d - extra] == 1 && from[d] != 1)) dims.push_back(static_cast<int64_t>(d));
  Value* g = dims.empty() ? grad : b.reduce_sum(grad, dims, false);
  return b.reshape(g, shape);
}

}  // namespace mlc
