#include "driver/check_grad.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "frontends/custom_ops.h"
#include "runtime/interpreter.h"

namespace mlc {

namespace {

rt::Tensor random_tensor(const TensorType& type, std::mt19937_64& rng) {
  rt::Tensor t = rt::Tensor::uninitialized(type);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (double& v : t.span<double>()) v = u(rng);
  return t;
}

rt::Tensor copy_of(const rt::Tensor& t) {
  rt::Tensor c = rt::Tensor::uninitialized(t.type());
  std::copy(t.span<double>().begin(), t.span<double>().end(), c.span<double>().begin());
  return c;
}

// sum_k u_k (a_k - b_k)
double dot_difference(const rt::Tensor& u, const rt::Tensor& a, const rt::Tensor& b) {
  double s = 0;
  for (int64_t k = 0; k < u.num_elements(); ++k) s += u.data<double>()[k] * (a.data<double>()[k] - b.data<double>()[k]);
  return s;
}

std::string signature_of(const std::string& op, const std::vector<TensorType>& types) {
  std::string s = op + "(";
  for (size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i].str();
  return s + ")";
}

// Checks `op` at argument types `types` (the call site's), computing in f64.
Expected<std::vector<InputGradCheck>> check_signature(const CustomOp& op, const CustomOps& ops,
                                                      const std::vector<TensorType>& types,
                                                      const GradCheckOptions& options, std::mt19937_64& rng) {
  Module scratch;
  scratch.name = "check_grad";
  CustomOpEmitter emitter(scratch, ops);
  std::vector<TensorType> f64_types;
  for (const TensorType& t : types) f64_types.push_back({DType::f64, t.shape});
  MLC_TRY(std::string name, emitter.specialize(op, f64_types));
  MLC_TRY(rt::Interpreter forward, rt::Interpreter::create(*scratch.find(name)));
  MLC_TRY(rt::Interpreter vjp, rt::Interpreter::create(*scratch.find(name + "_vjp")));
  if (forward.function().results[0]->type.dtype != DType::f64)
    return make_error("custom op '" + op.name + "' at " + signature_of(op.name, types) + " returns " +
                      forward.function().results[0]->type.str() + " for f64 inputs: only float ops are checked");

  std::vector<rt::Tensor> x;
  for (const TensorType& t : f64_types) x.push_back(random_tensor(t, rng));
  MLC_TRY(std::vector<rt::Tensor> out, forward.run(x));
  std::vector<rt::Tensor> cotangents, grads;  // grads[k * n + i]: input i's gradient for cotangent k
  for (int k = 0; k < options.cotangents; ++k) {
    cotangents.push_back(random_tensor(out[0].type(), rng));
    std::vector<const rt::Tensor*> args;
    for (const rt::Tensor& t : x) args.push_back(&t);
    args.push_back(&out[0]);
    args.push_back(&cotangents.back());
    MLC_TRY(std::vector<rt::Tensor> g, vjp.run(args));
    for (rt::Tensor& t : g) grads.push_back(std::move(t));
  }

  std::vector<InputGradCheck> results;
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    InputGradCheck c;
    c.op = op.name;
    c.signature = signature_of(op.name, types);
    c.input = op.inputs[i];
    c.elements = x[i].num_elements();
    std::vector<int64_t> elements(static_cast<size_t>(c.elements));
    for (int64_t e = 0; e < c.elements; ++e) elements[static_cast<size_t>(e)] = e;
    if (c.elements > kMaxCheckedElements) {
      std::shuffle(elements.begin(), elements.end(), rng);
      elements.resize(kMaxCheckedElements);
    }
    c.checked = static_cast<int64_t>(elements.size());
    std::vector<rt::Tensor> shifted;
    for (const rt::Tensor& t : x) shifted.push_back(copy_of(t));
    for (int64_t e : elements) {
      double& xe = shifted[i].data<double>()[e];
      const double x0 = xe, h = 1e-5 * std::max(1.0, std::fabs(x0));
      xe = x0 + h;
      MLC_TRY(std::vector<rt::Tensor> plus, forward.run(shifted));
      xe = x0 - h;
      MLC_TRY(std::vector<rt::Tensor> minus, forward.run(shifted));
      xe = x0;
      for (int k = 0; k < options.cotangents; ++k) {
        const double numerical = dot_difference(cotangents[static_cast<size_t>(k)], plus[0], minus[0]) / (2 * h);
        const double analytic = grads[static_cast<size_t>(k) * n + i].data<double>()[e];
        const double err = std::fabs(analytic - numerical);
        c.max_abs_error = std::max(c.max_abs_error, err);
        c.max_rel_error = std::max(c.max_rel_error, err / std::max(std::fabs(numerical), 1e-300));
        if (!(err <= kGradTolerance * std::max(1.0, std::fabs(numerical)))) c.pass = false;
      }
    }
    results.push_back(std::move(c));
  }
  return results;
}

}  // namespace

Expected<std::vector<InputGradCheck>> check_custom_op_gradients(const ModelFile& model,
                                                                const GradCheckOptions& options) {
  const CustomOps& ops = model.custom_ops();
  MLC_TRY(Module trial, model.build(model.config().trial_batch()));
  // Call sites: custom op -> the argument types it is called with (callees are
  // the op's name, or name.N for further signatures).
  std::map<std::string, std::vector<std::vector<TensorType>>> sites;
  std::set<std::string> seen;
  for (const auto& f : trial.functions)
    for (const auto& o : f->ops) {
      if (o->code != OpCode::Call) continue;
      std::string callee = o->attrs.get_string("callee");
      callee = callee.substr(0, callee.find('.'));
      std::vector<TensorType> types;
      for (const Value* v : o->operands) types.push_back(v->type);
      if (seen.insert(signature_of(callee, types)).second) sites[callee].push_back(std::move(types));
    }
  std::mt19937_64 rng(options.seed);
  std::vector<InputGradCheck> all;
  for (const CustomOp& op : ops.all()) {
    for (const std::vector<TensorType>& types : sites[op.name]) {
      MLC_TRY(std::vector<InputGradCheck> checks, check_signature(op, ops, types, options, rng));
      for (InputGradCheck& c : checks) all.push_back(std::move(c));
    }
  }
  return all;
}

}  // namespace mlc
