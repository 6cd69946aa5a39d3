// Layers: the registry, Linear, Conv2d, pools and Flatten. Activations live
// in layers_activation.cc, transformer layers in layers_transformer.cc.
#include "frontends/layers.h"

#include <array>
#include <cmath>
#include <optional>

#include "frontends/emit_util.h"
#include "frontends/forward_builtins.h"
#include "ir/diagnostics.h"

namespace mlc {

// ---- shared helpers

Error Layer::error(const LayerContext& ctx, const std::string& message) const {
  return error_at(loc_, type_ + " " + squote(ctx.path.empty() ? "model" : ctx.path) + ": " + message);
}

Status Layer::require_float(const LayerContext& ctx, Value* x, bool needs_f32) const {
  if (!is_float(x->type.dtype) || (needs_f32 && x->type.dtype != ctx.float_dtype))
    return error(ctx, "expected a" + std::string(needs_f32 ? "n " + std::string(dtype_name(ctx.float_dtype)) : " float") +
                          " input, found " + x->type.str() +
                          (needs_f32 && ctx.float_dtype == DType::f64 ? " (the model's dtype is f64: cast the "
                                                                        "input with .double())" : ""));
  return {};
}

Expected<Val> Layer::apply_call(LayerContext& ctx, const std::vector<Val>& args, const Loc& at) const {
  MLC_TRY(Value* x, tensor_arg(args.at(0), type_, at));
  MLC_TRY(Value* y, apply(ctx, x));
  return Val::tensor(y, at);
}

ParamInit uniform_fan_in(double fan_in) {
  ParamInit init;
  init.kind = ParamInit::Kind::uniform;
  init.bound = 1.0 / std::sqrt(fan_in);
  return init;
}

ParamInit kaiming_uniform(double fan_in) {
  ParamInit init;
  init.kind = ParamInit::Kind::kaiming_uniform;
  init.fan_in = fan_in;
  return init;
}

void linear_params(std::vector<ParamDecl>& out, const std::string& prefix, int64_t in,
                   int64_t out_features, bool bias) {
  out.push_back({prefix + "weight", {out_features, in}, kaiming_uniform(in)});
  if (bias) out.push_back({prefix + "bias", {out_features}, uniform_fan_in(in)});
}

Expected<Value*> emit_linear(LayerContext& ctx, Value* x, const std::string& prefix, bool bias) {
  Builder& b = ctx.b;
  Value* w = ctx.param(prefix + "weight");
  Shape in_shape = x->type.shape;
  if (x->type.rank() == 1) {
    MLC_TRY(x, emit_reshape(b, x, {1, in_shape[0]}));
  }
  MLC_TRY(Value* y, emit_op(b, OpCode::Dot, {x, w}, {{"transpose_b", true}}));
  if (bias) {
    MLC_TRY(y, emit_op(b, OpCode::Add, {y, ctx.param(prefix + "bias")}));
  }
  if (in_shape.size() == 1) {
    MLC_TRY(y, emit_reshape(b, y, {w->type.shape[0]}));
  }
  return y;
}

std::vector<std::string> with_common_fields(std::vector<std::string> fields) {
  fields.insert(fields.begin(), "type");
  fields.push_back("trainable");
  return fields;
}

Expected<std::array<int64_t, 2>> pair_field(const Fields& f, std::string_view key, std::array<int64_t, 2> dflt,
                                            bool allow_zero) {
  using Pair = std::array<int64_t, 2>;
  auto node = f.get(key);
  if (!node) return dflt;
  const JsonDoc& doc = f.doc();
  auto one = [&](const Node& n) -> Expected<int64_t> {
    if (!allow_zero) return doc.as_positive(n);
    MLC_TRY(int64_t v, doc.as_int(n));
    if (v < 0) return doc.error(n, field_prefix(n) + "must be >= 0, found " + std::to_string(v));
    if (v > kMaxElements) return doc.error(n, field_prefix(n) + "is too large (at most 2^40)");
    return v;
  };
  if (node->json->is_array()) {
    if (node->json->size() != 2)
      return doc.error(*node, field_prefix(*node) + "expected an integer or a pair of integers, "
                                                     "found an array of " +
                                  std::to_string(node->json->size()));
    MLC_TRY(int64_t a, one(node->element(0)));
    MLC_TRY(int64_t b, one(node->element(1)));
    return Pair{a, b};
  }
  if (!node->json->is_number_integer() && !node->json->is_string())
    return doc.error(*node, field_prefix(*node) + "expected an integer or a pair of integers, found " +
                                json_kind(*node->json));
  MLC_TRY(int64_t v, one(*node));
  return Pair{v, v};
}

namespace {

using Pair = std::array<int64_t, 2>;

std::vector<int64_t> ints(Pair p) { return {p[0], p[1]}; }

class Linear : public Layer {
 public:
  int64_t max_ops() const override { return 4; }  // reshape, dot, add, reshape
  int64_t in = 0, out = 0;
  bool bias = true;
  std::optional<TiedParam> tie;  // "tie_weight": the weight is another layer's
  std::vector<ParamDecl> params() const override {
    std::vector<ParamDecl> p;
    linear_params(p, "", in, out, bias);
    if (tie) p.erase(p.begin());
    return p;
  }
  std::vector<TiedParam> ties() const override {
    return tie ? std::vector<TiedParam>{*tie} : std::vector<TiedParam>{};
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    if (x->type.rank() == 0) return error(ctx, "expected an input of rank >= 1, found " + x->type.str());
    int64_t features = x->type.shape.back();
    if (features != in)
      return error(ctx, "input has " + std::to_string(features) + " features but in_features is " +
                            std::to_string(in));
    return emit_linear(ctx, x, "", bias);
  }
};

class Conv2d : public Layer {
 public:
  int64_t max_ops() const override { return 3; }  // conv2d, reshape, add
  int64_t in = 0, out = 0, groups = 1;
  Pair kernel{}, stride{1, 1}, padding{0, 0}, dilation{1, 1};
  bool bias = true;
  std::vector<ParamDecl> params() const override {
    double fan_in = static_cast<double>(in / groups) * static_cast<double>(kernel[0]) *
                    static_cast<double>(kernel[1]);
    std::vector<ParamDecl> p{{"weight", {out, in / groups, kernel[0], kernel[1]}, kaiming_uniform(fan_in)}};
    if (bias) p.push_back({"bias", {out}, uniform_fan_in(fan_in)});
    return p;
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    if (x->type.rank() != 4) return error(ctx, "expected an input [N,C,H,W], found " + x->type.str());
    if (x->type.shape[1] != in)
      return error(ctx, "input has " + std::to_string(x->type.shape[1]) +
                            " channels but in_channels is " + std::to_string(in));
    for (int i = 0; i < 2; ++i)
      if (kernel[i] - 1 > (x->type.shape[2 + i] + 2 * padding[i] - 1) / dilation[i])
        return error(ctx, "kernel " + shape_to_string(ints(kernel)) + " (dilation " +
                              shape_to_string(ints(dilation)) + ", padding " +
                              shape_to_string(ints(padding)) + ") does not fit input " +
                              x->type.str());
    Attrs attrs{{"stride", ints(stride)}, {"padding", ints(padding)},
                {"dilation", ints(dilation)}, {"groups", groups}};
    MLC_TRY(Value* y, emit_op(ctx.b, OpCode::Conv2d, {x, ctx.param("weight")}, std::move(attrs)));
    if (!bias) return y;
    MLC_TRY(Value* b, emit_reshape(ctx.b, ctx.param("bias"), {out, 1, 1}));
    return emit_op(ctx.b, OpCode::Add, {y, b});
  }
};

class Pool2d : public Layer {
 public:
  int64_t max_ops() const override { return 1; }  // the pooling op
  bool max = true, count_include_pad = true;
  Pair kernel{}, stride{}, padding{0, 0};
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, false));
    if (x->type.rank() != 4) return error(ctx, "expected an input [N,C,H,W], found " + x->type.str());
    for (int i = 0; i < 2; ++i)
      if (x->type.shape[2 + i] + 2 * padding[i] < kernel[i])
        return error(ctx, "kernel " + shape_to_string(ints(kernel)) + " (padding " +
                              shape_to_string(ints(padding)) + ") does not fit input " +
                              x->type.str());
    Attrs attrs{{"kernel", ints(kernel)}, {"stride", ints(stride)}, {"padding", ints(padding)}};
    if (!max) attrs.set("count_include_pad", count_include_pad);
    return emit_op(ctx.b, max ? OpCode::MaxPool2d : OpCode::AvgPool2d, {x}, std::move(attrs));
  }
};

class Flatten : public Layer {
 public:
  int64_t max_ops() const override { return 1; }  // reshape
  int64_t start_dim = 1, end_dim = -1;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    int64_t rank = x->type.rank();
    int64_t s = start_dim < 0 ? start_dim + rank : start_dim;
    int64_t e = end_dim < 0 ? end_dim + rank : end_dim;
    if (s < 0 || s >= rank || e < 0 || e >= rank || s > e)
      return error(ctx, "start_dim " + std::to_string(start_dim) + " and end_dim " +
                            std::to_string(end_dim) + " do not fit input " + x->type.str());
    Shape shape(x->type.shape.begin(), x->type.shape.begin() + s);
    int64_t n = 1;
    for (int64_t i = s; i <= e; ++i) n *= x->type.shape[i];
    shape.push_back(n);
    shape.insert(shape.end(), x->type.shape.begin() + e + 1, x->type.shape.end());
    return emit_reshape(ctx.b, x, shape);
  }
};

Expected<std::unique_ptr<Layer>> parse_linear(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"in_features", "out_features", "bias", "tie_weight"})));
  auto l = std::make_unique<Linear>();
  MLC_TRY(l->in, f.positive("in_features"));
  MLC_TRY(l->out, f.positive("out_features"));
  MLC_TRY(l->bias, f.boolean("bias", true));
  if (auto tie = f.get("tie_weight")) {
    MLC_TRY(std::string target, f.doc().as_string(*tie));
    l->tie = TiedParam{"weight", target, {l->out, l->in}, f.doc().loc(*tie)};
  }
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_conv2d(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"in_channels", "out_channels", "kernel_size", "stride",
                                           "padding", "dilation", "groups", "bias"})));
  auto l = std::make_unique<Conv2d>();
  MLC_TRY(l->in, f.positive("in_channels"));
  MLC_TRY(l->out, f.positive("out_channels"));
  if (!f.has("kernel_size")) return f.missing("kernel_size");
  MLC_TRY(l->kernel, pair_field(f, "kernel_size", {}, false));
  MLC_TRY(l->stride, pair_field(f, "stride", {1, 1}, false));
  MLC_TRY(l->padding, pair_field(f, "padding", {0, 0}, true));
  MLC_TRY(l->dilation, pair_field(f, "dilation", {1, 1}, false));
  MLC_TRY(l->groups, f.positive("groups", 1));
  MLC_TRY(l->bias, f.boolean("bias", true));
  for (auto [what, v] : {std::pair{"in_channels", l->in}, std::pair{"out_channels", l->out}})
    if (v % l->groups != 0)
      return f.doc().error(*f.get("groups"), "'groups': " + std::string(what) + " " +
                                                 std::to_string(v) + " is not divisible by groups " +
                                                 std::to_string(l->groups));
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_pool(const Fields& f, bool max) {
  std::vector<std::string> allowed{"kernel_size", "stride", "padding"};
  if (!max) allowed.push_back("count_include_pad");
  MLC_CHECK_OK(f.allow(with_common_fields(allowed)));
  auto l = std::make_unique<Pool2d>();
  l->max = max;
  if (!f.has("kernel_size")) return f.missing("kernel_size");
  MLC_TRY(l->kernel, pair_field(f, "kernel_size", {}, false));
  MLC_TRY(l->stride, pair_field(f, "stride", l->kernel, false));
  MLC_TRY(l->padding, pair_field(f, "padding", {0, 0}, true));
  if (!max) {
    MLC_TRY(l->count_include_pad, f.boolean("count_include_pad", true));
  }
  if (2 * l->padding[0] > l->kernel[0] || 2 * l->padding[1] > l->kernel[1])
    return f.doc().error(*f.get("padding"), "'padding': must be at most half of kernel_size " +
                                                shape_to_string(ints(l->kernel)));
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_flatten(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"start_dim", "end_dim"})));
  auto l = std::make_unique<Flatten>();
  MLC_TRY(l->start_dim, f.integer("start_dim", 1));
  MLC_TRY(l->end_dim, f.integer("end_dim", -1));
  for (auto [key, v] : {std::pair{"start_dim", l->start_dim}, std::pair{"end_dim", l->end_dim}})
    if (v < -64 || v > 64)
      return f.doc().error(*f.get(key), "'" + std::string(key) + "': " + std::to_string(v) +
                                            " is out of range");
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace

const std::vector<std::string>& layer_types() {
  static const std::vector<std::string> types = {
      "Linear",  "Conv2d",    "MaxPool2d", "AvgPool2d", "ReLU",
      "GELU",    "SiLU",      "Tanh",      "Sigmoid",   "LeakyReLU",
      "ELU",     "SELU",      "Softplus",  "Hardswish", "Mish",
      "PReLU",   "Softmax",   "LogSoftmax", "Softmax2d", "Identity",
      "Flatten", "Embedding", "LayerNorm", "RMSNorm", "CausalSelfAttention", "SwiGLU",
      "BatchNorm1d", "BatchNorm2d", "Dropout",
      "Conv1d", "ConvTranspose1d", "ConvTranspose2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "Upsample",
      "PixelShuffle", "PixelUnshuffle", "ReflectionPad2d", "ReplicationPad2d", "ZeroPad2d", "ConstantPad2d",
      "GroupNorm", "InstanceNorm2d",
      "MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
      "TransformerEncoder", "TransformerDecoder",
      "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"};
  return types;
}

bool is_layer_type(const std::string& type) {
  for (const auto& t : layer_types())
    if (t == type) return true;
  return false;
}

Expected<std::unique_ptr<Layer>> parse_layer(const Fields& f, const std::string& type) {
  Expected<std::unique_ptr<Layer>> l = std::unique_ptr<Layer>();
  if (type == "Linear") l = parse_linear(f);
  else if (type == "Conv2d") l = parse_conv2d(f);
  else if (type == "MaxPool2d" || type == "AvgPool2d") l = parse_pool(f, type == "MaxPool2d");
  else if (type == "Flatten") l = parse_flatten(f);
  else l = parse_activation_layer(f, type);
  if (l && !*l) l = parse_transformer_layer(f, type);
  if (l && !*l) l = parse_train_mode_layer(f, type);
  if (l && !*l) l = parse_spatial_layer(f, type);
  if (l && !*l) l = parse_attention_layer(f, type);
  if (l && !*l) l = parse_recurrent_layer(f, type);
  if (!l) return l.take_error();
  if (!*l) return f.doc().error(f.node(), "internal: layer type " + squote(type) + " has no parser");
  (*l)->type_ = type;
  (*l)->loc_ = f.loc();
  return l;
}

}  // namespace mlc
