// Layers: the activations (ReLU, GELU, SiLU, Tanh, Sigmoid, LeakyReLU, ELU,
// SELU, Softplus, Hardswish, Mish, PReLU), Softmax, LogSoftmax, Softmax2d and
// Identity, with torch.nn's fields and defaults.
#include <cmath>

#include "frontends/activations.h"
#include "frontends/emit_util.h"
#include "frontends/layers.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

// One op of ir/ops.def with fixed attributes.
class Activation : public Layer {
 public:
  int64_t max_ops() const override { return 1; }  // the activation op
  OpCode code = OpCode::Relu;
  Attrs attrs;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, false));
    return emit_op(ctx.b, code, {x}, attrs);
  }
};

class PRelu : public Layer {
 public:
  int64_t max_ops() const override { return 5; }  // reshape, constant, compare, mul, select
  int64_t num_parameters = 1;
  double init = 0.25;
  std::vector<ParamDecl> params() const override {
    ParamInit constant;
    constant.kind = ParamInit::Kind::constant;
    constant.value = init;
    return {{"weight", {num_parameters}, constant}};
  }
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, true));
    return emit_prelu(ctx.b, x, ctx.param("weight"), type() + " " + squote(ctx.path.empty() ? "model" : ctx.path),
                      loc());
  }
};

// Softmax(dim), LogSoftmax(dim), Softmax2d (softmax over dim -3 of [C,H,W] or [N,C,H,W]).
class SoftmaxLayer : public Layer {
 public:
  int64_t max_ops() const override { return 1; }
  int64_t dim = -1;
  bool log = false, planes = false;
  Expected<Value*> apply(LayerContext& ctx, Value* x) const override {
    MLC_CHECK_OK(require_float(ctx, x, false));
    if (planes && x->type.rank() != 3 && x->type.rank() != 4)
      return error(ctx, "expected an input [C,H,W] or [N,C,H,W], found " + x->type.str());
    return emit_softmax(ctx.b, x, dim, log, type() + " " + squote(ctx.path.empty() ? "model" : ctx.path), loc());
  }
};

class Identity : public Layer {
 public:
  int64_t max_ops() const override { return 0; }
  Expected<Value*> apply(LayerContext&, Value* x) const override { return x; }
};

std::unique_ptr<Layer> activation(OpCode code, Attrs attrs = {}) {
  auto l = std::make_unique<Activation>();
  l->code = code;
  l->attrs = std::move(attrs);
  return l;
}

// A finite number field.
Expected<double> finite(const Fields& f, std::string_view key, double dflt) {
  MLC_TRY(double v, f.number(key, dflt));
  if (!std::isfinite(v)) return f.doc().error(*f.get(key), "'" + std::string(key) + "': must be finite");
  return v;
}

}  // namespace

Expected<std::unique_ptr<Layer>> parse_activation_layer(const Fields& f, const std::string& type) {
  static const std::pair<std::string_view, OpCode> kPlain[] = {
      {"ReLU", OpCode::Relu}, {"SiLU", OpCode::Silu}, {"Tanh", OpCode::Tanh}, {"Sigmoid", OpCode::Sigmoid},
      {"Hardswish", OpCode::Hardswish}, {"Mish", OpCode::Mish}};
  for (auto [name, code] : kPlain)
    if (type == name) {
      MLC_CHECK_OK(f.allow(with_common_fields({})));
      return activation(code);
    }
  if (type == "GELU") {
    MLC_CHECK_OK(f.allow(with_common_fields({"approximate"})));
    MLC_TRY(std::string approximate, f.choice("approximate", "none", {"none", "tanh"}));
    return activation(OpCode::Gelu, {{"approximate", approximate}});
  }
  if (type == "LeakyReLU") {
    MLC_CHECK_OK(f.allow(with_common_fields({"negative_slope"})));
    MLC_TRY(double slope, finite(f, "negative_slope", 0.01));
    return activation(OpCode::LeakyRelu, {{"negative_slope", slope}});
  }
  if (type == "ELU") {
    MLC_CHECK_OK(f.allow(with_common_fields({"alpha"})));
    MLC_TRY(double alpha, finite(f, "alpha", 1.0));
    return activation(OpCode::Elu, {{"alpha", alpha}});
  }
  if (type == "SELU") {
    MLC_CHECK_OK(f.allow(with_common_fields({})));
    return activation(OpCode::Elu, {{"alpha", kSeluAlpha}, {"scale", kSeluScale}});
  }
  if (type == "Softplus") {
    MLC_CHECK_OK(f.allow(with_common_fields({"beta", "threshold"})));
    MLC_TRY(double beta, finite(f, "beta", 1.0));
    if (beta == 0) return f.doc().error(*f.get("beta"), "'beta': must not be 0 (softplus divides by it)");
    MLC_TRY(double threshold, finite(f, "threshold", 20.0));
    return activation(OpCode::Softplus, {{"beta", beta}, {"threshold", threshold}});
  }
  if (type == "PReLU") {
    MLC_CHECK_OK(f.allow(with_common_fields({"num_parameters", "init"})));
    auto l = std::make_unique<PRelu>();
    MLC_TRY(l->num_parameters, f.positive("num_parameters", 1));
    MLC_TRY(l->init, finite(f, "init", 0.25));
    return std::unique_ptr<Layer>(std::move(l));
  }
  if (type == "Softmax" || type == "LogSoftmax" || type == "Softmax2d") {
    auto l = std::make_unique<SoftmaxLayer>();
    l->log = type == "LogSoftmax";
    l->planes = type == "Softmax2d";
    if (l->planes) {
      MLC_CHECK_OK(f.allow(with_common_fields({})));
      l->dim = -3;
    } else {
      MLC_CHECK_OK(f.allow(with_common_fields({"dim"})));
      if (!f.has("dim")) return f.missing("dim");
      MLC_TRY(l->dim, f.integer("dim", -1));
      if (l->dim < -64 || l->dim > 64)
        return f.doc().error(*f.get("dim"), "'dim': " + std::to_string(l->dim) + " is out of range");
    }
    return std::unique_ptr<Layer>(std::move(l));
  }
  if (type == "Identity") {
    MLC_CHECK_OK(f.allow(with_common_fields({})));
    return std::unique_ptr<Layer>(std::make_unique<Identity>());
  }
  return std::unique_ptr<Layer>();
}

}  // namespace mlc
