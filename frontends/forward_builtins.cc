// The built-ins of forward statements: the table, argument conversion, and the
// element-wise, casting, masking and constructor built-ins. Shape built-ins
// (matmul, subscripts, reshape, reductions, pools) are in forward_shape_ops.cc.
#include "frontends/forward_builtins.h"

#include <cmath>

#include "frontends/forward_functional.h"
#include "frontends/forward_shape_ops.h"
#include "frontends/forward_spatial.h"
#include "frontends/spatial_ops.h"
#include "ir/attributes.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

constexpr unsigned kFM = kFunction | kMethod;

// The table (docs/model-format.md, "forward", lists the same built-ins).
const std::vector<BuiltinSpec>& table() {
  static const std::vector<BuiltinSpec> specs = {
      // element-wise
      {"relu", kFM, {"input"}, 1},
      {"gelu", kFM, {"input"}, 1},
      {"silu", kFM, {"input"}, 1},
      {"tanh", kFM, {"input"}, 1},
      {"sigmoid", kFM, {"input"}, 1},
      {"exp", kFM, {"input"}, 1},
      {"log", kFM, {"input"}, 1},
      {"sqrt", kFM, {"input"}, 1},
      {"rsqrt", kFM, {"input"}, 1},
      {"abs", kFM, {"input"}, 1},
      {"sin", kMethod | kQualified, {"input"}, 1},  // torch.sin(x), x.sin()
      {"cos", kMethod | kQualified, {"input"}, 1},
      {"pow", kFM, {"input", "exponent"}, 2},
      {"softmax", kFM, {"input", "dim"}, 1},
      // torch.nn.functional's activations (forward_functional.cc)
      {"log_softmax", kFM, {"input", "dim"}, 1},
      {"log1p", kFM, {"input"}, 1},
      {"leaky_relu", kFunction, {"input", "negative_slope"}, 1},
      {"elu", kFunction, {"input", "alpha"}, 1},
      {"selu", kFunction, {"input"}, 1},
      {"softplus", kFunction, {"input", "beta", "threshold"}, 1},
      {"hardswish", kFunction, {"input"}, 1},
      {"mish", kFunction, {"input"}, 1},
      {"prelu", kFunction, {"input", "weight"}, 2, -1, 5},
      {"where", kFunction, {"condition", "input", "other"}, 3},
      {"masked_fill", kFM, {"input", "mask", "value"}, 3},
      {"triu", kFM, {"input", "diagonal"}, 1, -1, 8},
      {"tril", kFM, {"input", "diagonal"}, 1, -1, 8},
      // constructors
      {"arange", kFunction, {"end"}, 1},
      {"ones", kFunction, {"size", "dtype"}, 0, 0, 3},  // constant, cast, broadcast
      {"zeros", kFunction, {"size", "dtype"}, 0, 0, 3},
      {"full", kFunction, {"size", "fill_value", "dtype"}, 2, -1, 3},
      // casts
      {"float", kMethod, {"input"}, 1},
      {"double", kMethod, {"input"}, 1},
      {"half", kMethod, {"input"}, 1},
      {"bfloat16", kMethod, {"input"}, 1},
      {"long", kMethod, {"input"}, 1},
      {"int", kMethod, {"input"}, 1},
      {"bool", kMethod, {"input"}, 1},
      {"to", kMethod, {"input", "dtype"}, 2},
      // shapes (forward_shape_ops.cc)
      {"matmul", kFM, {"input", "other"}, 2, -1, 8},
      {"flatten", kFM, {"input", "start_dim", "end_dim"}, 1},
      {"reshape", kFM, {"input", "shape"}, 1, 1},
      {"view", kMethod, {"input", "shape"}, 1, 1},
      {"transpose", kFM, {"input", "dim0", "dim1"}, 3},
      {"permute", kFM, {"input", "dims"}, 1, 1},
      {"T", kAttribute, {"input"}, 1},
      {"mT", kAttribute, {"input"}, 1},
      {"unsqueeze", kFM, {"input", "dim"}, 2},
      {"squeeze", kFM, {"input", "dim"}, 1},
      {"contiguous", kMethod, {"input"}, 1, -1, 0},
      {"size", kMethod, {"input", "dim"}, 1, -1, 1},  // the number may become a constant
      {"dim", kMethod, {"input"}, 1, -1, 1},
      {"numel", kMethod, {"input"}, 1, -1, 1},
      {"shape", kAttribute, {"input"}, 1, -1, 0},  // a list: its items are counted where used
      {"ndim", kAttribute, {"input"}, 1, -1, 1},
      {"cat", kFunction, {"tensors", "dim"}, 1},
      {"sum", kFM, {"input", "dim", "keepdim"}, 1},
      {"mean", kFM, {"input", "dim", "keepdim"}, 1, -1, 3},
      {"max", kFM, {"input", "dim", "keepdim"}, 1},
      {"min", kFM, {"input", "dim", "keepdim"}, 1},
      {"max_pool2d", kFunction, {"input", "kernel_size", "stride", "padding"}, 2},
      {"avg_pool2d", kFunction,
       {"input", "kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"}, 2},
      // indexing (forward_functional.cc)
      {"argmax", kFM, {"input", "dim", "keepdim"}, 1, -1, 3},
      // k passes of argmax, reshape, broadcast, compare and select, a concat
      // and gather's ops (forward_functional.cc, kMaxTopk = 256)
      {"topk", kFM, {"input", "k", "dim", "largest", "sorted"}, 2, -1, 256 * 5 + 6 + 4 * kMaxRank + 3},
      {"cumsum", kFM, {"input", "dim"}, 2},
      {"gather", kFM, {"input", "dim", "index"}, 3, -1, 4 * kMaxRank + 3},
      {"chunk", kFM, {"input", "chunks", "dim"}, 2},
      {"split", kFM, {"tensor", "split_size_or_sections", "dim"}, 2},
      {"stack", kFunction, {"tensors", "dim"}, 1, -1, 3},  // and a reshape per 0-d tensor
      {"einsum", kFunction, {"equation", "operands"}, 2, 1, 10},
      {"scaled_dot_product_attention", kFunction,  // forward_attention.cc
       {"query", "key", "value", "attn_mask", "dropout_p", "is_causal", "scale"}, 3, -1, 16},
      // torch.nn.functional's losses (frontends/losses.h)
      {"cross_entropy", kFunction,
       {"input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"}, 2, -1, 40},
      {"nll_loss", kFunction, {"input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"}, 2, -1, 3},
      {"mse_loss", kFunction, {"input", "target", "size_average", "reduce", "reduction"}, 2},
      {"l1_loss", kFunction, {"input", "target", "size_average", "reduce", "reduction"}, 2},
      {"smooth_l1_loss", kFunction, {"input", "target", "size_average", "reduce", "reduction", "beta"}, 2},
      {"huber_loss", kFunction, {"input", "target", "reduction", "delta"}, 2},
      {"binary_cross_entropy", kFunction, {"input", "target", "weight", "size_average", "reduce", "reduction"}, 2, -1, 6},
      {"binary_cross_entropy_with_logits", kFunction,
       {"input", "target", "weight", "size_average", "reduce", "reduction", "pos_weight"}, 2, -1, 6},
      {"kl_div", kFunction, {"input", "target", "size_average", "reduce", "reduction", "log_target"}, 2},
      {"cosine_embedding_loss", kFunction,
       {"input1", "input2", "target", "margin", "size_average", "reduce", "reduction"}, 3},
      // torch.nn.functional's spatial functions (forward_spatial.cc)
      {"interpolate", kFunction,
       {"input", "size", "scale_factor", "mode", "align_corners", "recompute_scale_factor", "antialias"}, 1, -1,
       kInterpolateMaxOps},
      {"pad", kQualified, {"input", "pad", "mode", "value"}, 2, -1, kPadMaxOps},  // F.pad: `pad` stays a name
      {"pixel_shuffle", kFunction, {"input", "upscale_factor"}, 2, -1, kPixelShuffleMaxOps},
      {"pixel_unshuffle", kFunction, {"input", "downscale_factor"}, 2, -1, kPixelShuffleMaxOps},
      {"adaptive_avg_pool2d", kFunction, {"input", "output_size"}, 2, -1,
       4 * kFunctionalAdaptiveMax + 10},
      {"adaptive_max_pool2d", kFunction, {"input", "output_size", "return_indices"}, 2, -1,
       4 * kFunctionalAdaptiveMax + 10},
      {"group_norm", kFunction, {"input", "num_groups", "weight", "bias", "eps"}, 2, -1, kGroupNormMaxOps},
      // randomness on the keyed generator (random_ops.h; forward_eval.cc draws),
      // written F.dropout / torch.rand_like / torch.randn_like: the bare names stay free
      {"dropout", kQualified, {"input", "p", "training", "inplace"}, 1, -1, 10},
      {"rand_like", kQualified, {"input", "dtype"}, 1, -1, 5},
      {"randn_like", kQualified, {"input", "dtype"}, 1, -1, 20},
  };
  return specs;
}

}  // namespace

bool is_random_builtin(std::string_view name) {
  return name == "dropout" || name == "rand_like" || name == "randn_like";
}

namespace {

constexpr std::pair<std::string_view, DType> kCasts[] = {
    {"float", DType::f32}, {"double", DType::f64}, {"half", DType::f16},
    {"bfloat16", DType::bf16}, {"long", DType::i64}, {"int", DType::i32}, {"bool", DType::boolean}};

bool is_cast(std::string_view name) {
  for (auto [n, d] : kCasts)
    if (n == name) return true;
  return name == "to";
}

Expected<DType> cast_target(const BuiltinSpec& spec, const std::vector<Val>& args, const Loc& at) {
  for (auto [n, d] : kCasts)
    if (n == spec.name) return d;
  if (args[1].kind != Val::Kind::dtype)
    return fwd_error(args[1].loc.line ? args[1].loc : at,
                     ".to() expects a dtype (f32, bf16, torch.float32, ...), found " +
                         args[1].describe());
  return args[1].dtype;
}

Expected<Val> unary(Builder& b, const BuiltinSpec& spec, Value* x, const Loc& at) {
  static const std::pair<std::string_view, OpCode> kOps[] = {
      {"relu", OpCode::Relu}, {"gelu", OpCode::Gelu}, {"silu", OpCode::Silu},
      {"tanh", OpCode::Tanh}, {"sigmoid", OpCode::Sigmoid}, {"exp", OpCode::Exp},
      {"log", OpCode::Log}, {"sqrt", OpCode::Sqrt}, {"rsqrt", OpCode::Rsqrt}, {"abs", OpCode::Abs},
      {"sin", OpCode::Sin},   {"cos", OpCode::Cos}};
  for (auto [n, code] : kOps) {
    if (n != spec.name) continue;
    if (!is_float(x->type.dtype))
      return fwd_error(at, std::string(spec.name) + " expects a float tensor, found " + x->type.str());
    MLC_TRY(Value* y, emit_op(b, code, {x}));
    return Val::tensor(y, at);
  }
  return fwd_error(at, "internal: no element-wise built-in '" + std::string(spec.name) + "'");
}

// A tensor, or a number made a scalar of `dtype`.
Expected<Value*> tensor_or_scalar(Builder& b, const Val& v, DType dtype, const std::string& what,
                                  const Loc& at) {
  if (v.is_tensor()) return v.v;
  if (v.is_number()) return literal_like(b, v, dtype);
  return fwd_error(v.loc.line ? v.loc : at, what + " expects a tensor or a number, found " + v.describe());
}

Expected<Val> where(Builder& b, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* cond, tensor_arg(args[0], "where's condition", at));
  if (cond->type.dtype != DType::boolean)
    return fwd_error(args[0].loc, "where's condition must be a bool tensor (a comparison), found " +
                                      cond->type.str());
  DType dtype = args[1].is_tensor() ? args[1].v->type.dtype
                : args[2].is_tensor() ? args[2].v->type.dtype
                                      : DType::f32;
  MLC_TRY(Value* a, tensor_or_scalar(b, args[1], dtype, "where", at));
  MLC_TRY(Value* c, tensor_or_scalar(b, args[2], dtype, "where", at));
  if (a->type.dtype != c->type.dtype)
    return fwd_error(at, "where's input and other have different dtypes: " + a->type.str() +
                             " and " + c->type.str());
  auto s = broadcast_shapes(cond->type.shape, a->type.shape);
  if (!s || !broadcast_shapes(*s, c->type.shape))
    return fwd_error(at, "where: cannot broadcast " + cond->type.str() + ", " + a->type.str() +
                             " and " + c->type.str());
  MLC_TRY(Value* y, emit_op(b, OpCode::Select, {cond, a, c}));
  return Val::tensor(y, at);
}

Expected<Val> masked_fill(Builder& b, const std::vector<Val>& args, const Loc& at) {
  MLC_TRY(Value* x, tensor_arg(args[0], "masked_fill", at));
  MLC_TRY(Value* mask, tensor_arg(args[1], "masked_fill's mask", at));
  if (mask->type.dtype != DType::boolean)
    return fwd_error(args[1].loc, "masked_fill's mask must be a bool tensor, found " + mask->type.str());
  auto s = broadcast_shapes(mask->type.shape, x->type.shape);
  if (!s || *s != x->type.shape)
    return fwd_error(args[1].loc, "masked_fill's mask " + mask->type.str() +
                                      " does not broadcast to the input " + x->type.str());
  MLC_TRY(Value* value, tensor_or_scalar(b, args[2], x->type.dtype, "masked_fill", at));
  if (value->type.rank() != 0 || value->type.dtype != x->type.dtype)
    return fwd_error(args[2].loc, "masked_fill's value must be a number or a 0-d " +
                                      std::string(dtype_name(x->type.dtype)) + " tensor, found " +
                                      value->type.str());
  MLC_TRY(Value* y, emit_op(b, OpCode::Select, {mask, value, x}));
  return Val::tensor(y, at);
}

// tril keeps column <= row + diagonal, triu column >= row + diagonal, of the last two dims.
Expected<Val> triangle(Builder& b, const std::vector<Val>& args, bool lower, const Loc& at) {
  const char* name = lower ? "tril" : "triu";
  MLC_TRY(Value* x, tensor_arg(args[0], name, at));
  int64_t diagonal = 0;
  if (args[1].kind != Val::Kind::absent) {
    MLC_TRY(diagonal, int_arg(args[1], std::string(name) + "'s diagonal", at));
  }
  int64_t r = x->type.rank();
  if (r < 2) return fwd_error(at, std::string(name) + " expects a tensor of rank >= 2, found " + x->type.str());
  TensorType plane{DType::i64, {x->type.shape[r - 2], x->type.shape[r - 1]}};
  MLC_TRY(Value* row, emit_iota(b, plane, 0));
  MLC_TRY(Value* col, emit_iota(b, plane, 1));
  if (diagonal != 0) {
    MLC_TRY(Value* d, emit_scalar(b, static_cast<double>(diagonal), DType::i64));
    MLC_TRY(row, emit_op(b, OpCode::Add, {row, d}));
  }
  MLC_TRY(Value* keep, emit_op(b, OpCode::Compare, {col, row},
                               {{"direction", std::string(lower ? "le" : "ge")}}));
  MLC_TRY(Value* zero, emit_scalar(b, 0, x->type.dtype));
  MLC_TRY(Value* y, emit_op(b, OpCode::Select, {keep, x, zero}));
  return Val::tensor(y, at);
}

// ones(*size), zeros(*size), full(size, fill_value): a splat constant.
Expected<Val> filled(Builder& b, const BuiltinSpec& spec, const std::vector<Val>& args, const Loc& at) {
  bool full = spec.name == "full";
  Shape shape;
  if (args[0].kind != Val::Kind::absent) {
    MLC_TRY(shape, int_list(args[0], std::string(spec.name) + "'s size", at));
  }
  for (int64_t d : shape)
    if (d < 0)
      return fwd_error(args[0].loc, std::string(spec.name) + ": size " + shape_to_string(shape) +
                                        " has a negative dim");
  if (!checked_num_elements(shape))
    return fwd_error(args[0].loc, std::string(spec.name) + ": size " + shape_to_string(shape) +
                                      " has more than 2^40 elements");
  double value = spec.name == "ones" ? 1 : 0;
  DType dtype = DType::f32;
  if (full) {
    if (!args[1].is_number())
      return fwd_error(args[1].loc, "full's fill_value must be a number, found " + args[1].describe());
    value = args[1].num;
    if (args[1].boolean) dtype = DType::boolean;
  }
  const Val& dt = args[full ? 2 : 1];
  if (dt.kind == Val::Kind::dtype) {
    dtype = dt.dtype;
  } else if (dt.kind != Val::Kind::absent) {
    return fwd_error(dt.loc, std::string(spec.name) + "'s dtype must be a dtype (f32, bool, ...), found " +
                                 dt.describe());
  }
  Val lit = Val::number(value, !full || args[1].integral || dtype == DType::boolean, at);
  MLC_TRY(Value* scalar, literal_like(b, lit, dtype == DType::boolean ? DType::i64 : dtype));
  if (dtype == DType::boolean) {
    MLC_TRY(scalar, emit_cast(b, scalar, DType::boolean));
  }
  if (shape.empty()) return Val::tensor(scalar, at);
  MLC_TRY(Value* y, b.try_create(OpCode::Broadcast, {scalar}, {{"dims", std::vector<int64_t>{}}},
                                 TensorType{dtype, shape}));
  return Val::tensor(y, at);
}

}  // namespace

std::string Val::describe() const {
  switch (kind) {
    case Kind::tensor: return v->type.str();
    case Kind::number: return boolean ? (num ? "True" : "False") : "the number " + number_text(num, integral);
    case Kind::list: return "a list of " + std::to_string(items.size());
    case Kind::dtype: return "the dtype " + std::string(dtype_name(dtype));
    case Kind::none: return "None";
    case Kind::string: return "the string '" + text + "'";
    case Kind::absent: break;
  }
  return "nothing";
}

const BuiltinSpec* find_builtin(std::string_view name, unsigned form) {
  for (const BuiltinSpec& s : table())
    if (s.name == name && (s.forms & form)) return &s;
  return nullptr;
}

std::vector<std::string> builtin_names(unsigned form) {
  std::vector<std::string> names;
  for (const BuiltinSpec& s : table())
    if (s.forms & form) names.emplace_back(s.name);
  return names;
}

Error fwd_error(const Loc& loc, const std::string& message) {
  return error_at(loc, "forward: " + message);
}

std::string number_text(double num, bool integral) {
  bool exact = integral && std::abs(num) < 9e15;
  return exact ? std::to_string(static_cast<int64_t>(num)) : float_to_string(num);
}

Expected<Value*> literal_like(Builder& b, const Val& lit, DType dtype) {
  if (!is_float(dtype) && !lit.integral)
    return fwd_error(lit.loc, "cannot combine the number " + number_text(lit.num, lit.integral) +
                                  " with a " + std::string(dtype_name(dtype)) + " tensor");
  if (dtype == DType::boolean) return fwd_error(lit.loc, "cannot do arithmetic on a bool tensor");
  if (!is_float(dtype) && std::abs(lit.num) > 9e15)
    return fwd_error(lit.loc, "the number " + number_text(lit.num, lit.integral) +
                                  " is out of range for " + std::string(dtype_name(dtype)));
  return emit_scalar(b, lit.num, dtype);
}

Expected<Value*> tensor_arg(const Val& v, const std::string& what, const Loc& at) {
  if (v.is_tensor()) return v.v;
  return fwd_error(v.loc.line ? v.loc : at, what + " expects a tensor, found " + v.describe());
}

Expected<int64_t> int_arg(const Val& v, const std::string& what, const Loc& at) {
  if (!v.is_number() || !v.integral || std::abs(v.num) > 9e15)
    return fwd_error(v.loc.line ? v.loc : at, what + " must be an integer, found " + v.describe());
  return static_cast<int64_t>(v.num);
}

Expected<double> number_arg(const Val& v, double dflt, const std::string& what, const Loc& at) {
  if (v.kind == Val::Kind::absent || v.kind == Val::Kind::none) return dflt;
  if (!v.is_number() || v.boolean)
    return fwd_error(v.loc.line ? v.loc : at, what + " must be a number, found " + v.describe());
  return v.num;
}

Expected<std::string> string_arg(const Val& v, const std::string& dflt, const std::string& what, const Loc& at) {
  if (v.kind == Val::Kind::absent) return dflt;
  if (v.kind != Val::Kind::string)
    return fwd_error(v.loc.line ? v.loc : at, what + " must be a string such as 'mean', found " + v.describe());
  return v.text;
}

Expected<std::vector<int64_t>> int_list(const Val& v, const std::string& what, const Loc& at) {
  std::vector<int64_t> out;
  if (v.kind != Val::Kind::list) {
    MLC_TRY(int64_t n, int_arg(v, what, at));
    return std::vector<int64_t>{n};
  }
  if (v.items.size() > kMaxRank)  // every such list is dims or sizes of dims
    return fwd_error(v.loc.line ? v.loc : at, what + " has " + std::to_string(v.items.size()) +
                                                  " elements, more than the limit of " +
                                                  std::to_string(kMaxRank) + " dims");
  for (const Val& item : v.items) {
    MLC_TRY(int64_t n, int_arg(item, what, at));
    out.push_back(n);
  }
  return out;
}

Expected<Val> emit_builtin(Builder& b, const BuiltinSpec& spec, std::vector<Val> args, const Loc& at) {
  std::string_view n = spec.name;
  if (spec.variadic >= 0) {  // x.view(x.size()): one list given where the arguments collect
    Val& rest = args[spec.variadic];
    if (rest.kind == Val::Kind::list && rest.items.size() == 1 && rest.items[0].kind == Val::Kind::list) {
      Val inner = std::move(rest.items[0]);
      rest = std::move(inner);
    }
  }
  if (n == "where") return where(b, args, at);
  if (n == "masked_fill") return masked_fill(b, args, at);
  if (n == "tril" || n == "triu") return triangle(b, args, n == "tril", at);
  if (n == "ones" || n == "zeros" || n == "full") return filled(b, spec, args, at);
  if (n == "arange") {
    if (!args[0].is_number() || !args[0].integral || args[0].num < 1 || args[0].num > 1e12)
      return fwd_error(args[0].loc, "arange(n) needs a positive integer n, found " + args[0].describe());
    MLC_TRY(Value* y, emit_iota(b, TensorType{DType::i64, {static_cast<int64_t>(args[0].num)}}, 0));
    return Val::tensor(y, at);
  }
  if (auto shaped = emit_shape_builtin(b, spec, args, at)) return std::move(*shaped);
  if (auto functional = emit_functional_builtin(b, spec, args, at)) return std::move(*functional);
  if (auto spatial = emit_spatial_builtin(b, spec, args, at)) return std::move(*spatial);
  MLC_TRY(Value* x, tensor_arg(args[0], std::string(n), at));
  if (n == "pow") {
    if (!is_float(x->type.dtype))
      return fwd_error(at, "pow expects a float tensor, found " + x->type.str());
    MLC_TRY(Value* e, tensor_or_scalar(b, args[1], x->type.dtype, "pow", at));
    if (!broadcast_shapes(x->type.shape, e->type.shape) || e->type.dtype != x->type.dtype)
      return fwd_error(at, "pow: cannot combine " + x->type.str() + " and " + e->type.str());
    MLC_TRY(Value* y, emit_op(b, OpCode::Pow, {x, e}));
    return Val::tensor(y, at);
  }
  if (n == "softmax") {
    if (!is_float(x->type.dtype) || x->type.rank() == 0)
      return fwd_error(at, "softmax expects a float tensor of rank >= 1, found " + x->type.str());
    int64_t dim = -1;
    if (args[1].kind != Val::Kind::absent) {
      MLC_TRY(dim, dim_arg(args[1], x->type, "softmax's dim", at));
    }
    MLC_TRY(Value* y, emit_op(b, OpCode::Softmax, {x}, {{"axis", dim}}));
    return Val::tensor(y, at);
  }
  if (is_cast(n)) {
    MLC_TRY(DType to, cast_target(spec, args, at));
    MLC_TRY(Value* y, emit_cast(b, x, to));
    return Val::tensor(y, at);
  }
  return unary(b, spec, x, at);
}

}  // namespace mlc
