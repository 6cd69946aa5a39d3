// Shape built-ins of forward statements (forward_shape_ops.h).
#include "frontends/forward_shape_ops.h"

#include <algorithm>
#include <array>

#include "ir/diagnostics.h"

namespace mlc {

namespace {

Val out(Value* y, const Loc& at) { return Val::tensor(y, at); }

std::string dims_text(const std::vector<int64_t>& v) { return shape_to_string(v); }

Expected<Value*> broadcast_to(Builder& b, Value* x, const Shape& shape) {
  if (x->type.shape == shape) return x;
  std::vector<int64_t> dims;
  int64_t offset = static_cast<int64_t>(shape.size()) - x->type.rank();
  for (int64_t i = 0; i < x->type.rank(); ++i) dims.push_back(offset + i);
  return b.try_create(OpCode::Broadcast, {x}, {{"dims", std::move(dims)}},
                      TensorType{x->type.dtype, shape});
}

// reshape/view: one -1 at most, the rest >= 0, the same element count.
Expected<Val> reshape(Builder& b, Value* x, const Val& shape_arg, const std::string& name,
                      const Loc& at) {
  if (shape_arg.kind == Val::Kind::absent)
    return fwd_error(at, name + " needs a shape, e.g. ." + name + "(2, -1)");
  MLC_TRY(std::vector<int64_t> shape, int_list(shape_arg, name + "'s shape", at));
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1 && infer < 0) {
      infer = static_cast<int64_t>(i);
    } else if (shape[i] < 0) {
      return fwd_error(shape_arg.loc, name + ": shape " + dims_text(shape) +
                                          " may hold one -1 and sizes >= 0, found " +
                                          std::to_string(shape[i]));
    } else {
      if (shape[i] > kMaxElements || known > kMaxElements / std::max<int64_t>(shape[i], 1))
        return fwd_error(shape_arg.loc, name + ": shape " + dims_text(shape) + " is too large");
      known *= shape[i];
    }
  }
  int64_t n = x->type.num_elements();
  if (infer >= 0) {
    if (known == 0 || n % known != 0)
      return fwd_error(at, "cannot " + name + " " + x->type.str() + " (" + std::to_string(n) +
                               " elements) to " + dims_text(shape));
    shape[infer] = n / known;
  } else if (known != n) {
    return fwd_error(at, "cannot " + name + " " + x->type.str() + " (" + std::to_string(n) +
                             " elements) to " + dims_text(shape));
  }
  MLC_TRY(Value* y, emit_reshape(b, x, shape));
  return out(y, at);
}

Expected<Val> permute(Builder& b, Value* x, const std::vector<int64_t>& perm, const Loc& at) {
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return out(x, at);
  MLC_TRY(Value* y, emit_transpose(b, x, perm));
  return out(y, at);
}

// dims of a reduction: None/absent = all; an int or a list of distinct dims.
Expected<std::vector<int64_t>> reduce_dims(const Val& v, const TensorType& t, const std::string& what,
                                           const Loc& at) {
  std::vector<int64_t> dims;
  if (v.kind == Val::Kind::absent || v.kind == Val::Kind::none) {
    for (int64_t i = 0; i < t.rank(); ++i) dims.push_back(i);
    return dims;
  }
  std::vector<Val> items = v.kind == Val::Kind::list ? v.items : std::vector<Val>{v};
  for (const Val& item : items) {
    MLC_TRY(int64_t d, dim_arg(item, t, what, at));
    if (std::find(dims.begin(), dims.end(), d) != dims.end())
      return fwd_error(item.loc.line ? item.loc : at, what + ": dim " + std::to_string(d) + " is listed twice");
    dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

// sum, mean, max, min over dims (max/min of two tensors: element-wise).
Expected<Val> reduction(Builder& b, std::string_view name, const std::vector<Val>& args, const Loc& at) {
  std::string n(name);
  MLC_TRY(Value* x, tensor_arg(args[0], n, at));
  if ((name == "max" || name == "min") && args[1].is_tensor()) {
    Value* other = args[1].v;
    if (other->type.dtype != x->type.dtype || !broadcast_shapes(x->type.shape, other->type.shape))
      return fwd_error(at, n + ": cannot combine " + x->type.str() + " and " + other->type.str());
    MLC_TRY(Value* y, emit_op(b, name == "max" ? OpCode::Max : OpCode::Min, {x, other}));
    return out(y, at);
  }
  if (x->type.dtype == DType::boolean || (name == "mean" && !is_float(x->type.dtype)))
    return fwd_error(at, n + " expects a " + (name == "mean" ? "float" : "numeric") +
                             " tensor, found " + x->type.str());
  MLC_TRY(std::vector<int64_t> dims, reduce_dims(args[1], x->type, n + "'s dim", at));
  MLC_TRY(bool keepdim, bool_arg(args[2], false, n + "'s keepdim", at));
  int64_t count = 1;
  for (int64_t d : dims) count *= x->type.shape[d];
  if ((name == "max" || name == "min") && count == 0)
    return fwd_error(at, n + " of " + x->type.str() + " reduces over zero elements");
  OpCode code = name == "max" ? OpCode::ReduceMax : name == "min" ? OpCode::ReduceMin : OpCode::ReduceSum;
  MLC_TRY(Value* y, emit_op(b, code, {x}, {{"dims", dims}, {"keepdim", keepdim}}));
  if (name == "mean") {
    MLC_TRY(Value* c, emit_scalar(b, static_cast<double>(count), x->type.dtype));
    MLC_TRY(y, emit_op(b, OpCode::Div, {y, c}));
  }
  return out(y, at);
}

Expected<Val> cat(Builder& b, const std::vector<Val>& args, const Loc& at) {
  if (args[0].kind != Val::Kind::list || args[0].items.empty())
    return fwd_error(args[0].loc, "cat expects a non-empty list of tensors, e.g. cat([a, b], dim=1), found " +
                                      args[0].describe());
  std::vector<Value*> xs;
  for (const Val& item : args[0].items) {
    MLC_TRY(Value* x, tensor_arg(item, "cat", at));
    xs.push_back(x);
  }
  const TensorType& first = xs[0]->type;
  if (first.rank() == 0) return fwd_error(at, "cat expects tensors of rank >= 1, found " + first.str());
  int64_t dim = 0;
  if (args[1].kind != Val::Kind::absent) {
    MLC_TRY(dim, dim_arg(args[1], first, "cat's dim", at));
  }
  for (size_t i = 1; i < xs.size(); ++i) {
    const TensorType& t = xs[i]->type;
    bool same = t.dtype == first.dtype && t.rank() == first.rank();
    for (int64_t d = 0; same && d < t.rank(); ++d) same = d == dim || t.shape[d] == first.shape[d];
    if (!same)
      return fwd_error(args[0].items[i].loc, "cat: " + t.str() + " does not match " + first.str() +
                                                 " except in dim " + std::to_string(dim));
  }
  if (xs.size() == 1) return out(xs[0], at);
  MLC_TRY(Value* y, emit_op(b, OpCode::Concat, xs, {{"axis", dim}}));
  return out(y, at);
}

// kernel_size, stride, padding of the pools: an int or a pair.
Expected<std::vector<int64_t>> pair_arg(const Val& v, const std::string& what, const Loc& at) {
  MLC_TRY(std::vector<int64_t> p, int_list(v, what, at));
  if (p.size() == 1) p.push_back(p[0]);
  if (p.size() != 2)
    return fwd_error(v.loc.line ? v.loc : at, what + " must be an integer or a pair, found " + v.describe());
  return p;
}

Expected<Val> pool(Builder& b, bool max, const std::vector<Val>& args, const Loc& at) {
  std::string n = max ? "max_pool2d" : "avg_pool2d";
  MLC_TRY(Value* x, tensor_arg(args[0], n, at));
  if (!is_float(x->type.dtype) || x->type.rank() != 4)
    return fwd_error(at, n + " expects a float input [N,C,H,W], found " + x->type.str());
  MLC_TRY(std::vector<int64_t> kernel, pair_arg(args[1], n + "'s kernel_size", at));
  std::vector<int64_t> stride = kernel, padding{0, 0};
  if (args[2].kind != Val::Kind::absent && args[2].kind != Val::Kind::none) {
    MLC_TRY(stride, pair_arg(args[2], n + "'s stride", at));
  }
  if (args[3].kind != Val::Kind::absent) {
    MLC_TRY(padding, pair_arg(args[3], n + "'s padding", at));
  }
  for (int i = 0; i < 2; ++i) {
    if (kernel[i] < 1 || stride[i] < 1 || padding[i] < 0)
      return fwd_error(at, n + ": kernel_size and stride must be >= 1 and padding >= 0, found " +
                               dims_text(kernel) + ", " + dims_text(stride) + ", " + dims_text(padding));
    if (2 * padding[i] > kernel[i])
      return fwd_error(at, n + ": padding " + dims_text(padding) + " must be at most half of kernel_size " +
                               dims_text(kernel));
    if (x->type.shape[2 + i] + 2 * padding[i] < kernel[i])
      return fwd_error(at, n + ": kernel " + dims_text(kernel) + " (padding " + dims_text(padding) +
                               ") does not fit input " + x->type.str());
  }
  Attrs attrs{{"kernel", kernel}, {"stride", stride}, {"padding", padding}};
  if (!max) {
    MLC_TRY(bool ceil, bool_arg(args[4], false, n + "'s ceil_mode", at));
    if (ceil) return fwd_error(args[4].loc, n + ": ceil_mode=True is not supported");
    MLC_TRY(bool include, bool_arg(args[5], true, n + "'s count_include_pad", at));
    attrs.set("count_include_pad", include);
  }
  MLC_TRY(Value* y, emit_op(b, max ? OpCode::MaxPool2d : OpCode::AvgPool2d, {x}, std::move(attrs)));
  return out(y, at);
}

}  // namespace

Expected<bool> bool_arg(const Val& v, bool dflt, const std::string& what, const Loc& at) {
  if (v.kind == Val::Kind::absent) return dflt;
  if (!v.is_number() || !v.integral || (v.num != 0 && v.num != 1))
    return fwd_error(v.loc.line ? v.loc : at, what + " must be True or False, found " + v.describe());
  return v.num != 0;
}

Expected<int64_t> dim_arg(const Val& v, const TensorType& t, const std::string& what, const Loc& at,
                          int64_t extra) {
  MLC_TRY(int64_t d, int_arg(v, what, at));
  int64_t r = t.rank() + extra;
  if (d < -r || d >= r)
    return fwd_error(v.loc.line ? v.loc : at,
                     what + " " + std::to_string(d) + " is out of range for " + t.str() +
                         (r ? " (expected " + std::to_string(-r) + " to " + std::to_string(r - 1) + ")"
                            : " (a 0-d tensor has no dims)"));
  return d < 0 ? d + r : d;
}

Expected<Value*> emit_matmul(Builder& b, Value* a, Value* c, const Loc& at) {
  const TensorType &ta = a->type, &tc = c->type;
  if (!is_float(ta.dtype) || ta.dtype != tc.dtype || ta.rank() == 0 || tc.rank() == 0)
    return fwd_error(at, "'@' expects float tensors of rank >= 1 with the same dtype, found " +
                             ta.str() + " and " + tc.str());
  bool vec_a = ta.rank() == 1, vec_c = tc.rank() == 1;
  if (vec_a) {
    MLC_TRY(a, emit_reshape(b, a, {1, ta.shape[0]}));
  }
  if (vec_c) {
    MLC_TRY(c, emit_reshape(b, c, {tc.shape[0], 1}));
  }
  Shape sa = a->type.shape, sc = c->type.shape;
  int64_t k_a = sa.back(), k_c = sc[sc.size() - 2];
  if (k_a != k_c)
    return fwd_error(at, "cannot multiply " + ta.str() + " @ " + tc.str() + ": " +
                             std::to_string(k_a) + " columns against " + std::to_string(k_c) + " rows");
  Shape result;
  if (sc.size() == 2) {
    result.assign(sa.begin(), sa.end() - 1);
    result.push_back(sc[1]);
  } else {
    Shape ba(sa.begin(), sa.end() - 2), bc(sc.begin(), sc.end() - 2);
    auto batch = broadcast_shapes(ba, bc);
    if (!batch)
      return fwd_error(at, "cannot multiply " + ta.str() + " @ " + tc.str() + ": batch dims " +
                               dims_text(ba) + " and " + dims_text(bc) + " do not broadcast");
    Shape full_a = *batch, full_c = *batch;
    full_a.insert(full_a.end(), sa.end() - 2, sa.end());
    full_c.insert(full_c.end(), sc.end() - 2, sc.end());
    MLC_TRY(a, broadcast_to(b, a, full_a));
    MLC_TRY(c, broadcast_to(b, c, full_c));
    result = *batch;
    result.push_back(sa[sa.size() - 2]);
    result.push_back(sc.back());
  }
  MLC_TRY(Value* y, emit_op(b, OpCode::Dot, {a, c}));
  if (vec_a) result.erase(result.end() - 2);
  if (vec_c) result.pop_back();
  return emit_reshape(b, y, result);
}

Expected<Value*> emit_subscript(Builder& b, Value* x, const std::vector<SubscriptItem>& items,
                                const Loc& at) {
  const TensorType& t = x->type;
  int64_t consumed = 0, ellipses = 0;
  for (const SubscriptItem& it : items) {
    if (it.kind == SubscriptItem::Kind::index || it.kind == SubscriptItem::Kind::slice) ++consumed;
    if (it.kind == SubscriptItem::Kind::ellipsis && ++ellipses > 1)
      return fwd_error(it.loc, "an index may hold one '...' only");
  }
  if (consumed > t.rank())
    return fwd_error(at, "too many indices for " + t.str() + ": " + std::to_string(consumed));
  std::vector<int64_t> start(t.rank(), 0), limit = t.shape, stride(t.rank(), 1);
  Shape result;
  int64_t d = 0;
  auto int_or = [&](const Val& v, int64_t dflt) -> Expected<int64_t> {
    if (v.kind == Val::Kind::absent || v.kind == Val::Kind::none) return dflt;
    return int_arg(v, "a slice bound", at);
  };
  for (const SubscriptItem& it : items) {
    switch (it.kind) {
      case SubscriptItem::Kind::newaxis: result.push_back(1); break;
      case SubscriptItem::Kind::ellipsis:
        for (int64_t n = t.rank() - consumed; n > 0; --n, ++d) result.push_back(t.shape[d]);
        break;
      case SubscriptItem::Kind::index: {
        MLC_TRY(int64_t i, int_arg(it.start, "an index", at));
        int64_t size = t.shape[d];
        if (i < -size || i >= size)
          return fwd_error(it.loc, "index " + std::to_string(i) + " is out of range for dim " +
                                       std::to_string(d) + " of " + t.str());
        start[d] = i < 0 ? i + size : i;
        limit[d] = start[d] + 1;
        ++d;
        break;
      }
      case SubscriptItem::Kind::slice: {
        int64_t size = t.shape[d];
        MLC_TRY(int64_t step, int_or(it.step, 1));
        if (step < 1) return fwd_error(it.loc, "a slice step must be positive, found " + std::to_string(step));
        MLC_TRY(int64_t lo, int_or(it.start, 0));
        MLC_TRY(int64_t hi, int_or(it.stop, size));
        auto clamp = [size](int64_t v) { return std::clamp(v < 0 ? v + size : v, int64_t{0}, size); };
        lo = clamp(lo);
        hi = std::max(lo, clamp(hi));
        start[d] = lo;
        limit[d] = hi;
        stride[d] = step;
        result.push_back((hi - lo + step - 1) / step);
        ++d;
        break;
      }
    }
  }
  for (; d < t.rank(); ++d) result.push_back(t.shape[d]);
  bool whole = true;
  for (int64_t i = 0; i < t.rank(); ++i)
    whole = whole && start[i] == 0 && limit[i] == t.shape[i] && stride[i] == 1;
  Value* y = x;
  if (!whole) {
    MLC_TRY(y, emit_op(b, OpCode::Slice, {x}, {{"start", start}, {"limit", limit}, {"stride", stride}}));
  }
  return emit_reshape(b, y, result);
}

std::optional<Expected<Val>> emit_shape_builtin(Builder& b, const BuiltinSpec& spec,
                                                const std::vector<Val>& args, const Loc& at) {
  std::string n(spec.name);
  static const std::array<std::string_view, 22> kNames = {
      "matmul", "flatten", "reshape", "view", "transpose", "permute", "T", "mT",
      "unsqueeze", "squeeze", "contiguous", "size", "shape", "dim", "ndim", "numel",
      "cat", "sum", "mean", "max", "min", "max_pool2d"};
  if (std::find(kNames.begin(), kNames.end(), spec.name) == kNames.end() && n != "avg_pool2d")
    return std::nullopt;
  if (n == "cat") return cat(b, args, at);
  if (n == "sum" || n == "mean" || n == "max" || n == "min") return reduction(b, n, args, at);
  if (n == "max_pool2d" || n == "avg_pool2d") return pool(b, n == "max_pool2d", args, at);
  auto body = [&]() -> Expected<Val> {
    MLC_TRY(Value* x, tensor_arg(args[0], n, at));
    const TensorType& t = x->type;
    int64_t r = t.rank();
    if (n == "contiguous") return out(x, at);
    // Sizes are static: numbers (integers) that fold like literals.
    if (n == "dim" || n == "ndim") return Val::number(static_cast<double>(r), true, at);
    if (n == "numel") return Val::number(static_cast<double>(t.num_elements()), true, at);
    if (n == "size" || n == "shape") {
      if (n == "shape" || args[1].kind == Val::Kind::absent) {
        Val list;
        list.kind = Val::Kind::list;
        list.loc = at;
        for (int64_t s : t.shape) list.items.push_back(Val::number(static_cast<double>(s), true, at));
        return list;
      }
      MLC_TRY(int64_t d, dim_arg(args[1], t, "size's dim", at));
      return Val::number(static_cast<double>(t.shape[d]), true, at);
    }
    if (n == "matmul") {
      MLC_TRY(Value* other, tensor_arg(args[1], "matmul", at));
      MLC_TRY(Value* y, emit_matmul(b, x, other, at));
      return out(y, at);
    }
    if (n == "reshape" || n == "view") return reshape(b, x, args[1], n, at);
    if (n == "flatten") {  // torch.flatten's defaults (start_dim=0); nn.Flatten's are 1
      int64_t s = 0, e = r == 0 ? 0 : r - 1;
      const int64_t extra = r == 0 ? 1 : 0;  // a 0-d tensor takes dims -1 and 0, and becomes [1]
      if (args[1].kind != Val::Kind::absent) {
        MLC_TRY(s, dim_arg(args[1], t, "flatten's start_dim", at, extra));
      }
      if (args[2].kind != Val::Kind::absent) {
        MLC_TRY(e, dim_arg(args[2], t, "flatten's end_dim", at, extra));
      }
      if (r == 0) {
        MLC_TRY(Value* y, emit_reshape(b, x, Shape{1}));
        return out(y, at);
      }
      if (s > e)
        return fwd_error(at, "flatten: start_dim " + std::to_string(s) + " and end_dim " +
                                 std::to_string(e) + " do not fit " + t.str());
      Shape shape(t.shape.begin(), t.shape.begin() + s);
      int64_t prod = 1;
      for (int64_t i = s; i <= e; ++i) prod *= t.shape[i];
      shape.push_back(prod);
      shape.insert(shape.end(), t.shape.begin() + e + 1, t.shape.end());
      MLC_TRY(Value* y, emit_reshape(b, x, shape));
      return out(y, at);
    }
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < r; ++i) perm.push_back(i);
    if (n == "T") {
      std::reverse(perm.begin(), perm.end());
      return permute(b, x, perm, at);
    }
    if (n == "mT" || n == "transpose") {
      int64_t d0 = r - 2, d1 = r - 1;
      if (n == "mT" && r < 2) return fwd_error(at, ".mT expects a tensor of rank >= 2, found " + t.str());
      if (n == "transpose") {
        MLC_TRY(d0, dim_arg(args[1], t, "transpose's dim0", at));
        MLC_TRY(d1, dim_arg(args[2], t, "transpose's dim1", at));
      }
      std::swap(perm[d0], perm[d1]);
      return permute(b, x, perm, at);
    }
    if (n == "permute") {
      if (args[1].kind == Val::Kind::absent) return fwd_error(at, "permute needs dims, e.g. .permute(0, 2, 1)");
      std::vector<Val> items = args[1].kind == Val::Kind::list ? args[1].items : std::vector<Val>{args[1]};
      std::vector<int64_t> dims;
      std::vector<bool> seen(r, false);
      for (const Val& item : items) {
        MLC_TRY(int64_t d, dim_arg(item, t, "permute's dim", at));
        if (seen[d]) return fwd_error(item.loc, "permute: dim " + std::to_string(d) + " is listed twice");
        seen[d] = true;
        dims.push_back(d);
      }
      if (static_cast<int64_t>(dims.size()) != r)
        return fwd_error(at, "permute needs " + std::to_string(r) + " dims for " + t.str() +
                                 ", found " + std::to_string(dims.size()));
      return permute(b, x, dims, at);
    }
    if (n == "unsqueeze") {
      MLC_TRY(int64_t d, dim_arg(args[1], t, "unsqueeze's dim", at, 1));
      Shape shape = t.shape;
      shape.insert(shape.begin() + d, 1);
      MLC_TRY(Value* y, emit_reshape(b, x, shape));
      return out(y, at);
    }
    // squeeze
    Shape shape;
    int64_t only = -1;
    if (args[1].kind != Val::Kind::absent) {
      MLC_TRY(only, dim_arg(args[1], t, "squeeze's dim", at));
    }
    for (int64_t i = 0; i < r; ++i)
      if (t.shape[i] != 1 || (only >= 0 && i != only)) shape.push_back(t.shape[i]);
    MLC_TRY(Value* y, emit_reshape(b, x, shape));
    return out(y, at);
  };
  return body();
}

}  // namespace mlc
