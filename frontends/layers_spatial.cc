// Spatial layers (docs/model-format.md, "Layers"), PyTorch 1.13's, emitted as
// compositions of existing ops:
//  - Conv1d: conv2d over a height-1 image; ConvTranspose1d/2d: conv2d_input_grad
//    (the transpose of conv2d), weight [in, out/groups, (kh,) kw] as PyTorch's;
//    an output_padding beyond stride - 1 (allowed by PyTorch while smaller than
//    the dilation) is rows and columns that no input reaches: zeros (+ bias).
//  - AdaptiveAvgPool2d / AdaptiveMaxPool2d, Upsample, PixelShuffle /
//    PixelUnshuffle, ReflectionPad2d / ReplicationPad2d / ZeroPad2d /
//    ConstantPad2d, GroupNorm, InstanceNorm2d: frontends/spatial_ops.h.
// Parameters are registered in PyTorch's order with its default inits:
// conv weights kaiming_uniform(a=sqrt(5)) over weight.size(1) * kernel
// elements (so (out/groups) * k for transposed ones), biases U(+-1/sqrt(that));
// norms' weight ones, bias zeros.
#include <cmath>

#include "frontends/emit_util.h"
#include "frontends/layers.h"
#include "frontends/spatial_ops.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

using Pair = std::array<int64_t, 2>;

std::vector<int64_t> ints(Pair p) { return {p[0], p[1]}; }
std::string str(int64_t v) { return std::to_string(v); }

ParamInit constant_init(ParamInit::Kind kind) {
  ParamInit init;
  init.kind = kind;
  return init;
}

// Conv1d, ConvTranspose1d and ConvTranspose2d; 1-d sizes are pairs {1, k}.
class Conv : public Layer {
 public:
  int64_t max_ops() const override { return 8; }  // reshapes of x and w, the conv, pad, bias reshape and add, reshape
  bool one_d = false, transposed = false;
  int64_t in = 0, out = 0, groups = 1;
  Pair kernel{}, stride{1, 1}, padding{0, 0}, output_padding{0, 0}, dilation{1, 1};
  bool bias = true;

  Shape weight_shape() const {
    Shape s = transposed ? Shape{in, out / groups} : Shape{out, in / groups};
    if (!one_d) s.push_back(kernel[0]);
    s.push_back(kernel[1]);
    return s;
  }
  std::vector<ParamDecl> params() const override {
    Shape w = weight_shape();
    double fan_in = static_cast<double>(w[1]) * static_cast<double>(kernel[0] * kernel[1]);
    std::vector<ParamDecl> p{{"weight", w, kaiming_uniform(fan_in)}};
    if (bias) p.push_back({"bias", {out}, uniform_fan_in(fan_in)});
    return p;
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    const int64_t rank = one_d ? 3 : 4;
    if (x->type.rank() != rank)
      return error(ctx, std::string("expected an input ") + (one_d ? "[N,C,L]" : "[N,C,H,W]") + ", found " +
                            x->type.str());
    if (x->type.shape[1] != in)
      return error(ctx, "input has " + str(x->type.shape[1]) + " channels but in_channels is " + str(in));
    Builder& b = ctx.b;
    const int64_t n = x->type.shape[0];
    Value* x4 = x;
    Value* w4 = ctx.param("weight");
    if (one_d) {
      MLC_TRY(x4, emit_reshape(b, x, {n, in, 1, x->type.shape[2]}));
      Shape w = w4->type.shape;
      MLC_TRY(w4, emit_reshape(b, w4, {w[0], w[1], 1, w[2]}));
    }
    Attrs attrs{{"stride", ints(stride)}, {"padding", ints(padding)}, {"dilation", ints(dilation)}, {"groups", groups}};
    Value* y = nullptr;
    if (!transposed) {
      for (int i = 0; i < 2; ++i)
        if (kernel[i] - 1 > (x4->type.shape[2 + i] + 2 * padding[i] - 1) / dilation[i])
          return error(ctx, "kernel_size " + str(kernel[i]) + " (dilation " + str(dilation[i]) + ", padding " +
                                str(padding[i]) + ") does not fit input " + x->type.str() +
                                (one_d ? "" : " in dim " + str(2 + i)));
      MLC_TRY(y, emit_op(b, OpCode::Conv2d, {x4, w4}, std::move(attrs)));
    } else {
      // conv2d_input_grad yields the sizes whose conv2d gives back x's; the rest
      // of output_padding (where it reaches the stride) is zero rows.
      Shape shape{n, out, 0, 0};
      std::vector<int64_t> low{0, 0, 0, 0}, high{0, 0, 0, 0};
      for (int i = 0; i < 2; ++i) {
        int64_t size = (x4->type.shape[2 + i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + 1;
        if (size + output_padding[i] < 1)
          return error(ctx, "input " + x->type.str() + " gives an empty output (size " +
                                str(size + output_padding[i]) + ")");
        const int64_t reached = std::min(output_padding[i], stride[i] - 1);
        shape[2 + i] = size + reached;
        high[2 + i] = output_padding[i] - reached;
        if (shape[2 + i] < 1)
          return error(ctx, "input " + x->type.str() + " gives an output row that no input reaches; "
                                "padding " + str(padding[i]) + " is too large");
      }
      MLC_TRY(y, b.try_create(OpCode::Conv2dInputGrad, {x4, w4}, std::move(attrs), TensorType{x->type.dtype, shape}));
      if (high[2] || high[3]) {
        MLC_TRY(y, emit_op(b, OpCode::Pad, {y}, {{"low", low}, {"high", high}, {"value", 0.0}}));
      }
    }
    if (bias) {
      MLC_TRY(Value* bv, emit_reshape(b, ctx.param("bias"), {out, 1, 1}));
      MLC_TRY(y, emit_op(b, OpCode::Add, {y, bv}));
    }
    if (one_d) {
      MLC_TRY(y, emit_reshape(b, y, {n, out, y->type.shape[3]}));
    }
    return y;
  }
};

class AdaptivePool : public Layer {
 public:
  int64_t max_ops() const override { return adaptive_pool2d_max_ops(output_size); }
  bool max = false;
  Pair output_size{};
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    return emit_adaptive_pool2d(ctx.b, x, output_size, max, type() + " " + squote(ctx.path), loc());
  }
};

class Upsample : public Layer {
 public:
  int64_t max_ops() const override { return kInterpolateMaxOps; }
  std::optional<Pair> size;
  std::optional<std::array<double, 2>> scale_factor;
  bool bilinear = false, align_corners = false, recompute_scale_factor = false;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    if (x->type.rank() != 4) return error(ctx, "expected an input [N,C,H,W], found " + x->type.str());
    InterpolateArgs a;
    a.size = interpolate_size(x->type.shape, size, scale_factor);
    if (!recompute_scale_factor) a.scale_factor = scale_factor;
    a.bilinear = bilinear;
    a.align_corners = align_corners;
    return emit_interpolate(ctx.b, x, a, type() + " " + squote(ctx.path), loc());
  }
};

class PixelShuffle : public Layer {
 public:
  int64_t max_ops() const override { return kPixelShuffleMaxOps; }
  int64_t factor = 1;
  bool unshuffle = false;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    return emit_pixel_shuffle(ctx.b, x, factor, unshuffle, type() + " " + squote(ctx.path), loc());
  }
};

class Pad2d : public Layer {
 public:
  int64_t max_ops() const override { return kPadMaxOps; }
  std::vector<int64_t> padding;  // left, right, top, bottom
  std::string mode;
  double value = 0;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    if (x->type.rank() != 3 && x->type.rank() != 4)
      return error(ctx, "expected an input [N,C,H,W] or [C,H,W], found " + x->type.str());
    return emit_pad_mode(ctx.b, x, padding, mode, value, type() + " " + squote(ctx.path), loc());
  }
};

// GroupNorm (input [N,C,*]) and InstanceNorm2d ([N,C,H,W] or [C,H,W], a group per channel).
class GroupNorm : public Layer {
 public:
  int64_t max_ops() const override { return kGroupNormMaxOps + 2; }
  bool instance = false, affine = true;
  int64_t groups = 1, channels = 0;
  double eps = 1e-5;
  std::vector<ParamDecl> params() const override {
    if (!affine) return {};
    return {{"weight", {channels}, constant_init(ParamInit::Kind::ones)},
            {"bias", {channels}, constant_init(ParamInit::Kind::zeros)}};
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, affine));
    const int64_t rank = x->type.rank();
    if (instance && rank != 3 && rank != 4)
      return error(ctx, "expected an input [N,C,H,W] or [C,H,W], found " + x->type.str());
    if (!instance && rank < 2) return error(ctx, "expected an input [N,C,*], found " + x->type.str());
    const int64_t c = x->type.shape[rank == 3 && instance ? 0 : 1];
    if ((affine || !instance) && c != channels)
      return error(ctx, "input has " + str(c) + " channels but " +
                            (instance ? "num_features is " : "num_channels is ") + str(channels));
    Value* x4 = x;
    if (rank == 3 && instance) {
      Shape s = x->type.shape;
      s.insert(s.begin(), 1);
      MLC_TRY(x4, emit_reshape(ctx.b, x, s));
    }
    Value* w = affine ? ctx.param("weight") : nullptr;
    Value* bias = affine ? ctx.param("bias") : nullptr;
    MLC_TRY(Value* y, emit_group_norm(ctx.b, x4, instance ? c : groups, eps, w, bias,
                                      type() + " " + squote(ctx.path), loc()));
    return emit_reshape(ctx.b, y, x->type.shape);
  }
};

// ---- parsing

// An int or a list of one int (PyTorch's 1-tuple), >= 1 (or >= 0 with allow_zero).
Expected<int64_t> single_field(const Fields& f, std::string_view key, int64_t dflt, bool allow_zero) {
  auto node = f.get(key);
  if (!node) return dflt;
  const JsonDoc& doc = f.doc();
  Node n = *node;
  if (n.json->is_array()) {
    if (n.json->size() != 1)
      return doc.error(n, field_prefix(n) + "expected an integer or a list of one integer, found an array of " +
                              str(static_cast<int64_t>(n.json->size())));
    n = n.element(0);
  }
  if (!allow_zero) return doc.as_positive(n);
  MLC_TRY(int64_t v, doc.as_int(n));
  if (v < 0 || v > kMaxElements) return doc.error(n, field_prefix(n) + "must be in 0 .. 2^40, found " + str(v));
  return v;
}

// A size field of a 1-d (one int) or 2-d (int or pair) layer.
Expected<Pair> size_field(const Fields& f, std::string_view key, Pair dflt, bool one_d, bool allow_zero) {
  if (!one_d) return pair_field(f, key, dflt, allow_zero);
  MLC_TRY(int64_t v, single_field(f, key, dflt[1], allow_zero));
  return Pair{one_d && !allow_zero ? 1 : 0, v};
}

Expected<std::unique_ptr<Layer>> parse_conv(const Fields& f, bool one_d, bool transposed) {
  std::vector<std::string> allowed{"in_channels", "out_channels", "kernel_size", "stride", "padding"};
  if (transposed) allowed.push_back("output_padding");
  for (const char* k : {"dilation", "groups", "bias"}) allowed.push_back(k);
  MLC_CHECK_OK(f.allow(with_common_fields(allowed)));
  auto l = std::make_unique<Conv>();
  l->one_d = one_d;
  l->transposed = transposed;
  MLC_TRY(l->in, f.positive("in_channels"));
  MLC_TRY(l->out, f.positive("out_channels"));
  if (!f.has("kernel_size")) return f.missing("kernel_size");
  MLC_TRY(l->kernel, size_field(f, "kernel_size", {}, one_d, false));
  MLC_TRY(l->stride, size_field(f, "stride", {1, 1}, one_d, false));
  MLC_TRY(l->padding, size_field(f, "padding", {0, 0}, one_d, true));
  MLC_TRY(l->output_padding, size_field(f, "output_padding", {0, 0}, one_d, true));
  MLC_TRY(l->dilation, size_field(f, "dilation", {1, 1}, one_d, false));
  MLC_TRY(l->groups, f.positive("groups", 1));
  MLC_TRY(l->bias, f.boolean("bias", true));
  for (auto [what, v] : {std::pair{"in_channels", l->in}, std::pair{"out_channels", l->out}})
    if (v % l->groups != 0)
      return f.doc().error(*f.get("groups"), "'groups': " + std::string(what) + " " + str(v) +
                                                 " is not divisible by groups " + str(l->groups));
  for (int i = 0; i < 2; ++i)
    if (l->output_padding[i] >= l->stride[i] && l->output_padding[i] >= l->dilation[i])
      return f.doc().error(*f.get("output_padding"),
                           "'output_padding': must be smaller than either stride or dilation, found " +
                               str(l->output_padding[i]) + " (stride " + str(l->stride[i]) + ", dilation " +
                               str(l->dilation[i]) + ")");
  return std::unique_ptr<Layer>(std::move(l));
}

// A positive number or a pair of them.
Expected<std::array<double, 2>> scale_pair(const Fields& f, const Node& node) {
  const JsonDoc& doc = f.doc();
  auto one = [&](const Node& n) -> Expected<double> {
    MLC_TRY(double v, doc.as_number(n));
    if (!(v > 0)) return doc.error(n, field_prefix(n) + "must be > 0, found " + std::to_string(v));
    return v;
  };
  if (node.json->is_array()) {
    if (node.json->size() != 2)
      return doc.error(node, field_prefix(node) + "expected a number or a pair of numbers, found an array of " +
                                 str(static_cast<int64_t>(node.json->size())));
    MLC_TRY(double a, one(node.element(0)));
    MLC_TRY(double b, one(node.element(1)));
    return std::array<double, 2>{a, b};
  }
  MLC_TRY(double v, one(node));
  return std::array<double, 2>{v, v};
}

bool given(const Fields& f, std::string_view key) {
  auto n = f.get(key);
  return n && !n->json->is_null();
}

Expected<std::unique_ptr<Layer>> parse_upsample(const Fields& f) {
  MLC_CHECK_OK(f.allow(with_common_fields({"size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"})));
  auto l = std::make_unique<Upsample>();
  if (given(f, "size") == given(f, "scale_factor"))
    return given(f, "size") ? f.doc().key_error(*f.get("scale_factor"), "'scale_factor': only one of size or scale_factor should be defined")
                            : f.doc().error(f.node(), "Upsample: either size or scale_factor should be defined");
  if (given(f, "size")) {
    MLC_TRY(Pair size, pair_field(f, "size", {}, false));
    l->size = size;
  } else {
    MLC_TRY(l->scale_factor, scale_pair(f, *f.get("scale_factor")));
  }
  MLC_TRY(std::string mode, f.choice("mode", "nearest", {"nearest", "bilinear"}));
  l->bilinear = mode == "bilinear";
  if (given(f, "align_corners")) {
    if (!l->bilinear)
      return f.doc().key_error(*f.get("align_corners"),
                               "'align_corners': align_corners option can only be set with the interpolating modes: bilinear");
    MLC_TRY(l->align_corners, f.boolean("align_corners", false));
  }
  if (given(f, "recompute_scale_factor")) {
    MLC_TRY(l->recompute_scale_factor, f.boolean("recompute_scale_factor", false));
  }
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_pad(const Fields& f, const std::string& type) {
  const bool constant = type == "ConstantPad2d";
  std::vector<std::string> allowed{"padding"};
  if (constant) allowed.push_back("value");
  MLC_CHECK_OK(f.allow(with_common_fields(allowed)));
  auto l = std::make_unique<Pad2d>();
  l->mode = type == "ReflectionPad2d" ? "reflect" : type == "ReplicationPad2d" ? "replicate" : "constant";
  MLC_TRY(Node node, f.require("padding"));
  const JsonDoc& doc = f.doc();
  auto one = [&](const Node& n) -> Expected<int64_t> {
    MLC_TRY(int64_t v, doc.as_int(n));
    if (v < 0 || v > kMaxElements) return doc.error(n, field_prefix(n) + "must be in 0 .. 2^40, found " + str(v));
    return v;
  };
  if (node.json->is_array()) {
    if (node.json->size() != 4)
      return doc.error(node, "'padding': expected an integer or 4 integers (left, right, top, bottom), found an "
                             "array of " + str(static_cast<int64_t>(node.json->size())));
    for (size_t i = 0; i < 4; ++i) {
      MLC_TRY(int64_t v, one(node.element(i)));
      l->padding.push_back(v);
    }
  } else {
    MLC_TRY(int64_t v, one(node));
    l->padding.assign(4, v);
  }
  if (constant) {
    MLC_TRY(Node value, f.require("value"));
    MLC_TRY(l->value, doc.as_number(value));
  }
  return std::unique_ptr<Layer>(std::move(l));
}

Expected<std::unique_ptr<Layer>> parse_norm(const Fields& f, bool instance) {
  auto l = std::make_unique<GroupNorm>();
  l->instance = instance;
  if (instance) {
    MLC_CHECK_OK(f.allow(with_common_fields({"num_features", "eps", "momentum", "affine", "track_running_stats"})));
    MLC_TRY(l->channels, f.positive("num_features"));
    MLC_TRY(l->affine, f.boolean("affine", false));
    MLC_TRY(double momentum, f.number("momentum", 0.1));
    if (momentum < 0 || momentum > 1)
      return f.doc().error(*f.get("momentum"), "'momentum': must be in [0, 1], found " + std::to_string(momentum));
    MLC_TRY(bool track, f.boolean("track_running_stats", false));
    if (track)
      return f.doc().error(*f.get("track_running_stats"),
                           "'track_running_stats': InstanceNorm2d with running statistics is not supported; "
                           "use false (PyTorch's default: statistics of each instance in training and evaluation)");
  } else {
    MLC_CHECK_OK(f.allow(with_common_fields({"num_groups", "num_channels", "eps", "affine"})));
    MLC_TRY(l->groups, f.positive("num_groups"));
    MLC_TRY(l->channels, f.positive("num_channels"));
    MLC_TRY(l->affine, f.boolean("affine", true));
    if (l->channels % l->groups != 0)
      return f.doc().error(*f.get("num_groups"), "'num_groups': num_channels " + str(l->channels) +
                                                     " is not divisible by num_groups " + str(l->groups));
  }
  MLC_TRY(l->eps, f.number("eps", 1e-5));
  if (l->eps < 0) return f.doc().error(*f.get("eps"), "'eps': must be >= 0");
  return std::unique_ptr<Layer>(std::move(l));
}

}  // namespace

Expected<std::unique_ptr<Layer>> parse_spatial_layer(const Fields& f, const std::string& type) {
  if (type == "Conv1d") return parse_conv(f, true, false);
  if (type == "ConvTranspose1d") return parse_conv(f, true, true);
  if (type == "ConvTranspose2d") return parse_conv(f, false, true);
  if (type == "AdaptiveAvgPool2d" || type == "AdaptiveMaxPool2d") {
    MLC_CHECK_OK(f.allow(with_common_fields({"output_size"})));
    auto l = std::make_unique<AdaptivePool>();
    l->max = type == "AdaptiveMaxPool2d";
    if (!f.has("output_size")) return f.missing("output_size");
    MLC_TRY(l->output_size, pair_field(f, "output_size", {}, false));
    if (l->output_size[0] > 4096 || l->output_size[1] > 4096)
      return f.doc().error(*f.get("output_size"), "'output_size': at most 4096 per dim");
    return std::unique_ptr<Layer>(std::move(l));
  }
  if (type == "Upsample") return parse_upsample(f);
  if (type == "PixelShuffle" || type == "PixelUnshuffle") {
    const bool un = type == "PixelUnshuffle";
    const char* key = un ? "downscale_factor" : "upscale_factor";
    MLC_CHECK_OK(f.allow(with_common_fields({key})));
    auto l = std::make_unique<PixelShuffle>();
    l->unshuffle = un;
    MLC_TRY(l->factor, f.positive(key));
    if (l->factor > 65536)
      return f.doc().error(*f.get(key), "'" + std::string(key) + "': at most 65536, found " + str(l->factor));
    return std::unique_ptr<Layer>(std::move(l));
  }
  if (type == "ReflectionPad2d" || type == "ReplicationPad2d" || type == "ZeroPad2d" || type == "ConstantPad2d")
    return parse_pad(f, type);
  if (type == "GroupNorm" || type == "InstanceNorm2d") return parse_norm(f, type == "InstanceNorm2d");
  return std::unique_ptr<Layer>();
}

}  // namespace mlc
