// Layers: Embedding, LayerNorm, RMSNorm, CausalSelfAttention, SwiGLU.
#include <array>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>

#include "frontends/attention_decode.h"
#include "frontends/emit_util.h"
#include "frontends/layers.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

ParamInit filled(ParamInit::Kind kind) {
  ParamInit init;
  init.kind = kind;
  return init;
}

Expected<double> eps_field(const Fields& f) {
  MLC_TRY(double eps, f.number("eps", 1e-5));
  if (eps < 0) return f.doc().error(*f.get("eps"), "'eps': must be >= 0");
  return eps;
}

class Embedding : public Layer {
 public:
  int64_t max_ops() const override { return 1; }  // gather
  int64_t num = 0, dim = 0;
  std::vector<ParamDecl> params() const override {
    ParamInit init;
    init.kind = ParamInit::Kind::normal;
    init.stddev = 1;
    return {{"weight", {num, dim}, init}};
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    if (!is_integer(x->type.dtype))
      return error(ctx, "indices must be i32 or i64, found " + x->type.str());
    return emit_op(ctx.b, OpCode::Gather, {ctx.param("weight"), x}, {{"axis", int64_t{0}}});
  }
};

// LayerNorm and RMSNorm over the last dim.
class Norm : public Layer {
 public:
  int64_t max_ops() const override { return 1; }  // layer_norm or rms_norm
  bool rms = false;
  int64_t dim = 0;
  double eps = 1e-5;
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p{{"weight", {dim}, filled(ParamInit::Kind::ones)}};
    if (!rms) p.push_back({"bias", {dim}, filled(ParamInit::Kind::zeros)});
    return p;
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    if (x->type.rank() == 0 || x->type.shape.back() != dim)
      return error(ctx, "input " + x->type.str() + " has " +
                            (x->type.rank() ? std::to_string(x->type.shape.back()) : "no") +
                            " features but " + (rms ? "dim" : "normalized_shape") + " is " +
                            std::to_string(dim));
    std::vector<Value*> operands{x, ctx.param("weight")};
    if (!rms) operands.push_back(ctx.param("bias"));
    return emit_op(ctx.b, rms ? OpCode::RmsNorm : OpCode::LayerNorm, std::move(operands),
                   {{"eps", eps}});
  }
};

class CausalSelfAttention : public Layer {
 public:
  // 3 x (linear, reshape, transpose), 12, linear; decoding step: 3 more (attention_decode.h).
  int64_t max_ops() const override { return 37; }
  int64_t dim = 0, heads = 0;
  bool bias = false;
  // The projections' names, in the order query, key, value, output.
  std::array<std::string, 4> names{"wq", "wk", "wv", "wo"};
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p;
    for (const std::string& w : names) linear_params(p, w + ".", dim, dim, bias);
    return p;
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    if (x->type.rank() != 3) return error(ctx, "expected an input [B,T,dim], found " + x->type.str());
    if (x->type.shape[2] != dim)
      return error(ctx, "input has " + std::to_string(x->type.shape[2]) + " features but dim is " +
                            std::to_string(dim));
    Builder& b = ctx.b;
    int64_t B = x->type.shape[0], T = x->type.shape[1], hd = dim / heads;
    auto split = [&](const std::string& w) -> Expected<Value*> {  // [B,T,D] -> [B,h,T,hd]
      MLC_TRY(Value* y, emit_linear(ctx, x, w + ".", bias));
      MLC_TRY(y, emit_reshape(b, y, {B, T, heads, hd}));
      return emit_transpose(b, y, {0, 2, 1, 3});
    };
    MLC_TRY(Value* q, split(names[0]));
    MLC_TRY(Value* k, split(names[1]));
    MLC_TRY(Value* v, split(names[2]));
    Value* above = nullptr;  // true: a later position, masked out
    if (ctx.decode) {  // keys and values over the cache (attention_decode.h)
      MLC_TRY(CachedAttention cached, attend_cached(ctx, k, v));
      k = cached.k;
      v = cached.v;
      above = cached.masked;
    }
    MLC_TRY(Value* s, emit_op(b, OpCode::Dot, {q, k}, {{"transpose_b", true}}));
    MLC_TRY(Value* scale, emit_scalar(b, 1.0 / std::sqrt(static_cast<double>(hd)), DType::f32));
    MLC_TRY(s, emit_op(b, OpCode::Mul, {s, scale}));
    if (!above) {
      MLC_TRY(Value* row, emit_iota(b, TensorType{DType::i64, {T, T}}, 0));
      MLC_TRY(Value* col, emit_iota(b, TensorType{DType::i64, {T, T}}, 1));
      MLC_TRY(above, emit_op(b, OpCode::Compare, {col, row}, {{"direction", std::string("gt")}}));
    }
    MLC_TRY(Value* ninf, emit_scalar(b, -std::numeric_limits<double>::infinity(), DType::f32));
    MLC_TRY(s, emit_op(b, OpCode::Select, {above, ninf, s}));
    MLC_TRY(Value* att, emit_op(b, OpCode::Softmax, {s}, {{"axis", int64_t{-1}}}));
    MLC_TRY(Value* y, emit_op(b, OpCode::Dot, {att, v}));
    MLC_TRY(y, emit_transpose(b, y, {0, 2, 1, 3}));
    MLC_TRY(y, emit_reshape(b, y, {B, T, dim}));
    return emit_linear(ctx, y, names[3] + ".", bias);
  }
};

class SwiGLU : public Layer {
 public:
  int64_t max_ops() const override { return 14; }  // 3 linears 4 each, silu, mul
  int64_t dim = 0, hidden = 0;
  bool bias = false;
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p;
    linear_params(p, "w1.", dim, hidden, bias);
    linear_params(p, "w3.", dim, hidden, bias);
    linear_params(p, "w2.", hidden, dim, bias);
    return p;
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    if (x->type.rank() == 0 || x->type.shape.back() != dim)
      return error(ctx, "input " + x->type.str() + " does not end with dim " + std::to_string(dim));
    MLC_TRY(Value* h1, emit_linear(ctx, x, "w1.", bias));
    MLC_TRY(h1, emit_op(ctx.b, OpCode::Silu, {h1}));
    MLC_TRY(Value* h3, emit_linear(ctx, x, "w3.", bias));
    MLC_TRY(Value* h, emit_op(ctx.b, OpCode::Mul, {h1, h3}));
    return emit_linear(ctx, h, "w2.", bias);
  }
};

Expected<std::unique_ptr<Layer>> parse_embedding(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"num_embeddings", "embedding_dim"})));
  auto l = std::make_unique<Embedding>();
  MLC_TRY(l->num, f.positive("num_embeddings"));
  MLC_TRY(l->dim, f.positive("embedding_dim"));
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_norm(const Fields& f, bool rms) {
  const char* dim_key = rms ? "dim" : "normalized_shape";
  MLC_CHECK_OK(f.allow(with_common_fields({dim_key, "eps"})));
  auto l = std::make_unique<Norm>();
  l->rms = rms;
  MLC_TRY(l->dim, f.positive(dim_key));
  MLC_TRY(l->eps, eps_field(f));
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_attention(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"dim", "heads", "bias", "projections"})));
  auto l = std::make_unique<CausalSelfAttention>();
  MLC_TRY(l->dim, f.positive("dim"));
  MLC_TRY(l->heads, f.positive("heads"));
  MLC_TRY(l->bias, f.boolean("bias", false));
  if (auto proj = f.get("projections")) {  // ["q", "k", "v", "o"]: state_dict names
    const JsonDoc& doc = f.doc();
    MLC_CHECK_OK(doc.expect_array(*proj));
    if (proj->json->size() != 4)
      return doc.error(*proj, "'projections': expected 4 names (query, key, value, output), found " +
                                  std::to_string(proj->json->size()));
    for (size_t i = 0; i < 4; ++i) {
      Node n = proj->element(i);
      MLC_TRY(l->names[i], doc.as_string(n));
      bool ident = !l->names[i].empty();
      for (char c : l->names[i])
        ident = ident && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
      if (!ident)
        return doc.error(n, "'projections': " + squote(l->names[i]) +
                                " is not a name (letters, digits and _)");
      for (size_t j = 0; j < i; ++j)
        if (l->names[j] == l->names[i])
          return doc.error(n, "'projections': " + squote(l->names[i]) + " is listed twice");
    }
  }
  if (l->dim % l->heads != 0)
    return f.doc().error(*f.get("heads"), "'heads': dim " + std::to_string(l->dim) +
                                              " is not divisible by heads " +
                                              std::to_string(l->heads));
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_swiglu(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"dim", "hidden", "bias"})));
  auto l = std::make_unique<SwiGLU>();
  MLC_TRY(l->dim, f.positive("dim"));
  MLC_TRY(l->hidden, f.positive("hidden"));
  MLC_TRY(l->bias, f.boolean("bias", false));
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace

Expected<std::unique_ptr<Layer>> parse_transformer_layer(const Fields& f, const std::string& type) {
  if (type == "Embedding") return parse_embedding(f);
  if (type == "LayerNorm" || type == "RMSNorm") return parse_norm(f, type == "RMSNorm");
  if (type == "CausalSelfAttention") return parse_attention(f);
  if (type == "SwiGLU") return parse_swiglu(f);
  return std::unique_ptr<Layer>();
}

}  // namespace mlc
