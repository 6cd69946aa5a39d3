#include "driver/non_finite.h"

#include <cmath>
#include <cstdio>

#include "ir/op_table.h"
#include "runtime/half.h"
#include "runtime/interpreter.h"

namespace mlc {

namespace {

std::string number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

// "a, b and 3 more"
std::string listed(const std::vector<std::string>& names) {
  constexpr size_t kMax = 4;
  std::string s;
  for (size_t i = 0; i < names.size() && i < kMax; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > kMax) s += " and " + std::to_string(names.size() - kMax) + " more";
  return s;
}

}  // namespace

bool has_non_finite(const rt::Tensor& t) {
  auto any = [](auto span, auto to_double) {
    for (auto v : span)
      if (!std::isfinite(to_double(v))) return true;
    return false;
  };
  switch (t.dtype()) {
    case DType::f32: return any(t.span<const float>(), [](float v) { return double{v}; });
    case DType::f64: return any(t.span<const double>(), [](double v) { return v; });
    case DType::bf16:
      return any(t.span<const rt::bf16>(), [](rt::bf16 v) { return double{v.to_float()}; });
    case DType::f16:
      return any(t.span<const rt::f16>(), [](rt::f16 v) { return double{v.to_float()}; });
    default: return false;
  }
}

std::string explain_non_finite_loss(const ModelConfig& config, const Function* forward,
                                    int64_t step, int64_t epoch, double loss,
                                    const std::vector<rt::Tensor>& inputs, const rt::Tensor* step_counter,
                                    const std::vector<rt::NamedTensor>& params_before) {
  std::string head = "step " + std::to_string(step) + " (epoch " + std::to_string(epoch) +
                     "): the loss is " + number(loss) + "; ";
  std::vector<std::string> bad;
  for (size_t i = 0; i < inputs.size() && i < config.inputs.size(); ++i)
    if (has_non_finite(inputs[i])) bad.push_back("'" + config.inputs[i].name + "'");
  if (!bad.empty()) return head + "the batch holds non-finite values in input " + listed(bad);
  for (const rt::NamedTensor& p : params_before)
    if (has_non_finite(p.tensor)) bad.push_back(p.name);
  if (!bad.empty())
    return head + "the parameters it started from already held non-finite values (" + listed(bad) +
           "): an earlier step's update made them";
  if (!forward)
    return head + "(without the model's IR, an artifact or a mesh run cannot name the op; run the "
                  "model file on one device to find it)";
  auto interp = rt::Interpreter::create(*forward);
  if (!interp) return head + "(looking for the op failed: " + interp.error().message + ")";
  std::vector<const rt::Tensor*> args;
  for (size_t k = 0; k < forward->args.size(); ++k) {
    const Value* a = forward->args[k];
    const rt::Tensor* t = forward->arg_kinds[k] == ArgKind::step ? step_counter : nullptr;
    for (size_t i = 0; i < config.inputs.size() && i < inputs.size(); ++i)
      if (config.inputs[i].name == a->name) t = &inputs[i];
    for (const rt::NamedTensor& p : params_before)
      if (p.name == a->name) t = &p.tensor;
    if (!t) return head + "(no value for '" + a->name + "' to replay the forward pass)";
    args.push_back(t);
  }
  auto op = interp->find_first(args, has_non_finite);
  if (!op) return head + "(replaying the forward pass failed: " + op.error().message + ")";
  if (!*op)
    return head + "the forward pass replayed on the reference interpreter stays finite (the "
                  "compiled step differs from it here; run with --backend interp)";
  const Op& o = **op;
  std::string where = o.loc.known() ? " at " + o.loc.str() : "";
  std::string layer = o.meta.scope.empty() ? "" : " (layer '" + o.meta.scope + "')";
  return head + "the first non-finite value of the forward pass is the result of " +
         std::string(op_name(o.code)) + where + layer;
}

}  // namespace mlc
