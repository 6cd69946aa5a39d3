#include "compiler/kernel_ir.h"

#include <cstring>
#include <map>
#include <tuple>
#include <type_traits>
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
    k_.domain = root.result->type.shape;
    std::vector<int> idx;
    for (size_t d = 0; d < k_.domain.size(); ++d) idx.push_back(new_var());
    out_linear_ = linear(idx, k_.domain);
    MLC_TRY(k_.root, value(root.result, idx));
    for (const Value* v : inputs_) k_.params.push_back(v->type.dtype);
    k_.params.push_back(root.result->type.dtype);
    k_.elementwise_input.resize(inputs_.size(), true);
    for (int p : not_elementwise_) k_.elementwise_input[p] = false;
    for (const Op* op : g.ops) {
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
    return value(v, broadcast_index(idx, v->type.shape, op.result->type.shape));
  }

  Expected<int> value(const Value* v, const std::vector<int>& idx) {
    auto key = std::make_pair(v, idx);
    auto it = values_.find(key);
    if (it != values_.end()) return it->second;
    MLC_TRY(int id, compute(v, idx));
    values_.emplace(std::move(key), id);
    return id;
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
          int ok = node(ExprKind::select, DType::boolean, index_op(ExprKind::ilt, iconst(-1), j),
                        index_op(ExprKind::ilt, j, iconst(in0[d])), constant(DType::boolean, 0, 0));
          inside = inside < 0 ? ok : node(ExprKind::select, DType::boolean, inside, ok, constant(DType::boolean, 0, 0));
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
        Expr e;
        e.kind = ExprKind::reduce;
        e.dtype = t;
        e.op = op->code;
        e.var0 = k_.num_vars;
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
        k_.exprs.push_back(std::move(e));
        return static_cast<int>(k_.exprs.size()) - 1;
      }
      default:
        return make_error("mlc internal error: " + std::string(op_name(op->code)) + " in a loop kernel");
    }
  }

  // ---- unfold / fold (ir/ops.def): geometry of one spatial dim of the window.
  struct WindowDim {
    int64_t size, kernel, stride, pad, dilation, blocks;  // blocks: OH (or OW)
  };
  static WindowDim window_dim(const Op& op, const Shape& image, size_t d) {
    size_t a = d - 2;
    WindowDim w{image[d], op.attrs.get_ints("kernel")[a], op.attrs.get_ints("stride")[a],
                op.attrs.get_ints("padding")[a], op.attrs.get_ints("dilation")[a], 0};
    w.blocks = (w.size + 2 * w.pad - w.dilation * (w.kernel - 1) - 1) / w.stride + 1;
    return w;
  }
  int boolean_and(int a, int b) {
    if (a < 0) return b;
    return node(ExprKind::select, DType::boolean, a, b, constant(DType::boolean, 0, 0));
  }
  // lo <= j < hi as a bool expression.
  int in_range(int j, int64_t lo, int64_t hi) {
    return boolean_and(index_op(ExprKind::ilt, iconst(lo - 1), j), index_op(ExprKind::ilt, j, iconst(hi)));
  }

  // unfold: element [n, (c*KH + i)*KW + j, oy*OW + ox] is x[n, c, oy*sh - ph + i*dh,
  // ox*sw - pw + j*dw], 0 in the padding (a clamped load and a select). A dim
  // without padding needs no check: the window fits by construction.
  Expected<int> unfold(const Op& op, const std::vector<int>& idx) {
    const Value* x = op.operands[0];
    const Shape& xs = x->type.shape;
    const WindowDim wy = window_dim(op, xs, 2), wx = window_dim(op, xs, 3);
    const int r = idx[1], l = idx[2];
    const int c = index_op(ExprKind::idiv, r, iconst(wy.kernel * wx.kernel));
    const int i = index_op(ExprKind::irem, index_op(ExprKind::idiv, r, iconst(wx.kernel)), iconst(wy.kernel));
    const int j = index_op(ExprKind::irem, r, iconst(wx.kernel));
    const int oy = index_op(ExprKind::idiv, l, iconst(wx.blocks)), ox = index_op(ExprKind::irem, l, iconst(wx.blocks));
    int inside = -1;
    auto tap = [&](int o, int k, const WindowDim& w) {
      int at = index_op(ExprKind::iadd, index_op(ExprKind::imul, o, iconst(w.stride)),
                        index_op(ExprKind::iadd, index_op(ExprKind::imul, k, iconst(w.dilation)), iconst(-w.pad)));
      if (w.pad == 0) return at;
      inside = boolean_and(inside, in_range(at, 0, w.size));
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
    const DType t = op.result->type.dtype;
    const Shape& ys = op.result->type.shape;
    const WindowDim wy = window_dim(op, ys, 2), wx = window_dim(op, ys, 3);
    // The block o whose tap k lands on position p: (p + pad - k*dil) / stride, when whole and in range.
    auto origin = [&](int p, int64_t k, const WindowDim& w, int& valid) {
      int shifted = index_op(ExprKind::iadd, p, iconst(w.pad - k * w.dilation));
      int o = index_op(ExprKind::idiv, shifted, iconst(w.stride));
      valid = boolean_and(index_op(ExprKind::ilt, iconst(-1), shifted), index_op(ExprKind::ilt, o, iconst(w.blocks)));
      if (w.stride != 1)
        valid = boolean_and(valid, index_op(ExprKind::ilt, index_op(ExprKind::irem, shifted, iconst(w.stride)), iconst(1)));
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
        int term = node(ExprKind::select, DType::f64, boolean_and(valid_y, valid_x), v, zero);
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
  std::map<std::tuple<ExprKind, DType, OpCode, scalar::CmpDir, int, int, int, int64_t, uint64_t>, int> memo_;
  std::map<std::pair<const Value*, std::vector<int>>, int> values_;
  int out_linear_ = -1;
};

std::string_view kind_name(ExprKind k) {
  switch (k) {
    case ExprKind::var: return "var";
    case ExprKind::iconst: return "iconst";
    case ExprKind::iadd: return "iadd";
    case ExprKind::imul: return "imul";
    case ExprKind::idiv: return "idiv";
    case ExprKind::irem: return "irem";
    case ExprKind::imin: return "imin";
    case ExprKind::imax: return "imax";
    case ExprKind::ilt: return "ilt";
    case ExprKind::constant: return "constant";
    case ExprKind::load: return "load";
    case ExprKind::unary: return "unary";
    case ExprKind::binary: return "binary";
    case ExprKind::cmp: return "cmp";
    case ExprKind::select: return "select";
    case ExprKind::cast: return "cast";
    case ExprKind::index_value: return "index_value";
    case ExprKind::reduce: return "reduce";
  }
  return "?";
}

}  // namespace

int64_t Kernel::rows() const {
  int64_t r = 1;
  for (size_t d = 0; d + 1 < domain.size(); ++d) r *= domain[d];
  return r;
}

int64_t Kernel::row_cost() const {
  int64_t per_element = 1;
  for (const Expr& e : exprs)
    if (e.kind == ExprKind::reduce) {
      int64_t trips = 1;
      for (int64_t x : e.extents) trips *= x;
      per_element += trips;
    }
  return (domain.empty() ? 1 : domain.back()) * per_element;
}

Expected<Kernel> build_kernel(const FusionGroup& group, std::string name, std::vector<const Value*>& inputs) {
  KernelBuilder b(group, inputs);
  return b.build(group, std::move(name));
}

std::string signature(const Kernel& k) {
  std::string s;
  auto put = [&s](auto v) {
    static_assert(std::is_trivially_copyable_v<decltype(v)>);
    s.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  auto put_list = [&](const auto& list) {
    put(static_cast<uint64_t>(list.size()));
    for (const auto& x : list) put(x);
  };
  put(static_cast<uint64_t>(k.exprs.size()));
  for (const Expr& e : k.exprs) {
    put(e.kind);
    put(e.dtype);
    put(e.op);
    put(e.dir);
    put(e.a);
    put(e.b);
    put(e.c);
    put(e.i);
    put(e.f);
    put(e.var0);
    put_list(e.extents);
  }
  put_list(k.domain);
  put(k.root);
  put_list(k.params);
  put(k.num_vars);
  put(k.output_alias);
  return s;
}

std::string print_kernel(const Kernel& k) {
  std::string s = "kernel @" + k.name + "(";
  for (size_t p = 0; p < k.params.size(); ++p)
    s += (p ? ", " : "") + std::string(p + 1 == k.params.size() ? "out" : "p" + std::to_string(p)) + ": " +
         std::string(dtype_name(k.params[p]));
  s += ") domain " + shape_to_string(k.domain) + " {\n";
  for (size_t i = 0; i < k.exprs.size(); ++i) {
    const Expr& e = k.exprs[i];
    s += "  e" + std::to_string(i) + " = " + std::string(kind_name(e.kind));
    if (e.kind == ExprKind::unary || e.kind == ExprKind::binary || e.kind == ExprKind::reduce)
      s += " " + std::string(op_name(e.op));
    if (e.kind == ExprKind::iconst || e.kind == ExprKind::var || e.kind == ExprKind::load) s += " " + std::to_string(e.i);
    if (e.kind == ExprKind::constant) s += " " + float_to_string(e.f);
    for (int x : {e.a, e.b, e.c})
      if (x >= 0) s += " e" + std::to_string(x);
    if (e.kind == ExprKind::reduce) s += " over " + shape_to_string(e.extents);
    s += " : " + std::string(dtype_name(e.dtype)) + "\n";
  }
  return s + "  store e" + std::to_string(k.root) + "\n}\n";
}

}  // namespace mlc::kir
