// nn.TransformerEncoderLayer, nn.TransformerDecoderLayer and their stacks
// nn.TransformerEncoder / nn.TransformerDecoder, with PyTorch's state_dict
// names and forward (docs/model-format.md, "Attention"); the layer registry's
// parse_attention_layer.
#include <limits>

#include "frontends/emit_util.h"
#include "frontends/multihead.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

constexpr int64_t kMaxLayers = 65536;  // as a repeat's copies

// Dropout sites of one layer call, each with its own random stream.
enum Site : uint32_t { kSelfAttn, kFeedForward, kDropout1, kDropout2, kCrossAttn, kDropout3 };

struct BlockConfig {
  int64_t d_model = 0, nhead = 0, dim_feedforward = 2048;
  double dropout = 0.1, eps = 1e-5;
  bool gelu = false, batch_first = false, norm_first = false, bias = true;
  MhaConfig attention() const {
    MhaConfig c;
    c.embed_dim = c.kdim = c.vdim = d_model;
    c.num_heads = nhead;
    c.dropout = dropout;
    c.bias = bias;
    c.batch_first = batch_first;
    return c;
  }
};

// A context for the sub-module `name` of ctx's layer: parameters under "name.".
LayerContext sub_context(LayerContext& ctx, const std::string& name, uint32_t site) {
  LayerContext s{ctx.b, ctx.path.empty() ? name : ctx.path + "." + name,
                 [&ctx, prefix = name + "."](const std::string& n) { return ctx.param(prefix + n); }};
  s.training = ctx.training;
  s.training_batch = ctx.training_batch;
  s.step = ctx.step;
  s.seed = ctx.seed;
  s.stream = sub_stream(ctx.stream, site);
  return s;
}

// The masks and flags of one attention block's call.
struct Masks {
  Value *attn_mask = nullptr, *key_padding_mask = nullptr;
  bool is_causal = false;
};

// Words an error of a layer call (the layer's name and where it is called).
using Fail = std::function<Error(const std::string&)>;

class Block : public Layer {
 public:
  BlockConfig c;
  bool decoder = false;

  int64_t max_ops() const override {
    // attention blocks, feed-forward (2 linears, activation, dropouts 3 x 9), norms (2 each), residuals
    return (decoder ? 2 : 1) * (mha_max_ops() + 9) + 4 + 1 + 27 + 3 * 2 + 3 + 2;
  }
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p = mha_params(c.attention(), "self_attn.", 0);
    if (decoder)
      for (ParamDecl& d : mha_params(c.attention(), "multihead_attn.", static_cast<int64_t>(p.size())))
        p.push_back(std::move(d));
    linear_params(p, "linear1.", c.d_model, c.dim_feedforward, c.bias);
    linear_params(p, "linear2.", c.dim_feedforward, c.d_model, c.bias);
    for (int i = 1; i <= (decoder ? 3 : 2); ++i) {
      const std::string n = "norm" + std::to_string(i) + ".";
      p.push_back({n + "weight", {c.d_model}, ParamInit{ParamInit::Kind::ones}});
      if (c.bias) p.push_back({n + "bias", {c.d_model}, ParamInit{}});
    }
    return p;
  }
  const BuiltinSpec* call_spec() const override { return &spec(decoder); }

  static const BuiltinSpec& spec(bool decoder) {
    static const BuiltinSpec encoder{"TransformerEncoderLayer", kFunction,
                                     {"src", "src_mask", "src_key_padding_mask", "is_causal"}, 1};
    static const BuiltinSpec dec{"TransformerDecoderLayer", kFunction,
                                 {"tgt", "memory", "tgt_mask", "memory_mask", "tgt_key_padding_mask",
                                  "memory_key_padding_mask", "tgt_is_causal", "memory_is_causal"},
                                 2};
    return decoder ? dec : encoder;
  }

  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    if (decoder) return error(ctx, "takes tgt and memory: call it in a forward, layer(tgt, memory)");
    return forward(ctx, x, nullptr, {}, {}, [&](const std::string& m) { return error(ctx, m); });
  }

  Expected<Val> apply_call(LayerContext& ctx, const std::vector<Val>& args, const Loc& at) const override {
    const std::string me = "'" + ctx.path + "'s ";
    auto names = spec(decoder).params;
    auto tensor = [&](size_t i) { return optional_tensor(args[i], me + std::string(names[i]), at); };
    auto flag = [&](size_t i) { return bool_arg(args[i], false, me + std::string(names[i]), at); };
    MLC_TRY(Value* x, tensor_arg(args[0], me + std::string(names[0]), at));
    Masks self, cross;
    Value* memory = nullptr;
    if (!decoder) {
      MLC_TRY(self.attn_mask, tensor(1));
      MLC_TRY(self.key_padding_mask, tensor(2));
      MLC_TRY(self.is_causal, flag(3));
    } else {
      MLC_TRY(memory, tensor_arg(args[1], me + "memory", at));
      MLC_TRY(self.attn_mask, tensor(2));
      MLC_TRY(cross.attn_mask, tensor(3));
      MLC_TRY(self.key_padding_mask, tensor(4));
      MLC_TRY(cross.key_padding_mask, tensor(5));
      MLC_TRY(self.is_causal, flag(6));
      MLC_TRY(cross.is_causal, flag(7));
    }
    auto fail = [&](const std::string& m) { return fwd_error(at, type() + " '" + ctx.path + "': " + m); };
    MLC_TRY(Value* y, forward(ctx, x, memory, self, cross, fail));
    return Val::tensor(y, at);
  }

 private:
  Expected<Value*> norm(LayerContext& ctx, Value* x, int i) const {
    Builder& b = ctx.b;
    const std::string n = "norm" + std::to_string(i) + ".";
    Value* bias = nullptr;
    if (c.bias) {
      bias = ctx.param(n + "bias");
    } else {  // LayerNorm(bias=False): no bias parameter
      MLC_TRY(bias, b.try_create(OpCode::Constant, {}, Attrs{{"value", 0.0}}, TensorType{DType::f32, {c.d_model}}));
    }
    return emit_op(b, OpCode::LayerNorm, {x, ctx.param(n + "weight"), bias}, {{"eps", c.eps}});
  }

  Expected<Value*> attend(LayerContext& ctx, const std::string& prefix, Site site, Value* q, Value* kv,
                          const Masks& m, const Fail& fail) const {
    MhaCall call;
    call.query = q;
    call.key = call.value = kv;
    call.attn_mask = m.attn_mask;
    call.key_padding_mask = m.key_padding_mask;
    call.is_causal = m.is_causal;
    auto in_block = [&](const std::string& msg) { return fail(prefix + ": " + msg); };
    MLC_TRY(Attention a, emit_mha(ctx, c.attention(), prefix + ".", call, sub_stream(ctx.stream, site), in_block));
    return emit_dropout(ctx, a.out, c.dropout, sub_stream(ctx.stream, site == kSelfAttn ? kDropout1 : kDropout2));
  }

  Expected<Value*> feed_forward(LayerContext& ctx, Value* x) const {
    MLC_TRY(Value* h, emit_linear(ctx, x, "linear1.", c.bias));
    MLC_TRY(h, c.gelu ? emit_op(ctx.b, OpCode::Gelu, {h}, {{"approximate", std::string("none")}})
                      : emit_op(ctx.b, OpCode::Relu, {h}));
    MLC_TRY(h, emit_dropout(ctx, h, c.dropout, sub_stream(ctx.stream, kFeedForward)));
    MLC_TRY(h, emit_linear(ctx, h, "linear2.", c.bias));
    return emit_dropout(ctx, h, c.dropout, sub_stream(ctx.stream, decoder ? kDropout3 : kDropout2));
  }

  // PyTorch's forward: with norm_first x + block(norm(x)), else norm(x + block(x)), for the
  // blocks self-attention, (decoder) cross-attention on memory, feed-forward.
  Expected<Value*> forward(LayerContext& ctx, Value* x, Value* memory, const Masks& self, const Masks& cross,
                           const Fail& fail) const {
    if (x->type.dtype != DType::f32) return fail("expected an f32 input, found " + x->type.str());
    if (x->type.rank() == 0 || x->type.shape.back() != c.d_model)
      return fail("input " + x->type.str() + " has " +
                  (x->type.rank() ? std::to_string(x->type.shape.back()) : "no") + " features but d_model is " +
                  std::to_string(c.d_model));
    Builder& b = ctx.b;
    const int blocks = decoder ? 3 : 2;
    for (int i = 1; i <= blocks; ++i) {
      auto block = [&](Value* in) -> Expected<Value*> {
        if (i == 1) return attend(ctx, "self_attn", kSelfAttn, in, in, self, fail);
        if (decoder && i == 2) return attend(ctx, "multihead_attn", kCrossAttn, in, memory, cross, fail);
        return feed_forward(ctx, in);
      };
      if (c.norm_first) {
        MLC_TRY(Value* normed, norm(ctx, x, i));
        MLC_TRY(Value* y, block(normed));
        MLC_TRY(x, emit_op(b, OpCode::Add, {x, y}));
      } else {
        MLC_TRY(Value* y, block(x));
        MLC_TRY(Value* sum, emit_op(b, OpCode::Add, {x, y}));
        MLC_TRY(x, norm(ctx, sum, i));
      }
    }
    return x;
  }
};

// nn.TransformerEncoder / nn.TransformerDecoder: num_layers copies of a layer
// (layers.0, layers.1, ...) and an optional final norm.
class Stack : public Layer {
 public:
  std::unique_ptr<Layer> layer, final_norm;
  int64_t num_layers = 1;

  int64_t max_ops() const override {
    return num_layers * layer->max_ops() + (final_norm ? final_norm->max_ops() : 0);
  }
  std::vector<ParamDecl> params() const override {
    // torch's TransformerEncoder/Decoder deep-copies one constructed layer:
    // layers.0 is drawn (in its own order), the others are copies of it.
    std::vector<ParamDecl> p;
    const std::vector<ParamDecl> one = layer->params();
    for (int64_t i = 0; i < num_layers; ++i)
      for (const ParamDecl& d : one) {
        p.push_back({"layers." + std::to_string(i) + "." + d.name, d.shape, d.init, d.dtype, i == 0 ? d.draw : -1});
        if (i > 0) p.back().init.same_as = "layers.0." + d.name;
      }
    if (final_norm)
      for (ParamDecl& d : final_norm->params()) p.push_back({"norm." + d.name, d.shape, d.init, d.dtype});
    return p;
  }
  const BuiltinSpec* call_spec() const override {
    static const BuiltinSpec encoder{"TransformerEncoder", kFunction,
                                     {"src", "mask", "src_key_padding_mask", "is_causal"}, 1};
    return decoder() ? layer->call_spec() : &encoder;
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    if (decoder()) return error(ctx, "takes tgt and memory: call it in a forward, decoder(tgt, memory)");
    std::vector<Val> args(4);
    args[0] = Val::tensor(x, loc());
    MLC_TRY(Val y, apply_call(ctx, args, loc()));
    return y.v;
  }
  Expected<Val> apply_call(LayerContext& ctx, const std::vector<Val>& args, const Loc& at) const override {
    std::vector<Val> call = args;  // each layer gets the stack's masks (same positions)
    for (int64_t i = 0; i < num_layers; ++i) {
      LayerContext sub = sub_context(ctx, "layers." + std::to_string(i), static_cast<uint32_t>(i));
      MLC_TRY(call[0], layer->apply_call(sub, call, at));
    }
    if (!final_norm) return call[0];
    LayerContext sub = sub_context(ctx, "norm", static_cast<uint32_t>(num_layers));
    ctx.b.set_loc(final_norm->loc());
    MLC_TRY(Value* y, final_norm->apply(sub, call[0].v));
    return Val::tensor(y, at);
  }

 private:
  bool decoder() const { return layer->type() == "TransformerDecoderLayer"; }
};

Expected<BlockConfig> parse_block_config(const Fields& f) {
  BlockConfig c;
  MLC_TRY(c.d_model, f.positive("d_model"));
  MLC_TRY(c.nhead, f.positive("nhead"));
  MLC_TRY(c.dim_feedforward, f.positive("dim_feedforward", 2048));
  MLC_TRY(c.dropout, dropout_field(f, 0.1));
  MLC_TRY(std::string act, f.choice("activation", "relu", {"relu", "gelu"}));
  c.gelu = act == "gelu";
  MLC_TRY(c.eps, f.number("layer_norm_eps", 1e-5));
  if (c.eps < 0) return f.doc().error(*f.get("layer_norm_eps"), "'layer_norm_eps': must be >= 0");
  MLC_TRY(c.batch_first, f.boolean("batch_first", false));
  MLC_TRY(c.norm_first, f.boolean("norm_first", false));
  MLC_TRY(c.bias, f.boolean("bias", true));
  MLC_CHECK_OK(check_heads(f, "d_model", c.d_model, "nhead", c.nhead));
  return c;
}

Expected<std::unique_ptr<Layer>> parse_block(const Fields& f, bool decoder) {
  MLC_CHECK_OK(f.allow(with_common_fields({"d_model", "nhead", "dim_feedforward", "dropout", "activation",
                                           "layer_norm_eps", "batch_first", "norm_first", "bias"})));
  auto l = std::make_unique<Block>();
  l->decoder = decoder;
  MLC_TRY(l->c, parse_block_config(f));
  return std::unique_ptr<Layer>(std::move(l));
}

// A layer object inside a field ("encoder_layer", "norm") of one of `types`.
Expected<std::unique_ptr<Layer>> nested_layer(const Fields& f, std::string_view key,
                                              std::initializer_list<std::string_view> types) {
  MLC_TRY(Node n, f.require(key));
  MLC_TRY(Fields inner, Fields::of(f.doc(), n, "'" + std::string(key) + "'"));
  MLC_CHECK_OK(f.doc().expect_object(n));
  MLC_TRY(std::string type, inner.string("type"));
  std::string expected;
  bool known = false;
  for (std::string_view t : types) {
    expected += (expected.empty() ? "" : " or ") + squote(t);
    known = known || t == type;
  }
  if (!known)
    return f.doc().error(*inner.get("type"), "'" + std::string(key) + "': expected a layer of type " + expected +
                                                 ", found " + squote(type));
  if (inner.has("trainable"))
    return f.doc().error(*inner.get("trainable"), "'trainable': set it on the " + f.what() + " itself");
  return parse_layer(inner, type);
}

Expected<std::unique_ptr<Layer>> parse_stack(const Fields& f, bool decoder) {
  const char* layer_key = decoder ? "decoder_layer" : "encoder_layer";
  MLC_CHECK_OK(f.allow(with_common_fields({layer_key, "num_layers", "norm"})));
  auto l = std::make_unique<Stack>();
  MLC_TRY(l->layer, nested_layer(f, layer_key, {decoder ? "TransformerDecoderLayer" : "TransformerEncoderLayer"}));
  MLC_TRY(l->num_layers, f.positive("num_layers"));
  if (l->num_layers > kMaxLayers)
    return f.doc().error(*f.get("num_layers"), "'num_layers': " + std::to_string(l->num_layers) +
                                                   " is too large (at most " + std::to_string(kMaxLayers) + ")");
  if (auto n = f.get("norm"); n && !n->json->is_null()) {
    MLC_TRY(l->final_norm, nested_layer(f, "norm", {"LayerNorm", "RMSNorm"}));
  }
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace

Expected<std::unique_ptr<Layer>> parse_attention_layer(const Fields& f, const std::string& type) {
  if (type == "MultiheadAttention") return parse_multihead(f);
  if (type == "TransformerEncoderLayer" || type == "TransformerDecoderLayer")
    return parse_block(f, type == "TransformerDecoderLayer");
  if (type == "TransformerEncoder" || type == "TransformerDecoder") return parse_stack(f, type == "TransformerDecoder");
  return std::unique_ptr<Layer>();
}

}  // namespace mlc
