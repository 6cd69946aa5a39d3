#include "frontends/init_section.h"

#include <cmath>

#include "support/glob.h"
#include "support/quote.h"
#include "support/suggest.h"

namespace mlc {

namespace {
const std::initializer_list<std::string_view> kFunctions = {
    "normal_", "uniform_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
    "orthogonal_", "zeros_", "ones_", "constant_", "trunc_normal_"};
const std::initializer_list<std::string_view> kNonlinearities = {
    "linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "sigmoid", "tanh", "relu", "leaky_relu", "selu"};

// torch.nn.init.calculate_gain(nonlinearity, param).
double calculate_gain(const std::string& nonlinearity, double param) {
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") return std::sqrt(2.0 / (1 + param * param));
  if (nonlinearity == "selu") return 3.0 / 4;
  return 1;  // linear, the convolutions, sigmoid
}

std::string choices(std::initializer_list<std::string_view> options) {
  std::string s;
  for (std::string_view o : options) s += (s.empty() ? "" : ", ") + std::string(o);
  return s;
}

// `gain`: a number, or a nonlinearity's name for calculate_gain(name).
Expected<double> gain_field(const Fields& f) {
  auto node = f.get("gain");
  if (!node) return 1.0;
  if (node->json->is_string()) {
    MLC_TRY(std::string name, f.doc().as_string(*node));
    for (std::string_view n : kNonlinearities)
      if (n == name) return calculate_gain(name, 0.01);
    return f.doc().error(*node, "'gain': unknown nonlinearity " + squote(name) + " (expected a number or one of: " +
                                    choices(kNonlinearities) + ")");
  }
  return f.doc().as_number(*node);
}

struct Fans {
  double in = 0, out = 0;
};

// torch's _calculate_fan_in_and_fan_out.
Expected<Fans> fans(const JsonDoc& doc, const Node& at, const std::string& fn, const ParamInfo& p) {
  if (p.type.rank() < 2)
    return doc.error(at, fn + " of " + squote(p.name) + " (" + p.type.str() +
                             "): fan in and fan out can not be computed for a tensor of fewer than 2 dimensions");
  double receptive = 1;
  for (int64_t d = 2; d < p.type.rank(); ++d) receptive *= static_cast<double>(p.type.shape[d]);
  return Fans{static_cast<double>(p.type.shape[1]) * receptive, static_cast<double>(p.type.shape[0]) * receptive};
}

// N(0, stddev^2), or U(-b, b) with b = sqrt(3) * stddev (the same variance), as
// the xavier and kaiming functions compute them.
ParamInit normal_or_uniform(bool normal, double stddev) {
  ParamInit init;
  if (normal) {
    init.kind = ParamInit::Kind::normal;
    init.stddev = stddev;
  } else {
    init.kind = ParamInit::Kind::uniform;
    init.bound = std::sqrt(3.0) * stddev;
  }
  return init;
}

// The rule at `node` for parameter `p`.
Expected<ParamInit> rule_for(const JsonDoc& doc, const Node& node, const ParamInfo& p) {
  std::optional<Fields> fields;
  std::string fn;
  if (node.json->is_string()) {
    MLC_TRY(fn, doc.as_string(node));
  } else {
    MLC_TRY(Fields f, Fields::of(doc, node, "init rule " + squote(node.key)));
    if (!f.has("type")) return f.missing("type");
    MLC_TRY(fn, f.string("type"));
    fields = std::move(f);
  }
  bool known = false;
  for (std::string_view name : kFunctions) known |= name == fn;
  const Node& at = fields && fields->has("type") ? *fields->get("type") : node;
  if (!known) {
    std::string hint = did_you_mean(fn, std::vector<std::string>(kFunctions.begin(), kFunctions.end()));
    return doc.error(at, "unknown init function " + squote(fn) +
                             (hint.empty() ? " (torch.nn.init's: " + choices(kFunctions) + ")" : hint));
  }
  Fields none(doc, node, "init rule");
  const Fields& f = fields ? *fields : none;
  auto allow = [&](std::initializer_list<std::string_view> names) -> Status {
    if (!fields) return {};
    std::vector<std::string> all = {"type"};
    for (std::string_view n : names) all.emplace_back(n);
    return f.allow(all);
  };
  auto number = [&](std::string_view key, double dflt) -> Expected<double> {
    return fields ? f.number(key, dflt) : Expected<double>(dflt);
  };
  ParamInit init;
  if (fn == "zeros_" || fn == "ones_") {
    MLC_CHECK_OK(allow({}));
    init.kind = fn == "zeros_" ? ParamInit::Kind::zeros : ParamInit::Kind::ones;
  } else if (fn == "constant_") {
    MLC_CHECK_OK(allow({"val"}));
    if (!fields || !f.has("val")) return doc.error(node, "constant_ needs 'val'");
    init.kind = ParamInit::Kind::constant;
    MLC_TRY(init.value, f.number("val"));
  } else if (fn == "normal_") {
    MLC_CHECK_OK(allow({"mean", "std"}));
    init.kind = ParamInit::Kind::normal;
    MLC_TRY(init.mean, number("mean", 0));
    MLC_TRY(init.stddev, number("std", 1));
  } else if (fn == "uniform_") {
    MLC_CHECK_OK(allow({"a", "b"}));
    init.kind = ParamInit::Kind::uniform_range;
    MLC_TRY(init.low, number("a", 0));
    MLC_TRY(init.high, number("b", 1));
  } else if (fn == "trunc_normal_") {
    MLC_CHECK_OK(allow({"mean", "std", "a", "b"}));
    init.kind = ParamInit::Kind::trunc_normal;
    MLC_TRY(init.mean, number("mean", 0));
    MLC_TRY(init.stddev, number("std", 1));
    MLC_TRY(init.low, number("a", -2));
    MLC_TRY(init.high, number("b", 2));
    if (!(init.stddev > 0)) return doc.error(fields ? *f.get("std") : node, "trunc_normal_'s 'std' must be > 0");
  } else if (fn == "orthogonal_") {
    MLC_CHECK_OK(allow({"gain"}));
    if (p.type.rank() < 2)
      return doc.error(node, "orthogonal_ of " + squote(p.name) + " (" + p.type.str() +
                                 "): only tensors with 2 or more dimensions are supported");
    init.kind = ParamInit::Kind::orthogonal;
    MLC_TRY(init.gain, fields ? gain_field(f) : Expected<double>(1.0));
  } else if (fn == "xavier_uniform_" || fn == "xavier_normal_") {
    MLC_CHECK_OK(allow({"gain"}));
    MLC_TRY(Fans fan, fans(doc, node, fn, p));
    MLC_TRY(double gain, fields ? gain_field(f) : Expected<double>(1.0));
    init = normal_or_uniform(fn == "xavier_normal_", gain * std::sqrt(2.0 / (fan.in + fan.out)));
  } else {  // kaiming_uniform_, kaiming_normal_
    MLC_CHECK_OK(allow({"a", "mode", "nonlinearity"}));
    MLC_TRY(Fans fan, fans(doc, node, fn, p));
    MLC_TRY(double a, number("a", 0));
    std::string mode = "fan_in", nonlinearity = "leaky_relu";
    if (fields) {
      MLC_TRY(mode, f.choice("mode", "fan_in", {"fan_in", "fan_out"}));
      MLC_TRY(nonlinearity, f.choice("nonlinearity", "leaky_relu", kNonlinearities));
    }
    const double stddev = calculate_gain(nonlinearity, a) / std::sqrt(mode == "fan_in" ? fan.in : fan.out);
    init = normal_or_uniform(fn == "kaiming_normal_", stddev);
  }
  return init;
}

// A parameter's layer path: its name without the last segment.
std::string layer_path(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? std::string() : name.substr(0, dot);
}
}  // namespace

Status parse_init_section(const JsonDoc& doc, const Node& node, std::vector<ParamInfo>& params) {
  MLC_CHECK_OK(doc.expect_object(node));
  std::vector<bool> taken(params.size(), false);
  for (auto it = node.json->begin(); it != node.json->end(); ++it) {
    Node entry = node.member(it);
    const std::string& pattern = entry.key;
    bool matched = false;
    for (size_t i = 0; i < params.size(); ++i) {
      const ParamInfo& p = params[i];
      if (p.buffer || !(glob_match(pattern, p.name) || glob_match(pattern, layer_path(p.name)))) continue;
      matched = true;
      if (taken[i]) continue;  // an earlier pattern's
      MLC_TRY(ParamInit init, rule_for(doc, entry, p));
      params[i].explicit_init = init;
      taken[i] = true;
    }
    if (!matched) {
      std::string names;
      for (size_t i = 0; i < params.size() && i < 10; ++i) names += (i ? ", " : "") + params[i].name;
      return doc.key_error(entry, "init: " + squote(pattern) + " matches no parameter (patterns are globs over "
                                      "parameter or layer names, '*' any characters; parameters: " + names +
                                      (params.size() > 10 ? ", ..." : "") + ")");
    }
  }
  return {};
}

}  // namespace mlc
