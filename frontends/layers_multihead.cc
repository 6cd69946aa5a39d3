// nn.MultiheadAttention (multihead.h) and its layer.
#include <cmath>

#include "frontends/emit_util.h"
#include "frontends/multihead.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

// torch.nn.init.xavier_uniform_ of a weight [fan_out, fan_in]: U(+-sqrt(3) * sqrt(2 / (in + out))).
ParamInit xavier_uniform(int64_t fan_in, int64_t fan_out) {
  ParamInit init;
  init.kind = ParamInit::Kind::uniform;
  init.bound = std::sqrt(3.0) * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return init;
}

ParamInit zeros() { return ParamInit{}; }

// x [..., in] W^T (+ bias) for a weight [out, in].
Expected<Value*> project(Builder& b, Value* x, Value* w, Value* bias) {
  MLC_TRY(Value* y, emit_op(b, OpCode::Dot, {x, w}, {{"transpose_b", true}}));
  if (bias) return emit_op(b, OpCode::Add, {y, bias});
  return y;
}

// Rows [i * n, (i + 1) * n) of a [3n, ...] tensor (a third of in_proj_weight or in_proj_bias).
Expected<Value*> third(Builder& b, Value* x, int64_t i, int64_t n) {
  std::vector<int64_t> start(x->type.rank(), 0), limit = x->type.shape, stride(x->type.rank(), 1);
  start[0] = i * n;
  limit[0] = (i + 1) * n;
  return emit_op(b, OpCode::Slice, {x}, {{"start", start}, {"limit", limit}, {"stride", stride}});
}

std::string dims(std::initializer_list<int64_t> d) { return shape_to_string(Shape(d)); }

}  // namespace

uint32_t sub_stream(uint32_t stream, uint32_t site) {
  uint32_t h = stream;
  for (int i = 0; i < 4; ++i) h = (h ^ ((site >> (8 * i)) & 0xff)) * 16777619u;
  return h ^ (site + 1) * 0x9E3779B9u;
}

std::vector<ParamDecl> mha_params(const MhaConfig& c, const std::string& prefix, int64_t base) {
  const int64_t E = c.embed_dim;
  std::vector<ParamDecl> p;
  if (c.same_dims()) {
    p.push_back({prefix + "in_proj_weight", {3 * E, E}, xavier_uniform(E, 3 * E)});
  } else {
    p.push_back({prefix + "q_proj_weight", {E, E}, xavier_uniform(E, E)});
    p.push_back({prefix + "k_proj_weight", {E, c.kdim}, xavier_uniform(c.kdim, E)});
    p.push_back({prefix + "v_proj_weight", {E, c.vdim}, xavier_uniform(c.vdim, E)});
  }
  if (c.bias) p.push_back({prefix + "in_proj_bias", {3 * E}, zeros()});
  // torch draws out_proj (a Linear) in the constructor, its bias too, before
  // _reset_parameters draws the projections and zeroes the biases.
  const int64_t in_count = static_cast<int64_t>(p.size()), out_count = c.bias ? 2 : 1;
  for (int64_t i = 0; i < in_count; ++i) p[static_cast<size_t>(i)].draw = base + out_count + i;
  p.push_back({prefix + "out_proj.weight", {E, E}, kaiming_uniform(static_cast<double>(E))});
  p.back().draw = base;
  if (c.bias) {
    ParamInit drawn_then_zeroed = uniform_fan_in(static_cast<double>(E));
    drawn_then_zeroed.zero_after_draw = true;
    p.push_back({prefix + "out_proj.bias", {E}, drawn_then_zeroed});
    p.back().draw = base + 1;
  }
  return p;
}

int64_t mha_max_ops() {
  // 3 inputs: transpose or reshape, 2 slices, dot, add, reshape, transpose (7 each);
  // masks: key padding (3 + reshape), attn_mask (3 + reshape), causal, 2 adds;
  // attention with dropout (6 + 9); output: transpose, reshape, dot, add, transpose/reshape;
  // weights: reduce, scalar, div, reshape.
  return 3 * 7 + (kMaskOps + 1) * 2 + kCausalOps + 2 + kAttentionOps + 9 + 5 + 4;
}

Expected<Attention> emit_mha(LayerContext& ctx, const MhaConfig& c, const std::string& prefix,
                             const MhaCall& call, uint32_t stream,
                             const std::function<Error(const std::string&)>& fail) {
  Builder& b = ctx.b;
  const int64_t E = c.embed_dim, h = c.num_heads, hd = E / h;
  Value *q = call.query, *k = call.key, *v = call.value;
  const std::string found = ", found query " + q->type.str() + ", key " + k->type.str() + ", value " + v->type.str();
  const int64_t rank = q->type.rank();
  if (rank != 2 && rank != 3)
    return fail("query must be " + std::string(c.batch_first ? "[N, L, E]" : "[L, N, E]") +
                " or unbatched [L, E]" + found);
  if (k->type.rank() != rank || v->type.rank() != rank)
    return fail("query, key and value must all be batched or all unbatched" + found);
  for (Value* x : {q, k, v})
    if (x->type.dtype != DType::f32) return fail("query, key and value must be f32" + found);
  const bool batched = rank == 3;
  // Batch first: [N, L, E].
  auto normalize = [&](Value* x) -> Expected<Value*> {
    if (!batched) return emit_reshape(b, x, {1, x->type.shape[0], x->type.shape[1]});
    if (c.batch_first) return x;
    return emit_transpose(b, x, {1, 0, 2});
  };
  MLC_TRY(q, normalize(q));
  MLC_TRY(k, normalize(k));
  MLC_TRY(v, normalize(v));
  const int64_t N = q->type.shape[0], L = q->type.shape[1], S = k->type.shape[1];
  if (k->type.shape[0] != N || v->type.shape[0] != N)
    return fail("query, key and value must have one batch size" + found);
  if (v->type.shape[1] != S) return fail("key and value must have one sequence length" + found);
  if (q->type.shape[2] != E || k->type.shape[2] != c.kdim || v->type.shape[2] != c.vdim)
    return fail("expected features " + std::to_string(E) + " (query), " + std::to_string(c.kdim) +
                " (key), " + std::to_string(c.vdim) + " (value; embed_dim, kdim, vdim)" + found);

  // The additive mask [N or 1, h or 1, L, S].
  Value* mask = nullptr;
  auto check_mask_dtype = [&](Value* m, const std::string& name) -> Status {
    if (m->type.dtype != DType::boolean && m->type.dtype != DType::f32)
      return fail(name + " must be bool (True: masked) or f32 (added to the scores), found " + m->type.str());
    return {};
  };
  if (Value* m = call.key_padding_mask) {
    MLC_CHECK_OK(check_mask_dtype(m, "key_padding_mask"));
    Shape want = batched ? Shape{N, S} : Shape{S};
    if (m->type.shape != want)
      return fail("key_padding_mask must be " + shape_to_string(want) + " (batch, source length), found " +
                  m->type.str());
    MLC_TRY(m, additive_mask(b, m, true, DType::f32));
    MLC_TRY(m, emit_reshape(b, m, {N, 1, 1, S}));
    mask = m;
  }
  if (Value* m = call.attn_mask) {
    MLC_CHECK_OK(check_mask_dtype(m, "attn_mask"));
    Shape heads = batched ? Shape{N * h, L, S} : Shape{h, L, S};
    if (m->type.shape != Shape{L, S} && m->type.shape != heads)
      return fail("attn_mask must be " + dims({L, S}) + " or " + shape_to_string(heads) +
                  " (batch * num_heads, target length, source length), found " + m->type.str());
    MLC_TRY(m, additive_mask(b, m, true, DType::f32));
    if (m->type.rank() == 3) {
      MLC_TRY(m, emit_reshape(b, m, {N, h, L, S}));
    }
    MLC_TRY(mask, add_masks(b, mask, m));
  }
  if (call.is_causal) {
    MLC_TRY(Value* m, causal_mask(b, L, S, DType::f32));
    MLC_TRY(mask, add_masks(b, mask, m));
  }

  // Projections, split into heads: [N, h, T, hd].
  Value* in_bias = c.bias ? ctx.param(prefix + "in_proj_bias") : nullptr;
  static const char* kSeparate[3] = {"q_proj_weight", "k_proj_weight", "v_proj_weight"};
  auto heads = [&](Value* x, int i) -> Expected<Value*> {
    Value* w = nullptr;
    if (c.same_dims()) {
      MLC_TRY(w, third(b, ctx.param(prefix + "in_proj_weight"), i, E));
    } else {
      w = ctx.param(prefix + kSeparate[i]);
    }
    Value* bias = nullptr;
    if (in_bias) {
      MLC_TRY(bias, third(b, in_bias, i, E));
    }
    MLC_TRY(Value* y, project(b, x, w, bias));
    MLC_TRY(y, emit_reshape(b, y, {N, x->type.shape[1], h, hd}));
    return emit_transpose(b, y, {0, 2, 1, 3});
  };
  MLC_TRY(q, heads(q, 0));
  MLC_TRY(k, heads(k, 1));
  MLC_TRY(v, heads(v, 2));
  std::function<Expected<Value*>(Value*)> dropout;
  if (ctx.training && c.dropout > 0)
    dropout = [&](Value* w) { return emit_dropout(ctx, w, c.dropout, stream); };
  MLC_TRY(Attention a, emit_attention(b, q, k, v, mask, 1.0 / std::sqrt(static_cast<double>(hd)), dropout));

  MLC_TRY(Value* y, emit_transpose(b, a.out, {0, 2, 1, 3}));
  MLC_TRY(y, emit_reshape(b, y, {N, L, E}));
  MLC_TRY(y, project(b, y, ctx.param(prefix + "out_proj.weight"),
                     c.bias ? ctx.param(prefix + "out_proj.bias") : nullptr));
  if (!batched) {
    MLC_TRY(y, emit_reshape(b, y, {L, E}));
  } else if (!c.batch_first) {
    MLC_TRY(y, emit_transpose(b, y, {1, 0, 2}));
  }
  Attention result;
  result.out = y;
  if (call.need_weights) {
    Value* w = a.weights;  // [N, h, L, S]
    if (call.average_attn_weights) {  // PyTorch: weights.sum(dim=1) / num_heads
      MLC_TRY(w, emit_op(b, OpCode::ReduceSum, {w}, {{"dims", std::vector<int64_t>{1}}, {"keepdim", false}}));
      MLC_TRY(Value* n, emit_scalar(b, static_cast<double>(h), DType::f32));
      MLC_TRY(w, emit_op(b, OpCode::Div, {w, n}));
    }
    if (!batched) {
      Shape s(w->type.shape.begin() + 1, w->type.shape.end());
      MLC_TRY(w, emit_reshape(b, w, s));
    }
    result.weights = w;
  }
  return result;
}

namespace {

const BuiltinSpec& mha_spec() {
  static const BuiltinSpec spec{"MultiheadAttention", kFunction,
                                {"query", "key", "value", "key_padding_mask", "need_weights", "attn_mask",
                                 "average_attn_weights", "is_causal"},
                                3};
  return spec;
}

class MultiheadAttention : public Layer {
 public:
  MhaConfig c;
  int64_t max_ops() const override { return mha_max_ops(); }
  std::vector<ParamDecl> params() const override { return mha_params(c, "", 0); }
  const BuiltinSpec* call_spec() const override { return &mha_spec(); }
  Expected<Value*> apply(LayerContext& ctx, Value*) const override {
    return error(ctx, "takes query, key and value: call it in a forward, attn(x, x, x)[0]");
  }
  Expected<Val> apply_call(LayerContext& ctx, const std::vector<Val>& args, const Loc& at) const override {
    const std::string me = "'" + ctx.path + "'";
    MhaCall call;
    MLC_TRY(call.query, tensor_arg(args[0], me + "'s query", at));
    MLC_TRY(call.key, tensor_arg(args[1], me + "'s key", at));
    MLC_TRY(call.value, tensor_arg(args[2], me + "'s value", at));
    MLC_TRY(call.key_padding_mask, optional_tensor(args[3], me + "'s key_padding_mask", at));
    MLC_TRY(call.need_weights, bool_arg(args[4], true, me + "'s need_weights", at));
    MLC_TRY(call.attn_mask, optional_tensor(args[5], me + "'s attn_mask", at));
    MLC_TRY(call.average_attn_weights, bool_arg(args[6], true, me + "'s average_attn_weights", at));
    MLC_TRY(call.is_causal, bool_arg(args[7], false, me + "'s is_causal", at));
    auto fail = [&](const std::string& m) { return fwd_error(at, type() + " " + me + ": " + m); };
    MLC_TRY(Attention a, emit_mha(ctx, c, "", call, ctx.stream, fail));
    Val tuple = Val::of(Val::Kind::list, at);
    tuple.items.push_back(Val::tensor(a.out, at));
    tuple.items.push_back(a.weights ? Val::tensor(a.weights, at) : Val::of(Val::Kind::none, at));
    return tuple;
  }
};

// kdim / vdim: absent or None is embed_dim.
Expected<int64_t> dim_or_embed(const Fields& f, std::string_view key, int64_t embed_dim) {
  auto n = f.get(key);
  if (!n || n->json->is_null()) return embed_dim;
  return f.positive(key);
}

}  // namespace

Status check_heads(const Fields& f, std::string_view dim_key, int64_t dim, std::string_view heads_key,
                   int64_t heads) {
  if (dim % heads == 0) return {};
  return f.doc().error(*f.get(heads_key), "'" + std::string(heads_key) + "': " + std::string(dim_key) + " " +
                                              std::to_string(dim) + " is not divisible by " +
                                              std::string(heads_key) + " " + std::to_string(heads));
}

Expected<double> dropout_field(const Fields& f, double dflt) {
  MLC_TRY(double p, f.number("dropout", dflt));
  if (p < 0 || p >= 1) return f.doc().error(*f.get("dropout"), "'dropout': must be in [0, 1)");
  return p;
}

Expected<std::unique_ptr<Layer>> parse_multihead(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"embed_dim", "num_heads", "dropout", "bias", "add_bias_kv",
                                           "add_zero_attn", "kdim", "vdim", "batch_first"})));
  auto l = std::make_unique<MultiheadAttention>();
  MhaConfig& c = l->c;
  MLC_TRY(c.embed_dim, f.positive("embed_dim"));
  MLC_TRY(c.num_heads, f.positive("num_heads"));
  MLC_TRY(c.dropout, dropout_field(f, 0.0));
  MLC_TRY(c.bias, f.boolean("bias", true));
  for (const char* unsupported : {"add_bias_kv", "add_zero_attn"}) {
    MLC_TRY(bool on, f.boolean(unsupported, false));
    if (on) return f.doc().error(*f.get(unsupported), "'" + std::string(unsupported) + "': only false is supported");
  }
  MLC_TRY(c.kdim, dim_or_embed(f, "kdim", c.embed_dim));
  MLC_TRY(c.vdim, dim_or_embed(f, "vdim", c.embed_dim));
  MLC_TRY(c.batch_first, f.boolean("batch_first", false));
  MLC_CHECK_OK(check_heads(f, "embed_dim", c.embed_dim, "num_heads", c.num_heads));
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace mlc
