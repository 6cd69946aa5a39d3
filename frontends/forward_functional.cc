// torch.nn.functional's activations and losses, and the indexing built-ins
// (argmax, topk, cumsum, gather, chunk, split, stack) of forward statements
// (forward_functional.h).
#include "frontends/forward_functional.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "frontends/activations.h"
#include "frontends/emit_util.h"
#include "frontends/losses.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

constexpr int64_t kMaxForwardPieces = 4096;  // tensors one chunk or split makes
constexpr int64_t kMaxTopk = 256;            // elements one topk finds (forward_builtins.cc's max_ops)

Val out(Value* y, const Loc& at) { return Val::tensor(y, at); }

Expected<Value*> float_input(const Val& v, const std::string& name, const Loc& at) {
  MLC_TRY(Value* x, tensor_arg(v, name, at));
  if (!is_float(x->type.dtype)) return fwd_error(at, name + " expects a float tensor, found " + x->type.str());
  return x;
}

// leaky_relu, elu, selu, softplus, hardswish, mish, log1p, log_softmax, prelu.
Expected<Val> activation(Builder& b, const std::string& n, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* x, float_input(args[0], n, at));
  Attrs attrs;
  OpCode code = OpCode::Log1p;
  if (n == "prelu") {
    MLC_TRY(Value* w, tensor_arg(args[1], "prelu's weight", at));
    MLC_TRY(Value* y, emit_prelu(b, x, w, "forward: prelu", at));
    return out(y, at);
  }
  if (n == "log_softmax") {
    int64_t dim = -1;
    if (args[1].kind != Val::Kind::absent && args[1].kind != Val::Kind::none) {
      MLC_TRY(dim, int_arg(args[1], "log_softmax's dim", at));
    }
    MLC_TRY(Value* y, emit_softmax(b, x, dim, true, "forward: log_softmax", at));
    return out(y, at);
  }
  if (n == "leaky_relu") {
    code = OpCode::LeakyRelu;
    MLC_TRY(double slope, number_arg(args[1], 0.01, "leaky_relu's negative_slope", at));
    attrs.set("negative_slope", slope);
  } else if (n == "elu" || n == "selu") {
    code = OpCode::Elu;
    double alpha = kSeluAlpha;
    if (n == "elu") {
      MLC_TRY(alpha, number_arg(args[1], 1.0, "elu's alpha", at));
    }
    attrs.set("alpha", alpha);
    if (n == "selu") attrs.set("scale", kSeluScale);
  } else if (n == "softplus") {
    code = OpCode::Softplus;
    MLC_TRY(double beta, number_arg(args[1], 1.0, "softplus's beta", at));
    if (beta == 0) return fwd_error(at, "softplus's beta must not be 0");
    MLC_TRY(double threshold, number_arg(args[2], 20.0, "softplus's threshold", at));
    attrs = {{"beta", beta}, {"threshold", threshold}};
  } else if (n == "hardswish") {
    code = OpCode::Hardswish;
  } else if (n == "mish") {
    code = OpCode::Mish;
  }
  MLC_TRY(Value* y, emit_op(b, code, {x}, std::move(attrs)));
  return out(y, at);
}

// torch.argmax(input, dim=None, keepdim=False): over the flattened input without a dim.
Expected<Val> argmax(Builder& b, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* x, tensor_arg(args[0], "argmax", at));
  if (x->type.dtype == DType::boolean || x->type.num_elements() == 0)
    return fwd_error(at, "argmax expects a non-empty numeric tensor, found " + x->type.str());
  MLC_TRY(bool keepdim, bool_arg(args[2], false, "argmax's keepdim", at));
  if (args[1].kind == Val::Kind::absent || args[1].kind == Val::Kind::none) {
    MLC_TRY(Value* flat, emit_reshape(b, x, {x->type.num_elements()}));
    MLC_TRY(Value* y, emit_op(b, OpCode::Argmax, {flat}, {{"axis", int64_t{0}}}));
    if (keepdim) {
      MLC_TRY(y, emit_reshape(b, y, Shape(static_cast<size_t>(x->type.rank()), 1)));
    }
    return out(y, at);
  }
  MLC_TRY(int64_t dim, dim_arg(args[1], x->type, "argmax's dim", at));
  MLC_TRY(Value* y, emit_op(b, OpCode::Argmax, {x}, {{"axis", dim}}));
  if (keepdim) {
    Shape kept = x->type.shape;
    kept[dim] = 1;
    MLC_TRY(y, emit_reshape(b, y, kept));
  }
  return out(y, at);
}

// torch.gather(input, dim, index): out[i] = input[i with dim replaced by index[i]],
// as the flat positions of input taken from its flattened form.
Expected<Val> gather(Builder& b, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* x, tensor_arg(args[0], "gather", at));
  MLC_TRY(Value* index, tensor_arg(args[2], "gather's index", at));
  const TensorType& t = x->type;
  if (t.rank() == 0) return fwd_error(at, "gather expects a tensor of rank >= 1, found " + t.str());
  MLC_TRY(int64_t dim, dim_arg(args[1], t, "gather's dim", at));
  if (!is_integer(index->type.dtype) || index->type.rank() != t.rank())
    return fwd_error(args[2].loc.line ? args[2].loc : at, "gather's index must be an i32 or i64 tensor of rank " +
                                                             std::to_string(t.rank()) + ", found " + index->type.str());
  for (int64_t d = 0; d < t.rank(); ++d)
    if (d != dim && index->type.shape[d] > t.shape[d])
      return fwd_error(at, "gather: index " + index->type.str() + " is larger than the input " + t.str() +
                               " in dim " + std::to_string(d));
  const TensorType flat_index{DType::i64, index->type.shape};
  MLC_TRY(Value* along, emit_cast(b, index, DType::i64));
  Value* flat = nullptr;  // sum over dims of coordinate * input stride
  int64_t stride = 1;
  for (int64_t d = t.rank() - 1; d >= 0; --d) {
    Value* coord = along;
    if (d != dim) {
      MLC_TRY(coord, emit_iota(b, flat_index, d));
    }
    if (stride != 1) {
      MLC_TRY(Value* s, emit_scalar(b, static_cast<double>(stride), DType::i64));
      MLC_TRY(coord, emit_op(b, OpCode::Mul, {coord, s}));
    }
    if (flat) {
      MLC_TRY(coord, emit_op(b, OpCode::Add, {flat, coord}));
    }
    flat = coord;
    stride *= t.shape[d];
  }
  MLC_TRY(Value* table, emit_reshape(b, x, {t.num_elements()}));
  MLC_TRY(Value* y, emit_op(b, OpCode::Gather, {table, flat}, {{"axis", int64_t{0}}}));
  return out(y, at);
}

// torch.topk(input, k, dim=-1, largest=True, sorted=True) -> (values, indices):
// the k largest (smallest) elements along dim in descending (ascending)
// order, each found by its own pass: the first maximum of what is left
// (argmax's first index among equal values), then masked out; the values
// are gathered from the input by the indices, so their gradient flows to the
// chosen elements only. sorted=False returns the same (torch leaves the
// order unspecified).
Expected<Val> topk(Builder& b, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* x, float_input(args[0], "topk", at));
  const TensorType& t = x->type;
  if (t.rank() == 0) return fwd_error(at, "topk expects a tensor of rank >= 1, found " + t.str());
  MLC_TRY(int64_t k, int_arg(args[1], "topk's k", at));
  int64_t dim = t.rank() - 1;
  if (args[2].kind != Val::Kind::absent) {
    MLC_TRY(dim, dim_arg(args[2], t, "topk's dim", at));
  }
  MLC_TRY(bool largest, bool_arg(args[3], true, "topk's largest", at));
  MLC_TRY(bool sorted, bool_arg(args[4], true, "topk's sorted", at));
  (void)sorted;
  if (k < 1 || k > t.shape[dim])
    return fwd_error(at, "topk: k must be in [1, " + std::to_string(t.shape[dim]) + "] (the size of dim " +
                             std::to_string(dim) + " of " + t.str() + "), found " + std::to_string(k));
  if (k > kMaxTopk)
    return fwd_error(at, "topk: k at most " + std::to_string(kMaxTopk) + " in a forward (each element is found by "
                         "a pass of its own), found " + std::to_string(k));
  Value* rest = x;
  if (!largest) {
    MLC_TRY(rest, emit_op(b, OpCode::Neg, {x}));
  }
  Shape kept = t.shape;
  kept[dim] = 1;
  MLC_TRY(Value* position, emit_iota(b, TensorType{DType::i64, t.shape}, dim));
  MLC_TRY(Value* gone, emit_scalar(b, -INFINITY, t.dtype));
  MLC_TRY(Value* gone_all, b.try_create(OpCode::Broadcast, {gone}, {{"dims", std::vector<int64_t>{}}}, t));
  std::vector<Value*> picks;
  std::vector<int64_t> all_dims(static_cast<size_t>(t.rank()));
  for (int64_t d = 0; d < t.rank(); ++d) all_dims[static_cast<size_t>(d)] = d;
  for (int64_t j = 0; j < k; ++j) {
    MLC_TRY(Value* i, emit_op(b, OpCode::Argmax, {rest}, {{"axis", dim}}));
    MLC_TRY(i, emit_reshape(b, i, kept));
    picks.push_back(i);
    if (j + 1 == k) break;
    MLC_TRY(Value* wide, b.try_create(OpCode::Broadcast, {i}, {{"dims", all_dims}}, TensorType{DType::i64, t.shape}));
    MLC_TRY(Value* hit, emit_op(b, OpCode::Compare, {position, wide}, {{"direction", std::string("eq")}}));
    MLC_TRY(rest, emit_op(b, OpCode::Select, {hit, gone_all, rest}));
  }
  Value* indices = picks[0];
  if (picks.size() > 1) {
    MLC_TRY(indices, emit_op(b, OpCode::Concat, picks, {{"axis", dim}}));
  }
  MLC_TRY(Val values, gather(b, {args[0], Val::number(static_cast<double>(dim), true, at), Val::tensor(indices, at)}, at));
  Val pair = Val::of(Val::Kind::list, at);
  pair.items = {values, out(indices, at)};
  return pair;
}

// chunk(input, chunks, dim=0) and split(tensor, split_size_or_sections, dim=0): a list of tensors.
Expected<Val> pieces(Builder& b, const std::string& n, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* x, tensor_arg(args[0], n, at));
  if (x->type.rank() == 0) return fwd_error(at, n + " expects a tensor of rank >= 1, found " + x->type.str());
  int64_t dim = 0;
  if (args[2].kind != Val::Kind::absent) {
    MLC_TRY(dim, dim_arg(args[2], x->type, n + "'s dim", at));
  }
  const int64_t size = x->type.shape[dim];
  std::vector<int64_t> sizes;
  if (n == "split" && args[1].kind == Val::Kind::list) {
    MLC_TRY(sizes, int_list(args[1], "split's sections", at));
    int64_t total = 0;
    bool negative = false;
    for (int64_t s : sizes) {
      total += s;
      negative = negative || s < 0;
    }
    if (total != size || negative || sizes.empty())
      return fwd_error(args[1].loc, "split: sections " + shape_to_string(sizes) + " must be sizes >= 0 summing to " +
                                        std::to_string(size) + " (dim " + std::to_string(dim) + " of " +
                                        x->type.str() + ")");
  } else {
    MLC_TRY(int64_t k, int_arg(args[1], n == "chunk" ? "chunk's chunks" : "split's split_size", at));
    if (k < 1) return fwd_error(args[1].loc, n + ": " + (n == "chunk" ? "chunks" : "split_size") + " must be >= 1, found " + std::to_string(k));
    const int64_t piece = n == "chunk" ? (size + k - 1) / k : k;  // torch.chunk: ceil(size / chunks) each
    for (int64_t start = 0; start < size || (size == 0 && sizes.empty()); start += std::max<int64_t>(piece, 1))
      sizes.push_back(std::min(piece, size - start));
  }
  if (static_cast<int64_t>(sizes.size()) > kMaxForwardPieces)
    return fwd_error(at, n + " would make " + std::to_string(sizes.size()) + " tensors, more than the limit of " +
                             std::to_string(kMaxForwardPieces));
  MLC_TRY(std::vector<Value*> ys, b.try_create_results(OpCode::Split, {x}, {{"axis", dim}, {"sizes", sizes}}));
  Val list;
  list.kind = Val::Kind::list;
  list.loc = at;
  for (Value* y : ys) list.items.push_back(out(y, at));
  return list;
}

// torch.stack(tensors, dim=0): the tensors concatenated along dim, then that dim split
// in two (a new dim of size len(tensors) before it); stacking after the last dim
// concatenates along the last and swaps the two.
Expected<Val> stack(Builder& b, const std::vector<Val>& args, const Loc& at) {
  if (args[0].kind != Val::Kind::list || args[0].items.empty())
    return fwd_error(args[0].loc.line ? args[0].loc : at, "stack expects a non-empty list of tensors, found " + args[0].describe());
  std::vector<Value*> xs;
  for (const Val& item : args[0].items) {
    MLC_TRY(Value* x, tensor_arg(item, "stack", at));
    if (x->type != args[0].items[0].v->type)
      return fwd_error(item.loc.line ? item.loc : at, "stack expects tensors of one type, found " +
                                                          args[0].items[0].v->type.str() + " and " + x->type.str());
    xs.push_back(x);
  }
  const TensorType& t = xs[0]->type;
  int64_t dim = 0;
  if (args[1].kind != Val::Kind::absent) {
    MLC_TRY(dim, dim_arg(args[1], t, "stack's dim", at, 1));
  }
  const auto k = static_cast<int64_t>(xs.size());
  if (t.rank() == 0) {  // scalars: a 1-d tensor of them
    for (Value*& x : xs) {
      MLC_TRY(x, emit_reshape(b, x, {1}));
    }
    MLC_TRY(Value* y, emit_op(b, OpCode::Concat, xs, {{"axis", int64_t{0}}}));
    return out(y, at);
  }
  const bool last = dim == t.rank();
  MLC_TRY(Value* joined, emit_op(b, OpCode::Concat, xs, {{"axis", last ? dim - 1 : dim}}));
  Shape shape = t.shape;
  shape.insert(shape.begin() + (last ? dim - 1 : dim), k);
  MLC_TRY(Value* y, emit_reshape(b, joined, shape));
  if (!last) return out(y, at);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d <= t.rank(); ++d) perm.push_back(d);
  std::swap(perm[dim - 1], perm[dim]);
  MLC_TRY(y, emit_transpose(b, y, perm));
  return out(y, at);
}

// The functional losses: the parameters PyTorch's signatures have (size_average
// and reduce only to say they are deprecated).
Expected<Val> loss(Builder& b, const BuiltinSpec& spec, const std::vector<Val>& args, const Loc& at) {
  const std::string n(spec.name);
  auto arg = [&](std::string_view name) -> const Val& {
    static const Val absent;
    for (size_t i = 0; i < spec.params.size(); ++i)
      if (spec.params[i] == name) return args[i];
    return absent;
  };
  for (std::string_view old : {"size_average", "reduce"})
    if (arg(old).kind != Val::Kind::absent)
      return fwd_error(arg(old).loc, n + ": " + std::string(old) + " is deprecated in PyTorch; use reduction='mean', 'sum' or 'none'");
  std::vector<Value*> tensors;
  const int arity = loss_arity(n);
  for (int i = 0; i < arity; ++i) {
    MLC_TRY(Value* t, tensor_arg(args[i], n + "'s " + std::string(spec.params[i]), at));
    tensors.push_back(t);
  }
  LossArgs a;
  a.class_dim_1 = true;
  MLC_TRY(a.reduction, string_arg(arg("reduction"), "mean", n + "'s reduction", at));
  const bool batchmean = n == "kl_div";
  if (a.reduction != "mean" && a.reduction != "sum" && a.reduction != "none" && !(batchmean && a.reduction == "batchmean"))
    return fwd_error(arg("reduction").loc, n + ": reduction must be 'mean', 'sum'" + std::string(batchmean ? ", 'batchmean'" : "") +
                                               " or 'none', found '" + a.reduction + "'");
  for (auto [name, slot] : {std::pair{"weight", &a.weight}, std::pair{"pos_weight", &a.pos_weight}})
    if (arg(name).kind != Val::Kind::absent && arg(name).kind != Val::Kind::none) {
      MLC_TRY(*slot, tensor_arg(arg(name), n + "'s " + name, at));
    }
  if (is_class_index_loss(n)) {
    MLC_TRY(int64_t ignore, arg("ignore_index").kind == Val::Kind::absent
                                ? Expected<int64_t>(int64_t{-100})
                                : int_arg(arg("ignore_index"), n + "'s ignore_index", at));
    a.ignore_index = ignore;
  }
  MLC_TRY(a.label_smoothing, number_arg(arg("label_smoothing"), 0, n + "'s label_smoothing", at));
  MLC_TRY(a.beta, number_arg(arg("beta"), 1, n + "'s beta", at));
  MLC_TRY(a.delta, number_arg(arg("delta"), 1, n + "'s delta", at));
  MLC_TRY(a.margin, number_arg(arg("margin"), 0, n + "'s margin", at));
  MLC_TRY(a.log_target, bool_arg(arg("log_target"), false, n + "'s log_target", at));
  MLC_TRY(Value* y, emit_loss(b, n, tensors, a, "forward: " + n, at));
  return out(y, at);
}

}  // namespace

std::optional<Expected<Val>> emit_functional_builtin(Builder& b, const BuiltinSpec& spec,
                                                     const std::vector<Val>& args, const Loc& at) {
  const std::string n(spec.name);
  static const std::array<std::string_view, 9> kActivations = {
      "leaky_relu", "elu", "selu", "softplus", "hardswish", "mish", "log1p", "log_softmax", "prelu"};
  if (std::find(kActivations.begin(), kActivations.end(), n) != kActivations.end()) return activation(b, n, args, at);
  if (n == "argmax") return argmax(b, args, at);
  if (n == "gather") return gather(b, args, at);
  if (n == "topk") return topk(b, args, at);
  if (n == "chunk" || n == "split") return pieces(b, n, args, at);
  if (n == "stack") return stack(b, args, at);
  if (n == "einsum") return emit_einsum(b, args, at);
  if (n == "scaled_dot_product_attention") return emit_sdpa(b, args, at);
  if (n == "cumsum") {
    auto body = [&]() -> Expected<Val> {
      MLC_TRY(Value* x, float_input(args[0], "cumsum", at));
      MLC_TRY(int64_t dim, dim_arg(args[1], x->type, "cumsum's dim", at, x->type.rank() == 0 ? 1 : 0));
      MLC_TRY(Value* y, emit_op(b, OpCode::Cumsum, {x}, {{"axis", dim}}));
      return out(y, at);
    };
    return body();
  }
  const std::vector<std::string>& losses = loss_names();
  if (std::find(losses.begin(), losses.end(), n) != losses.end()) return loss(b, spec, args, at);
  return std::nullopt;
}

}  // namespace mlc
