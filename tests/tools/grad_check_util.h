// Finite-difference checks of a built model's loss (tests/tools): the
// gradient autodiff gives against central differences in f64 on the reference
// interpreter.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "frontends/model_file.h"
#include "passes/autodiff.h"
#include "runtime/interpreter.h"

namespace mlc {

// The loss's gradient by autodiff against central differences of the loss,
// for every element of the arguments named in `wrt` (f64; other arguments are
// filled deterministically, the {step} argument with `step`).
inline void expect_gradients_match(Module& m, const std::vector<std::string>& wrt, double step) {
  Function& loss = *m.find("loss");
  for (size_t i = 0; i < loss.args.size(); ++i)
    for (const std::string& name : wrt)
      if (loss.args[i]->name == name) loss.arg_kinds[i] = ArgKind::param;
  auto grad_fn = differentiate(m, loss);
  ASSERT_TRUE(grad_fn.ok()) << grad_fn.error().message;
  auto f = rt::Interpreter::create(loss);
  auto g = rt::Interpreter::create(**grad_fn);
  ASSERT_TRUE(f.ok() && g.ok()) << (f.ok() ? g.error().message : f.error().message);
  std::vector<rt::Tensor> args;
  for (size_t i = 0; i < loss.args.size(); ++i) {
    rt::Tensor t(loss.args[i]->type);
    for (int64_t k = 0; k < t.num_elements(); ++k) {
      double v = std::sin(1.7 * static_cast<double>(k) + 0.9 * static_cast<double>(i));
      if (t.dtype() == DType::f64) t.data<double>()[k] = v;
      else if (t.dtype() == DType::i64) t.data<int64_t>()[k] = loss.arg_kinds[i] == ArgKind::step ? step : 0;
    }
    args.push_back(std::move(t));
  }
  auto grads = g->run(args);
  ASSERT_TRUE(grads.ok()) << grads.error().message;
  size_t k = 1;
  for (size_t a = 0; a < loss.args.size(); ++a) {
    if (loss.arg_kinds[a] != ArgKind::param) continue;
    const rt::Tensor& analytic = (*grads)[k++];
    for (int64_t i = 0; i < args[a].num_elements(); ++i) {
      const double h = 1e-6, x0 = args[a].data<double>()[i];
      args[a].data<double>()[i] = x0 + h;
      double up = (*f->run(args))[0].data<double>()[0];
      args[a].data<double>()[i] = x0 - h;
      double down = (*f->run(args))[0].data<double>()[0];
      args[a].data<double>()[i] = x0;
      double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(analytic.data<double>()[i], numeric, 1e-6 * std::max(1.0, std::fabs(numeric)))
          << loss.args[a]->name << "[" << i << "]";
    }
  }
}

// The model's f32 values as f64 (for models whose ops are float arithmetic).
inline void to_f64(Function& f) {
  for (Value* a : f.args)
    if (a->type.dtype == DType::f32) a->type.dtype = DType::f64;
  for (auto& op : f.ops)
    for (Value* v : op->results)
      if (v->type.dtype == DType::f32) v->type.dtype = DType::f64;
}

// expect_gradients_match on a model file's text ("a.json" in its errors),
// built for batch 2 and run in f64, the {step} argument 1.
inline void expect_model_gradients(const std::string& text, const std::vector<std::string>& wrt) {
  auto model = ModelFile::parse(text, "a.json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto m = model->build(2);
  ASSERT_TRUE(m.ok()) << m.error().message;
  to_f64(*m->find("loss"));
  expect_gradients_match(*m, wrt, 1);
}

}  // namespace mlc
