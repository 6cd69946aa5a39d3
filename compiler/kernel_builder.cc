// build_kernel (compiler/kernel_ir.h): a loop group's ops as kernel IR,
// expression by expression from the root's element back to the loads of
// its inputs (movement ops as index arithmetic, reductions and window ops
// as reduce expressions, gathers as checked indices, scatter_add as the
// kernel's scatter).
#include "compiler/kernel_ir.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "ir/op_table.h"

namespace mlc::kir {

namespace {

int64_t norm_axis(int64_t axis, size_t rank) { return axis < 0 ? axis + static_cast<int64_t>(rank) : axis; }

std::vector<int64_t> strides_of(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
  return st;
}

class KernelBuilder {
 public:
  KernelBuilder(const FusionGroup& g, std::vector<const Value*>& inputs) : inputs_(inputs) {
    for (const Op* op : g.ops) members_.insert(op);
  }

  Expected<Kernel> build(const FusionGroup& g, std::string name) {
    const Op& root = *g.root();
    k_.name = std::move(name);
    k_.domain = root.result()->type.shape;
    std::vector<int> idx;
    for (size_t d = 0; d < k_.domain.size(); ++d) idx.push_back(new_var());
    out_linear_ = linear(idx, k_.domain);
    if (root.code == OpCode::ScatterAdd) {
      MLC_TRY(k_.root, scatter_add(root, idx));
    } else {
      MLC_TRY(k_.root, value(root.result(), idx));
    }
    for (const Op* op : g.outputs) {
      MLC_TRY(int r, value(op->result(), idx));
      k_.more_roots.push_back(r);
    }
    k_.more_alias.assign(g.outputs.size(), -1);
    for (const Value* v : inputs_) k_.params.push_back(v->type.dtype);
    k_.params.push_back(root.result()->type.dtype);
    for (const Op* op : g.outputs) k_.params.push_back(op->result()->type.dtype);
    k_.elementwise_input.resize(inputs_.size(), true);
    for (int p : not_elementwise_) k_.elementwise_input[p] = false;
    for (const Op* op : g.ops) {
      if (auto it = checks_.find(op); it != checks_.end()) k_.index_checks.push_back(it->second);
      if (!k_.origin.empty()) k_.origin += ", ";
      k_.origin += std::string(op_name(op->code));
      if (op->loc.known()) k_.origin += " (" + op->loc.str() + ")";
    }
    return std::move(k_);
  }

 private:
  int new_var() {
    Expr e;
    e.kind = ExprKind::var;
    e.i = k_.num_vars++;
    k_.exprs.push_back(e);
    return static_cast<int>(k_.exprs.size()) - 1;
  }

  int add(Expr e) {
    uint64_t fbits;
    std::memcpy(&fbits, &e.f, sizeof fbits);
    auto key = std::make_tuple(e.kind, e.dtype, e.op, e.dir, e.a, e.b, e.c, e.i, fbits);
    auto it = memo_.find(key);
    if (it != memo_.end()) return it->second;
    k_.exprs.push_back(std::move(e));
    int id = static_cast<int>(k_.exprs.size()) - 1;
    memo_.emplace(key, id);
    return id;
  }
  const Expr& at(int id) const { return k_.exprs[id]; }
  bool is_iconst(int id, int64_t v) const { return at(id).kind == ExprKind::iconst && at(id).i == v; }

  int iconst(int64_t v) {
    Expr e;
    e.kind = ExprKind::iconst;
    e.i = v;
    return add(e);
  }
  int index_op(ExprKind kind, int a, int b) {
    if (at(a).kind == ExprKind::iconst && at(b).kind == ExprKind::iconst) {
      int64_t x = at(a).i, y = at(b).i;
      switch (kind) {
        case ExprKind::iadd: return iconst(x + y);
        case ExprKind::imul: return iconst(x * y);
        case ExprKind::idiv: return iconst(x / y);
        case ExprKind::irem: return iconst(x % y);
        case ExprKind::imin: return iconst(std::min(x, y));
        case ExprKind::imax: return iconst(std::max(x, y));
        default: break;
      }
    }
    if (kind == ExprKind::iadd) {
      if (int s = merge_digits(a, b); s >= 0) return s;
      if (int s = merge_digits(b, a); s >= 0) return s;
    }
    if (kind == ExprKind::iadd && is_iconst(b, 0)) return a;
    if (kind == ExprKind::iadd && is_iconst(a, 0)) return b;
    if (kind == ExprKind::imul && (is_iconst(a, 0) || is_iconst(b, 0))) return iconst(0);
    if (kind == ExprKind::imul && is_iconst(b, 1)) return a;
    if (kind == ExprKind::imul && is_iconst(a, 1)) return b;
    if (kind == ExprKind::idiv && is_iconst(b, 1)) return a;
    Expr e;
    e.kind = kind;
    e.a = a;
    e.b = b;
    if (kind == ExprKind::ilt) e.dtype = DType::boolean;
    return add(e);
  }
  // Is `e` the index op `kind` of some x and a constant? Sets x and the constant.
  bool match_const(int e, ExprKind kind, int& x, int64_t& c) const {
    if (at(e).kind != kind || at(at(e).b).kind != ExprKind::iconst) return false;
    x = at(e).a;
    c = at(at(e).b).i;
    return true;
  }
  // Undoes a reshape's split of a linear index s into digits, so that loads
  // through reshapes index linearly again: with truncating division,
  //   s % C + (s / C) * C == s   and   s % C + (s / C % D) * C == s % (C * D).
  // Returns the merged index, or -1 if `low` + `high` is not of that form.
  int merge_digits(int low, int high) {
    int s, q, t, inner;
    int64_t c, c2, d;
    if (!match_const(low, ExprKind::irem, s, c) || !match_const(high, ExprKind::imul, q, c2) || c2 != c) return -1;
    if (match_const(q, ExprKind::idiv, t, c2) && c2 == c && t == s) return s;
    if (match_const(q, ExprKind::irem, inner, d) && match_const(inner, ExprKind::idiv, t, c2) && c2 == c && t == s)
      return index_op(ExprKind::irem, s, iconst(c * d));
    return -1;
  }

  int clamp(int j, int64_t size) { return index_op(ExprKind::imin, index_op(ExprKind::imax, j, iconst(0)), iconst(size - 1)); }
  int isub(int a, int b) { return index_op(ExprKind::iadd, a, index_op(ExprKind::imul, b, iconst(-1))); }
  // bool: a && b, where -1 stands for true.
  int both(int a, int b) {
    if (a < 0) return b;
    if (b < 0) return a;
    return node(ExprKind::select, DType::boolean, a, b, constant(DType::boolean, 0, 0));
  }
  // bool: lo <= j < hi.
  int in_range(int j, int64_t lo, int64_t hi) {
    return both(index_op(ExprKind::ilt, iconst(lo - 1), j), index_op(ExprKind::ilt, j, iconst(hi)));
  }
  int to_dtype(int x, DType t) { return at(x).dtype == t ? x : node(ExprKind::cast, t, x); }
  // A reduce (not shared: its variables are its own).
  int push_reduce(Expr e) {
    k_.exprs.push_back(std::move(e));
    return static_cast<int>(k_.exprs.size()) - 1;
  }
  Expr reduce_expr(OpCode code, DType t, std::vector<int64_t> extents) {
    Expr e;
    e.kind = ExprKind::reduce;
    e.dtype = t;
    e.op = code;
    e.var0 = k_.num_vars;
    e.extents = std::move(extents);
    return e;
  }

  // Summed from the innermost dim out, so that merge_digits sees each digit next to the one below.
  int linear(const std::vector<int>& idx, const Shape& shape) {
    std::vector<int64_t> st = strides_of(shape);
    int l = iconst(0);
    for (size_t d = shape.size(); d-- > 0;)
      if (shape[d] != 1) l = index_op(ExprKind::iadd, l, index_op(ExprKind::imul, idx[d], iconst(st[d])));
    return l;
  }

  int node(ExprKind kind, DType t, int a, int b = -1, int c = -1, OpCode op = OpCode::Add) {
    Expr e;
    e.kind = kind;
    e.dtype = t;
    e.a = a;
    e.b = b;
    e.c = c;
    e.op = op;
    return add(e);
  }
  int constant(DType t, double f, int64_t i) {
    Expr e;
    e.kind = ExprKind::constant;
    e.dtype = t;
    e.f = f;
    e.i = i;
    return add(e);
  }

  // Index into `operand` (numpy broadcasting) for result index `idx` of shape `result`.
  std::vector<int> broadcast_index(const std::vector<int>& idx, const Shape& operand, const Shape& result) {
    std::vector<int> o(operand.size());
    size_t shift = result.size() - operand.size();
    for (size_t d = 0; d < operand.size(); ++d) o[d] = operand[d] == 1 ? iconst(0) : idx[d + shift];
    return o;
  }

  Expected<int> operand_at(const Op& op, size_t k, const std::vector<int>& idx) {
    const Value* v = op.operands[k];
    return value(v, broadcast_index(idx, v->type.shape, op.result()->type.shape));
  }

  Expected<int> value(const Value* v, const std::vector<int>& idx) {
    auto key = std::make_pair(v, idx);
    auto it = values_.find(key);
    if (it != values_.end()) return it->second;
    MLC_TRY(int id, compute(v, idx));
    values_.emplace(std::move(key), id);
    return id;
  }

  // ---- pooling (ir/ops.def; runtime/kernels/pool.cc is the reference)

  // One spatial dim (0: rows, 1: columns) of a pooling op's windows over
  // [N, C, H, W]: window o covers input positions o * stride - pad + [0, kernel).
  struct WindowDim {
    int64_t kernel, stride, pad, in, out;
  };
  static std::array<WindowDim, 2> window_dims(const Op& op, const Shape& x, const Shape& y) {
    const auto& k = op.attrs.get_ints("kernel");
    const auto& s = op.attrs.get_ints("stride");
    const auto& p = op.attrs.get_ints("padding");
    return {WindowDim{k[0], s[0], p[0], x[2], y[2]}, WindowDim{k[1], s[1], p[1], x[3], y[3]}};
  }

  // Input position o * stride - pad + k of window o, clamped into the input,
  // and whether it is inside (-1: always, as in every window without padding).
  struct Tap {
    int at, inside;
  };
  Tap tap(const WindowDim& w, int o, int k) {
    int j = index_op(ExprKind::iadd, index_op(ExprKind::imul, o, iconst(w.stride)), index_op(ExprKind::iadd, k, iconst(-w.pad)));
    if (w.pad == 0) return {j, -1};
    return {clamp(j, w.in), in_range(j, 0, w.in)};
  }

  // `code` (dtype t) folded over window (oy, ox) of plane (n, c) of x, in
  // row-major window order, of f(x at the tap); padding taps are masked out.
  template <class F>
  Expected<int> window_reduce(OpCode code, DType t, const Value* x, const std::array<WindowDim, 2>& w,
                              const std::vector<int>& idx, int oy, int ox, F f) {
    Expr e = reduce_expr(code, t, {w[0].kernel, w[1].kernel});
    int ky = new_var(), kx = new_var();
    Tap ty = tap(w[0], oy, ky), tx = tap(w[1], ox, kx);
    MLC_TRY(int v, value(x, {idx[0], idx[1], ty.at, tx.at}));
    e.a = f(v);
    e.b = both(ty.inside, tx.inside);
    return push_reduce(std::move(e));
  }

  // The windows containing input position i along one dim, as candidate a in
  // [0, count): o = (i + pad) / stride - (count - 1) + a, count =
  // ceil(kernel / stride), ascending in o. `valid` says whether window o
  // exists and covers i (-1: always); `at` is o clamped into [0, out).
  struct Candidate {
    int at, valid;
  };
  static int64_t candidates(const WindowDim& w) { return (w.kernel + w.stride - 1) / w.stride; }
  Candidate candidate(const WindowDim& w, int i, int a) {
    const int64_t count = candidates(w);
    int o = index_op(ExprKind::iadd, index_op(ExprKind::idiv, index_op(ExprKind::iadd, i, iconst(w.pad)), iconst(w.stride)),
                     index_op(ExprKind::iadd, a, iconst(1 - count)));
    // Conditions that can fail for some i: o < 0 only with several candidates;
    // o >= out where the last rows are in no window; i past the window's end
    // where the stride does not divide the kernel.
    const bool low = count > 1, high = (w.in - 1 + w.pad) / w.stride >= w.out;
    int valid = low ? index_op(ExprKind::ilt, iconst(-1), o) : -1;
    if (high) valid = both(valid, index_op(ExprKind::ilt, o, iconst(w.out)));
    if (w.kernel % w.stride != 0)
      valid = both(valid, index_op(ExprKind::ilt, offset_in_window(w, i, o), iconst(w.kernel)));
    return {low || high ? clamp(o, w.out) : o, valid};
  }
  // i's position in window o: i - (o * stride - pad).
  int offset_in_window(const WindowDim& w, int i, int o) {
    return isub(index_op(ExprKind::iadd, i, iconst(w.pad)), index_op(ExprKind::imul, o, iconst(w.stride)));
  }

  // bool: a == b (i64 values).
  int cmp_eq(int a, int b) {
    Expr e;
    e.kind = ExprKind::cmp;
    e.dtype = DType::boolean;
    e.dir = scalar::CmpDir::eq;
    e.a = a;
    e.b = b;
    return add(e);
  }
  // An index expression as an i64 value.
  int index_as_value(int i) { return node(ExprKind::index_value, DType::i64, i); }
  // i64 value arithmetic (ir/scalar_math.h): a value `a` and an index expression `b`.
  int ivalue(OpCode code, int a, int b) { return node(ExprKind::binary, DType::i64, a, index_as_value(b), -1, code); }
  // Window o's first input position along one dim (may be padding): o * stride - pad.
  int window_start(const WindowDim& w, int o) {
    return index_op(ExprKind::iadd, index_op(ExprKind::imul, o, iconst(w.stride)), iconst(-w.pad));
  }

  // The pooling gradients at input element idx: the sum, over the windows
  // containing it (candidates, ascending), of dy where selected(cy, cx) (a bool
  // expression) holds, in the accumulator of reduce_sum, rounded once. With
  // one candidate per dim that sum has one term: 0 + dy selected, else 0, with
  // no loop.
  template <class Selected>
  Expected<int> route_to_chosen(DType t, const Value* dy, const std::array<WindowDim, 2>& w,
                                const std::vector<int>& idx, Selected selected) {
    Expr e = reduce_expr(OpCode::ReduceSum, t, {candidates(w[0]), candidates(w[1])});
    const bool single = candidates(w[0]) == 1 && candidates(w[1]) == 1;
    int ay = single ? iconst(0) : new_var(), ax = single ? iconst(0) : new_var();
    Candidate cy = candidate(w[0], idx[2], ay), cx = candidate(w[1], idx[3], ax);
    MLC_TRY(int hit, selected(cy, cx));
    MLC_TRY(int g, value(dy, {idx[0], idx[1], cy.at, cx.at}));
    hit = both(both(cy.valid, cx.valid), hit);
    if (!single) {
      e.a = g;
      e.b = hit;
      return push_reduce(std::move(e));
    }
    const DType acc = is_float(t) ? DType::f64 : DType::i64;
    int zero = constant(acc, 0, 0);
    int term = node(ExprKind::binary, acc, zero, to_dtype(g, acc), -1, OpCode::Add);
    return to_dtype(node(ExprKind::select, acc, hit, term, zero), t);
  }

  // avg_pool2d's divisor factor along one dim for window o: the window's
  // extent within the padded input (count_include_pad), else within the input.
  int window_extent(const WindowDim& w, bool include_pad, int o) {
    int start = index_op(ExprKind::iadd, index_op(ExprKind::imul, o, iconst(w.stride)), iconst(-w.pad));
    if (include_pad) return index_op(ExprKind::imin, iconst(w.kernel), isub(iconst(w.in + w.pad), start));
    return isub(index_op(ExprKind::imin, index_op(ExprKind::iadd, start, iconst(w.kernel)), iconst(w.in)),
                index_op(ExprKind::imax, start, iconst(0)));
  }
  int avg_divisor(const std::array<WindowDim, 2>& w, bool include_pad, int oy, int ox) {
    int n = index_op(ExprKind::imul, window_extent(w[0], include_pad, oy), window_extent(w[1], include_pad, ox));
    return node(ExprKind::index_value, DType::f64, n);
  }

  // The pooling ops at index idx = (n, c, y, x) of their result. Sums are in
  // double and divided there, rounding once, as the reference kernels do.
  Expected<int> window_op(const Op& op, const std::vector<int>& idx) {
    const DType t = op.result()->type.dtype;
    const Value* x = op.operands[0];
    const Shape& out = op.result()->type.shape;
    auto same = [](int e) { return e; };
    switch (op.code) {
      case OpCode::MaxPool2d:
        return window_reduce(OpCode::ReduceMax, t, x, window_dims(op, x->type.shape, out), idx, idx[2], idx[3], same);
      case OpCode::AvgPool2d: {
        auto w = window_dims(op, x->type.shape, out);
        MLC_TRY(int sum, window_reduce(OpCode::ReduceSum, DType::f64, x, w, idx, idx[2], idx[3],
                                       [&](int e) { return to_dtype(e, DType::f64); }));
        int div = avg_divisor(w, op.attrs.get_bool("count_include_pad"), idx[2], idx[3]);
        return to_dtype(node(ExprKind::binary, DType::f64, sum, div, -1, OpCode::Div), t);
      }
      case OpCode::MaxPool2dIndices: {
        // The window's argmax (row-major over its taps) as a flat index in the plane.
        const auto w = window_dims(op, x->type.shape, out);
        MLC_TRY(int tap, window_reduce(OpCode::Argmax, DType::i64, x, w, idx, idx[2], idx[3], same));
        // tap = row * KW + col  ->  (start_y + row) * W + start_x + col.
        int row = ivalue(OpCode::Div, tap, iconst(w[1].kernel));
        int col = node(ExprKind::binary, DType::i64, tap, ivalue(OpCode::Mul, row, iconst(w[1].kernel)), -1, OpCode::Sub);
        int origin = index_op(ExprKind::iadd, index_op(ExprKind::imul, window_start(w[0], idx[2]), iconst(w[1].in)),
                              window_start(w[1], idx[3]));
        int flat = node(ExprKind::binary, DType::i64, ivalue(OpCode::Mul, row, iconst(w[1].in)), col, -1, OpCode::Add);
        return ivalue(OpCode::Add, flat, origin);
      }
      case OpCode::MaxPool2dGrad: {
        // dy of each window whose selected element (the forward's argmax over
        // the window, recomputed) is this one.
        const Value* dy = op.operands[1];
        auto w = window_dims(op, out, dy->type.shape);
        return route_to_chosen(t, dy, w, idx, [&](Candidate cy, Candidate cx) -> Expected<int> {
          MLC_TRY(int chosen, window_reduce(OpCode::Argmax, DType::i64, x, w, idx, cy.at, cx.at, same));
          int mine = index_op(ExprKind::iadd, index_op(ExprKind::imul, offset_in_window(w[0], idx[2], cy.at), iconst(w[1].kernel)),
                              offset_in_window(w[1], idx[3], cx.at));
          return cmp_eq(chosen, mine);
        });
      }
      case OpCode::MaxPool2dScatter: {
        // dy of each window whose saved index is this element.
        const Value* dy = x;
        auto w = window_dims(op, out, dy->type.shape);
        return route_to_chosen(t, dy, w, idx, [&](Candidate cy, Candidate cx) -> Expected<int> {
          MLC_TRY(int chosen, value(op.operands[1], {idx[0], idx[1], cy.at, cx.at}));
          return cmp_eq(chosen, index_as_value(linear({idx[2], idx[3]}, {w[0].in, w[1].in})));
        });
      }
      case OpCode::AvgPool2dGrad: {
        // dy / divisor of each window containing this element.
        const Value* dy = x;
        auto w = window_dims(op, out, dy->type.shape);
        Expr e = reduce_expr(OpCode::ReduceSum, DType::f64, {candidates(w[0]), candidates(w[1])});
        int ay = new_var(), ax = new_var();
        Candidate cy = candidate(w[0], idx[2], ay), cx = candidate(w[1], idx[3], ax);
        MLC_TRY(int g, value(dy, {idx[0], idx[1], cy.at, cx.at}));
        int div = avg_divisor(w, op.attrs.get_bool("count_include_pad"), cy.at, cx.at);
        e.a = node(ExprKind::binary, DType::f64, to_dtype(g, DType::f64), div, -1, OpCode::Div);
        e.b = both(cy.valid, cx.valid);
        return to_dtype(push_reduce(std::move(e)), t);
      }
      default:
        return make_error("mlc internal error: " + std::string(op_name(op.code)) + " is not a window op");
    }
  }

  Expected<int> compute(const Value* v, const std::vector<int>& idx) {
    const Op* op = v->producer;
    const DType t = v->type.dtype;
    if (!op || !members_.count(op)) {
      auto [it, fresh] = input_index_.try_emplace(v, static_cast<int>(inputs_.size()));
      if (fresh) inputs_.push_back(v);
      int lin = linear(idx, v->type.shape);
      if (lin != out_linear_ || v->type.shape != k_.domain) not_elementwise_.insert(it->second);
      Expr e;
      e.kind = ExprKind::load;
      e.dtype = t;
      e.i = it->second;
      e.a = lin;
      return add(e);
    }
    const Attrs& at = op->attrs;
    const Shape& in0 = op->operands.empty() ? Shape{} : op->operands[0]->type.shape;
    switch (op->code) {
      case OpCode::Neg: case OpCode::Abs: case OpCode::Exp: case OpCode::Log: case OpCode::Sqrt:
      case OpCode::Rsqrt: case OpCode::Tanh: case OpCode::Sigmoid: case OpCode::Erf: case OpCode::Sin:
      case OpCode::Cos: {
        MLC_TRY(int a, operand_at(*op, 0, idx));
        return node(ExprKind::unary, t, a, -1, -1, op->code);
      }
      case OpCode::Add: case OpCode::Sub: case OpCode::Mul: case OpCode::Div: case OpCode::Max:
      case OpCode::Min: case OpCode::Pow: {
        MLC_TRY(int a, operand_at(*op, 0, idx));
        MLC_TRY(int b, operand_at(*op, 1, idx));
        return node(ExprKind::binary, t, a, b, -1, op->code);
      }
      case OpCode::Compare: {
        MLC_TRY(int a, operand_at(*op, 0, idx));
        MLC_TRY(int b, operand_at(*op, 1, idx));
        Expr e;
        e.kind = ExprKind::cmp;
        e.dtype = DType::boolean;
        e.a = a;
        e.b = b;
        e.dir = scalar::parse_direction(at.get_string("direction"));
        return add(e);
      }
      case OpCode::Select: {
        MLC_TRY(int p, operand_at(*op, 0, idx));
        MLC_TRY(int a, operand_at(*op, 1, idx));
        MLC_TRY(int b, operand_at(*op, 2, idx));
        return node(ExprKind::select, t, p, a, b);
      }
      case OpCode::Cast: {
        MLC_TRY(int a, operand_at(*op, 0, idx));
        if (op->operands[0]->type.dtype == t) return a;
        return node(ExprKind::cast, t, a);
      }
      case OpCode::Broadcast: {
        const std::vector<int64_t>& dims = at.get_ints("dims");
        std::vector<int> o(in0.size());
        for (size_t d = 0; d < in0.size(); ++d) o[d] = in0[d] == 1 ? iconst(0) : idx[dims[d]];
        return value(op->operands[0], o);
      }
      case OpCode::Transpose: {
        const std::vector<int64_t>& perm = at.get_ints("perm");
        std::vector<int> o(in0.size());
        for (size_t d = 0; d < perm.size(); ++d) o[perm[d]] = idx[d];
        return value(op->operands[0], o);
      }
      case OpCode::Slice: {
        const std::vector<int64_t>& start = at.get_ints("start");
        const std::vector<int64_t>& stride = at.get_ints("stride");
        std::vector<int> o(in0.size());
        for (size_t d = 0; d < in0.size(); ++d)
          o[d] = index_op(ExprKind::iadd, iconst(start[d]), index_op(ExprKind::imul, idx[d], iconst(stride[d])));
        return value(op->operands[0], o);
      }
      case OpCode::Reshape: {
        int l = linear(idx, v->type.shape);
        std::vector<int64_t> st = strides_of(in0);
        std::vector<int> o(in0.size());
        for (size_t d = 0; d < in0.size(); ++d) {
          if (in0[d] == 1) {
            o[d] = iconst(0);
            continue;
          }
          int q = index_op(ExprKind::idiv, l, iconst(st[d]));
          o[d] = d == 0 ? q : index_op(ExprKind::irem, q, iconst(in0[d]));
        }
        return value(op->operands[0], o);
      }
      case OpCode::Pad: {
        const std::vector<int64_t>& low = at.get_ints("low");
        const std::vector<int64_t>& high = at.get_ints("high");
        std::vector<int> o(in0.size());
        int inside = -1;
        for (size_t d = 0; d < in0.size(); ++d) {
          int j = index_op(ExprKind::iadd, idx[d], iconst(-low[d]));
          if (low[d] == 0 && high[d] == 0) {
            o[d] = j;
            continue;
          }
          inside = both(inside, in_range(j, 0, in0[d]));
          o[d] = in0[d] > 0 ? clamp(j, in0[d]) : iconst(0);
        }
        double pad = at.get_float("value");
        int fill = constant(t, pad, static_cast<int64_t>(pad));
        if (inside < 0) return value(op->operands[0], o);
        bool empty = num_elements(in0) == 0;
        if (empty) return fill;
        MLC_TRY(int x, value(op->operands[0], o));
        return node(ExprKind::select, t, inside, x, fill);
      }
      case OpCode::Concat: {
        const size_t axis = static_cast<size_t>(norm_axis(at.get_int("axis"), in0.size()));
        std::vector<int64_t> offsets;
        int64_t off = 0;
        for (const Value* x : op->operands) {
          offsets.push_back(off);
          off += x->type.shape[axis];
        }
        int result = -1;
        for (size_t k = op->operands.size(); k-- > 0;) {
          const Value* x = op->operands[k];
          if (x->type.shape[axis] == 0) continue;
          std::vector<int> o = idx;
          o[axis] = clamp(index_op(ExprKind::iadd, idx[axis], iconst(-offsets[k])), x->type.shape[axis]);
          MLC_TRY(int xv, value(x, o));
          result = result < 0 ? xv
                              : node(ExprKind::select, t, index_op(ExprKind::ilt, idx[axis], iconst(offsets[k] + x->type.shape[axis])), xv, result);
        }
        return result;
      }
      case OpCode::Gather: return gather(*op, idx);
      case OpCode::RandomUniform: {
        MLC_TRY(int index, operand_at(*op, 0, idx));
        MLC_TRY(int step, operand_at(*op, 1, idx));
        Expr e;
        e.kind = ExprKind::random;
        e.dtype = DType::f32;
        e.a = index;
        e.b = step;
        e.i = at.get_int("seed");
        e.f = static_cast<double>(static_cast<uint32_t>(at.get_int("stream")));
        return add(e);
      }
      case OpCode::Unfold: return unfold(*op, idx);
      case OpCode::Fold: return fold(*op, idx);
      case OpCode::Iota: {
        int d = static_cast<int>(norm_axis(at.get_int("dim"), v->type.shape.size()));
        return node(ExprKind::index_value, t, idx[d]);
      }
      case OpCode::Constant: {
        const AttrValue* c = at.find("value");
        if (const double* f = std::get_if<double>(c)) return constant(t, *f, static_cast<int64_t>(*f));
        int64_t i = std::get<int64_t>(*c);
        return constant(t, static_cast<double>(i), i);
      }
      case OpCode::ReduceSum: case OpCode::ReduceMax: case OpCode::ReduceMin: case OpCode::Argmax: {
        std::vector<bool> reduced(in0.size(), false);
        if (op->code == OpCode::Argmax) {
          reduced[norm_axis(at.get_int("axis"), in0.size())] = true;
        } else {
          for (int64_t d : at.get_ints("dims")) reduced[norm_axis(d, in0.size())] = true;
        }
        bool keepdim = op->code != OpCode::Argmax && at.get_bool("keepdim");
        Expr e = reduce_expr(op->code, t, {});
        std::vector<int> o(in0.size());
        size_t kept = 0;
        for (size_t d = 0; d < in0.size(); ++d) {
          if (reduced[d]) {
            o[d] = new_var();
            e.extents.push_back(in0[d]);
            if (keepdim) ++kept;
          } else {
            o[d] = idx[keepdim ? d : kept++];
          }
        }
        MLC_TRY(e.a, value(op->operands[0], o));
        return push_reduce(std::move(e));
      }
      case OpCode::MaxPool2d: case OpCode::AvgPool2d: case OpCode::MaxPool2dGrad: case OpCode::AvgPool2dGrad:
      case OpCode::MaxPool2dIndices: case OpCode::MaxPool2dScatter:
        return window_op(*op, idx);
      default:
        return make_error("mlc internal error: " + std::string(op_name(op->code)) + " in a loop kernel");
    }
  }

  // ---- gather (ir/ops.def; runtime/kernels/indexing.cc is the reference)

  // The index of `op`'s indices (an input of the kernel: fusion computes
  // none inside it) at `at`, checked against the size of `op`'s axis; the
  // check is recorded once per op.
  Expected<int> checked_index(const Op& op, const std::vector<int>& at, int64_t axis, int64_t bound) {
    const Value* indices = op.operands[1];
    if (indices->producer && members_.count(indices->producer))
      return make_error("mlc internal error: " + std::string(op_name(op.code)) + "'s indices computed in its kernel");
    MLC_TRY(int v, value(indices, at));
    checks_.try_emplace(&op, rt::IndexCheck{input_index_.at(indices), bound, axis, std::string(op_name(op.code)), op.loc});
    Expr e;
    e.kind = ExprKind::checked_index;
    e.a = v;
    e.i = bound;
    return add(e);
  }

  // result[p..., j..., q...] = table[p..., indices[j...], q...] along axis.
  Expected<int> gather(const Op& op, const std::vector<int>& idx) {
    const Value* table = op.operands[0];
    const size_t rank = table->type.shape.size(), ri = op.operands[1]->type.shape.size();
    const size_t axis = static_cast<size_t>(norm_axis(op.attrs.get_int("axis"), rank));
    std::vector<int> j(idx.begin() + static_cast<std::ptrdiff_t>(axis), idx.begin() + static_cast<std::ptrdiff_t>(axis + ri));
    MLC_TRY(int row, checked_index(op, j, static_cast<int64_t>(axis), table->type.shape[axis]));
    std::vector<int> o(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(axis));
    o.push_back(row);
    o.insert(o.end(), idx.begin() + static_cast<std::ptrdiff_t>(axis + ri), idx.end());
    return value(table, o);
  }

  // scatter_add as the kernel's root: the operand at the output's index idx,
  // and Kernel::scatter over the updates, [p..., j..., q...] adding to the
  // output at [p..., indices[j...], q...].
  Expected<int> scatter_add(const Op& op, const std::vector<int>& idx) {
    const Shape& out = op.result()->type.shape;
    const Value* updates = op.operands[2];
    const size_t ri = op.operands[1]->type.shape.size();
    const size_t axis = static_cast<size_t>(norm_axis(op.attrs.get_int("axis"), out.size()));
    MLC_TRY(int init, value(op.operands[0], idx));
    Kernel::Scatter& s = k_.scatter;
    s.domain = updates->type.shape;
    s.var0 = k_.num_vars;
    std::vector<int> u;
    for (size_t d = 0; d < s.domain.size(); ++d) u.push_back(new_var());
    std::vector<int> j(u.begin() + static_cast<std::ptrdiff_t>(axis), u.begin() + static_cast<std::ptrdiff_t>(axis + ri));
    MLC_TRY(int target, checked_index(op, j, static_cast<int64_t>(axis), out[axis]));
    std::vector<int> o(u.begin(), u.begin() + static_cast<std::ptrdiff_t>(axis));
    o.push_back(target);
    o.insert(o.end(), u.begin() + static_cast<std::ptrdiff_t>(axis + ri), u.end());
    s.at = linear(o, out);
    s.row = linear(std::vector<int>(o.begin(), o.end() - 1), Shape(out.begin(), out.end() - 1));
    MLC_TRY(s.value, value(updates, u));
    return init;
  }

  // ---- unfold / fold (ir/ops.def): geometry of one spatial dim of the window.
  struct ConvWindowDim {
    int64_t size, kernel, stride, pad, dilation, blocks;  // blocks: OH (or OW)
  };
  static ConvWindowDim conv_window_dim(const Op& op, const Shape& image, size_t d) {
    size_t a = d - 2;
    ConvWindowDim w{image[d], op.attrs.get_ints("kernel")[a], op.attrs.get_ints("stride")[a],
                op.attrs.get_ints("padding")[a], op.attrs.get_ints("dilation")[a], 0};
    w.blocks = (w.size + 2 * w.pad - w.dilation * (w.kernel - 1) - 1) / w.stride + 1;
    return w;
  }
  // unfold: element [n, (c*KH + i)*KW + j, oy*OW + ox] is x[n, c, oy*sh - ph + i*dh,
  // ox*sw - pw + j*dw], 0 in the padding (a clamped load and a select). A dim
  // without padding needs no check: the window fits by construction.
  Expected<int> unfold(const Op& op, const std::vector<int>& idx) {
    const Value* x = op.operands[0];
    const Shape& xs = x->type.shape;
    const ConvWindowDim wy = conv_window_dim(op, xs, 2), wx = conv_window_dim(op, xs, 3);
    const int r = idx[1], l = idx[2];
    const int c = index_op(ExprKind::idiv, r, iconst(wy.kernel * wx.kernel));
    const int i = index_op(ExprKind::irem, index_op(ExprKind::idiv, r, iconst(wx.kernel)), iconst(wy.kernel));
    const int j = index_op(ExprKind::irem, r, iconst(wx.kernel));
    const int oy = index_op(ExprKind::idiv, l, iconst(wx.blocks)), ox = index_op(ExprKind::irem, l, iconst(wx.blocks));
    int inside = -1;
    auto tap = [&](int o, int k, const ConvWindowDim& w) {
      int at = index_op(ExprKind::iadd, index_op(ExprKind::imul, o, iconst(w.stride)),
                        index_op(ExprKind::iadd, index_op(ExprKind::imul, k, iconst(w.dilation)), iconst(-w.pad)));
      if (w.pad == 0) return at;
      inside = both(inside, in_range(at, 0, w.size));
      return clamp(at, w.size);
    };
    std::vector<int> o = {idx[0], c, tap(oy, i, wy), tap(ox, j, wx)};
    MLC_TRY(int xv, value(x, o));
    if (inside < 0) return xv;
    return node(ExprKind::select, x->type.dtype, inside, xv, constant(x->type.dtype, 0, 0));
  }

  // fold: y[n, c, h, w] = the sum over (i, j) in row-major order of cols[n, (c*KH + i)*KW + j,
  // oy*OW + ox] for the blocks with oy*sh - ph + i*dh = h (and likewise w), unrolled, in f64
  // from 0 and rounded once: the reference kernel's order, so the result is bit-exact.
  Expected<int> fold(const Op& op, const std::vector<int>& idx) {
    const Value* cols = op.operands[0];
    const DType t = op.result()->type.dtype;
    const Shape& ys = op.result()->type.shape;
    const ConvWindowDim wy = conv_window_dim(op, ys, 2), wx = conv_window_dim(op, ys, 3);
    // The block o whose tap k lands on position p: (p + pad - k*dil) / stride, when whole and in range.
    auto origin = [&](int p, int64_t k, const ConvWindowDim& w, int& valid) {
      int shifted = index_op(ExprKind::iadd, p, iconst(w.pad - k * w.dilation));
      int o = index_op(ExprKind::idiv, shifted, iconst(w.stride));
      valid = both(index_op(ExprKind::ilt, iconst(-1), shifted), index_op(ExprKind::ilt, o, iconst(w.blocks)));
      if (w.stride != 1)
        valid = both(valid, index_op(ExprKind::ilt, index_op(ExprKind::irem, shifted, iconst(w.stride)), iconst(1)));
      return clamp(o, w.blocks);
    };
    const int zero = constant(DType::f64, 0, 0);
    const int base = index_op(ExprKind::imul, idx[1], iconst(wy.kernel * wx.kernel));
    int sum = zero;
    for (int64_t i = 0; i < wy.kernel; ++i) {
      int valid_y;
      int oy = origin(idx[2], i, wy, valid_y);
      for (int64_t j = 0; j < wx.kernel; ++j) {
        int valid_x;
        int ox = origin(idx[3], j, wx, valid_x);
        int r = index_op(ExprKind::iadd, base, iconst(i * wx.kernel + j));
        int l = index_op(ExprKind::iadd, index_op(ExprKind::imul, oy, iconst(wx.blocks)), ox);
        MLC_TRY(int v, value(cols, {idx[0], r, l}));
        if (t != DType::f64) v = node(ExprKind::cast, DType::f64, v);
        int term = node(ExprKind::select, DType::f64, both(valid_y, valid_x), v, zero);
        sum = node(ExprKind::binary, DType::f64, sum, term, -1, OpCode::Add);
      }
    }
    return t == DType::f64 ? sum : node(ExprKind::cast, t, sum);
  }

  Kernel k_;
  std::vector<const Value*>& inputs_;
  std::unordered_map<const Value*, int> input_index_;
  std::unordered_set<const Op*> members_;
  std::unordered_set<int> not_elementwise_;
  std::unordered_map<const Op*, rt::IndexCheck> checks_;
  std::map<std::tuple<ExprKind, DType, OpCode, scalar::CmpDir, int, int, int, int64_t, uint64_t>, int> memo_;
  std::map<std::pair<const Value*, std::vector<int>>, int> values_;
  int out_linear_ = -1;
};

}  // namespace

Expected<Kernel> build_kernel(const FusionGroup& group, std::string name, std::vector<const Value*>& inputs) {
  KernelBuilder b(group, inputs);
  return b.build(group, std::move(name));
}

}  // namespace mlc::kir
