#include "compiler/conv_to_gemm.h"

#include "ir/builder.h"
#include "passes/cse.h"

namespace mlc {

namespace {

using Ints = std::vector<int64_t>;

bool rewritable(const Op& op) {
  if (op.code != OpCode::Conv2d && op.code != OpCode::Conv2dInputGrad && op.code != OpCode::Conv2dWeightGrad)
    return false;
  if (!is_float(op.result()->type.dtype)) return false;
  if (op.result()->type.num_elements() == 0) return false;
  for (const Value* v : op.operands)
    if (v->type.num_elements() == 0) return false;
  return true;
}

// Geometry of one convolution: x [n, c, h, w], w [o, c/g, kh, kw], y [n, o, oh, ow].
struct Conv {
  Shape x, w, y;
  int64_t groups;
  int64_t k() const { return w[1] * w[2] * w[3]; }  // K = C/g*KH*KW
  int64_t nl() const { return y[0] * y[2] * y[3]; }  // N*L
  // A per-group matrix as the dots take it: [g, rows, cols], or [rows, cols] for one group.
  Shape grouped(int64_t rows_per_group, int64_t cols) const {
    return groups == 1 ? Shape{rows_per_group, cols} : Shape{groups, rows_per_group, cols};
  }
};

class Rewriter {
 public:
  explicit Rewriter(Function& f) : f_(f) {}

  bool run() {
    const bool changed =
        rewrite_ops(f_, [](Builder& b, const Op& op) { return rewritable(op) ? rewrite(b, op) : nullptr; });
    // The columns of one x and the arrangement of one dy, built once per op
    // that reads them, become one each.
    if (changed && !eliminate_common_subexpressions(f_)) f_.erase_dead_values();
    return changed;
  }

 private:
  // x, w and y (or their gradients) of a convolution op, by their roles.
  static Conv geometry(const Op& op) {
    const int64_t g = op.attrs.get_int("groups");
    auto shape = [&](size_t i) { return op.operands[i]->type.shape; };
    const Shape& r = op.result()->type.shape;
    switch (op.code) {
      case OpCode::Conv2dInputGrad: return {r, shape(1), shape(0), g};   // (dy, w) -> dx
      case OpCode::Conv2dWeightGrad: return {shape(0), r, shape(1), g};  // (x, dy) -> dw
      default: return {shape(0), shape(1), r, g};                        // (x, w) -> y
    }
  }

  static Value* rewrite(Builder& b, const Op& op) {
    const Conv c = geometry(op);
    Value* in0 = op.operands[0];
    Value* in1 = op.operands[1];
    if (op.code == OpCode::Conv2d) {
      Value* w = b.reshape(in1, c.grouped(c.w[0] / c.groups, c.k()));
      Value* y = b.create(OpCode::Dot, {w, columns(b, op, c, in0)});
      return b.transpose(b.reshape(y, {c.y[1], c.y[0], c.y[2], c.y[3]}), {1, 0, 2, 3});
    }
    if (op.code == OpCode::Conv2dWeightGrad) {
      Value* dw = b.create(OpCode::Dot, {arranged_dy(b, c, in1), columns(b, op, c, in0)}, {{"transpose_b", true}});
      return b.reshape(dw, c.w);
    }
    // conv2d_input_grad: a half one in f32, rounded once after the fold's sums.
    const DType t = op.result()->type.dtype;
    const bool half = is_half(t);
    if (half) {
      in0 = b.cast(in0, DType::f32);
      in1 = b.cast(in1, DType::f32);
    }
    Value* w = b.reshape(in1, c.grouped(c.w[0] / c.groups, c.k()));
    Value* dcols = b.create(OpCode::Dot, {w, arranged_dy(b, c, in0)}, {{"transpose_a", true}});
    dcols = b.reshape(dcols, {c.x[1] * c.w[2] * c.w[3], c.y[0], c.y[2] * c.y[3]});
    Attrs attrs = window(op, c);
    attrs.set("output_size", Ints{c.x[2], c.x[3]});
    Value* dx = b.create(OpCode::Fold, {b.transpose(dcols, {1, 0, 2})}, attrs);
    return half ? b.cast(dx, t) : dx;
  }

  static Attrs window(const Op& op, const Conv& c) {
    return Attrs{{"kernel", Ints{c.w[2], c.w[3]}},
                 {"stride", op.attrs.get_ints("stride")},
                 {"padding", op.attrs.get_ints("padding")},
                 {"dilation", op.attrs.get_ints("dilation")}};
  }

  // unfold(x) [N, C*KH*KW, L] arranged [g, K, N*L] (rank 2 for one group).
  static Value* columns(Builder& b, const Op& op, const Conv& c, Value* x) {
    Value* cols = b.transpose(b.create(OpCode::Unfold, {x}, window(op, c)), {1, 0, 2});
    return b.reshape(cols, c.grouped(c.k(), c.nl()));
  }

  // dy [N, O, OH, OW] arranged [g, O/g, N*L] (rank 2 for one group).
  static Value* arranged_dy(Builder& b, const Conv& c, Value* dy) {
    Value* rows = b.transpose(b.reshape(dy, {c.y[0], c.y[1], c.y[2] * c.y[3]}), {1, 0, 2});
    return b.reshape(rows, c.grouped(c.y[1] / c.groups, c.nl()));
  }

  Function& f_;
};

}  // namespace

bool convolutions_to_gemm(Function& f) { return Rewriter(f).run(); }

}  // namespace mlc
