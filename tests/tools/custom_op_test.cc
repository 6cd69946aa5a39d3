// Custom ops ("custom_ops" of a model file, frontends/custom_ops.h; the IR's
// `call`, ir/ops.def): the IR they build and its round trip, the verifier's
// checks of calls, that autodiff uses the declared backward (not the
// derivative of the forward) and the pipeline inlines every call, a
// finite-difference check of a whole model's gradient through a custom op,
// `mlc check-grad`, and PyTorch's LegendrePolynomial3 tutorial
// (tests/oracle/legendre_custom_op.py, recorded in tests/data/oracle/legendre)
// trained on the compiled path and on the interpreter.
//
// Tolerances: the oracle test uses training_test.cc's (losses 1e-5 relative,
// parameters 1e-4 absolute: valid f32 runs agree to < 1e-6 and 6e-6). The
// gradient checks run in f64 with central differences (h = 1e-6): truncation
// ~1e-12 and rounding ~1e-10 relative, checked at 1e-7.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "compiler/pass_pipeline.h"
#include "frontends/custom_ops.h"
#include "ir/builder.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass.h"
#include "runtime/interpreter.h"
#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"
#include "driver/check_grad.h"
#include "driver/train.h"

namespace mlc {
namespace {

const std::string kExample = "examples/legendre.json";
const std::string kOracle = "tests/data/oracle/legendre";
const std::string kBackward = "grad * 1.5 * (5 * x * x - 1)";

// The example with its backward's expression replaced.
std::string example_with_backward(const std::string& backward) {
  std::string text = testing::slurp(kExample);
  size_t at = text.find(kBackward);
  EXPECT_NE(at, std::string::npos);
  return text.replace(at, kBackward.size(), backward);
}

ModelFile parse_model(const std::string& text) {
  auto m = ModelFile::parse(text, kExample);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

size_t count_calls(const Module& m, const std::string& callee) {
  size_t n = 0;
  for (const auto& f : m.functions)
    for (const auto& op : f->ops) n += op->code == OpCode::Call && op->attrs.get_string("callee") == callee;
  return n;
}

// ---- the IR

TEST(CustomOpIr, TheModuleHoldsTheOpAndItsGradientAndCallsThem) {
  ModelFile model = parse_model(testing::slurp(kExample));
  auto m = model.build(4);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Function* fwd = m->find("legendre3");
  const Function* vjp = m->find("legendre3_vjp");
  ASSERT_TRUE(fwd && vjp);
  ASSERT_EQ(fwd->args.size(), 1u);
  EXPECT_EQ(fwd->args[0]->type.str(), "f32[4,1]");
  ASSERT_EQ(vjp->args.size(), 3u);
  EXPECT_EQ(vjp->args[1]->name, "out");
  EXPECT_EQ(vjp->args[2]->name, "grad");
  ASSERT_EQ(vjp->results.size(), 1u);
  EXPECT_EQ(count_calls(*m, "legendre3"), 2u);  // @loss and @eval
  EXPECT_TRUE(verify_module(*m).ok());
  // Print -> parse -> print is the identity (`mlc opt` reads what `mlc ir` shows).
  const std::string text = print_module(*m);
  EXPECT_NE(text.find("call(%"), std::string::npos);
  EXPECT_NE(text.find("{callee = \"legendre3\"}"), std::string::npos) << text;
  auto parsed = parse_module(text, "legendre.mlir");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(verify_module(*parsed).ok());
  EXPECT_EQ(print_module(*parsed), text);
}

TEST(CustomOpIr, CallsAtOtherShapesGetTheirOwnFunctions) {
  std::string text = testing::slurp(kExample);
  const std::string layers = "\"outer\": {\"type\": \"Linear\", \"in_features\": 1, \"out_features\": 1}";
  const std::string forward = "\"return outer(legendre3(inner(x)))\"";
  ASSERT_NE(text.find(layers), std::string::npos);
  text.replace(text.find(layers), layers.size(),
               layers + ", \"wide\": {\"type\": \"Linear\", \"in_features\": 1, \"out_features\": 2}, "
                        "\"narrow\": {\"type\": \"Linear\", \"in_features\": 2, \"out_features\": 1}");
  text.replace(text.find(forward), forward.size(),
               "\"return outer(legendre3(inner(x))) + narrow(legendre3(wide(x))) + outer(legendre3(x))\"");
  ModelFile model = parse_model(text);
  auto m = model.build(4);
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_TRUE(m->find("legendre3") && m->find("legendre3.1") && m->find("legendre3.1_vjp"));
  EXPECT_EQ(m->find("legendre3")->args[0]->type.str(), "f32[4,1]");
  EXPECT_EQ(m->find("legendre3.1")->args[0]->type.str(), "f32[4,2]");
  EXPECT_FALSE(m->find("legendre3.2"));  // legendre3(x) reuses @legendre3
  EXPECT_EQ(count_calls(*m, "legendre3"), 4u);  // twice in @loss, twice in @eval
  EXPECT_TRUE(verify_module(*m).ok());
}

// The parser checks calls once the module is read (callees may follow their
// callers); the verifier checks them in built IR.
TEST(CustomOpIr, TheParserAndTheVerifierCheckCalleesAndSignatures) {
  auto module_text = [](const std::string& g_type) {
    return "module @m {\n"
           "  func @f(%x: f32[2] {input}) -> (f32[2]) {\n"
           "    %0 = call(%x) {callee = \"g\"} : f32[2]\n"
           "    return %0\n"
           "  }\n\n"
           "  func @g(%a: " + g_type + " {input}) -> (" + g_type + ") {\n"
           "    return %a\n"
           "  }\n"
           "}\n";
  };
  auto bad = parse_module(module_text("f32[3]"), "m.mlir");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "m.mlir:3:10: error: call: operand #0 is f32[2], @g's argument %a is f32[3]");
  auto m = parse_module(module_text("f32[2]"), "m.mlir");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_TRUE(verify_module(*m).ok());
  m->find("f")->ops[0]->attrs.set("callee", std::string("h"));
  Status st = verify_module(*m);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "error: verifier: call (op #0 of @f): callee @h is not a function of the module");
  std::string text = module_text("f32[2]");
  text.replace(text.find("callee = \"g\""), 12, "callee = \"q\"");
  auto unknown = parse_module(text, "m.mlir");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message, "m.mlir:3:10: error: call: callee @q is not a function of the module");
}

TEST(CustomOpIr, AutodiffCallsTheGradientAndDecomposeInlinesEveryCall) {
  ModelFile model = parse_model(testing::slurp(kExample));
  auto m = model.build(4);
  ASSERT_TRUE(m.ok());
  auto ad = run_passes(*m, std::vector<std::string>{"autodiff"});
  ASSERT_TRUE(ad.ok()) << ad.error().message;
  EXPECT_EQ(count_calls(*m, "legendre3_vjp"), 1u);  // in @loss_grad
  EXPECT_TRUE(verify_module(*m).ok());
  auto dec = run_passes(*m, std::vector<std::string>{"decompose"});
  ASSERT_TRUE(dec.ok()) << dec.error().message;
  for (const auto& f : m->functions) {
    EXPECT_EQ(f->name.rfind("legendre3", 0), std::string::npos) << "@" << f->name << " was not dropped";
    for (const auto& op : f->ops) EXPECT_NE(op->code, OpCode::Call) << "in @" << f->name;
  }
  EXPECT_TRUE(verify_module(*m).ok());
}

// ---- gradients

// The module with every f32 replaced by f64 (functions rebuilt op by op).
Module promoted_to_f64(const Module& in) {
  auto f64 = [](TensorType t) {
    if (t.dtype == DType::f32) t.dtype = DType::f64;
    return t;
  };
  Module out;
  out.name = in.name;
  for (const auto& f : in.functions) {
    Function& g = out.add_function(f->name);
    std::unordered_map<const Value*, Value*> map;
    for (size_t i = 0; i < f->args.size(); ++i)
      map[f->args[i]] = g.add_arg(f->args[i]->name, f64(f->args[i]->type), f->arg_kinds[i]);
    Builder b(g);
    for (const auto& op : f->ops) {
      std::vector<Value*> operands;
      for (const Value* v : op->operands) operands.push_back(map.at(v));
      std::vector<TensorType> types;
      for (const Value* r : op->results) types.push_back(f64(r->type));
      b.set_loc(op->loc);
      std::vector<Value*> results = b.create_results(op->code, operands, op->attrs, types);
      for (size_t k = 0; k < results.size(); ++k) map[op->results[k]] = results[k];
    }
    for (const Value* r : f->results) g.results.push_back(map.at(r));
  }
  return out;
}

std::vector<rt::Tensor> random_args(const Function& f, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<rt::Tensor> args;
  for (const Value* a : f.args) {
    args.push_back(rt::Tensor::uninitialized(a->type));
    for (double& v : args.back().span<double>()) v = u(rng);
  }
  return args;
}

// @loss_grad of the model (in f64, after autodiff and decompose) at random
// arguments, and central differences of @loss.
struct Gradients {
  std::vector<double> analytic, numerical;
};
Gradients model_gradients(const std::string& model_text) {
  ModelFile model = parse_model(model_text);
  auto built = model.build(4);
  EXPECT_TRUE(built.ok());
  Module m = promoted_to_f64(*built);
  EXPECT_TRUE(verify_module(m).ok());
  EXPECT_TRUE(run_passes(m, std::vector<std::string>{"autodiff", "decompose"}).ok());
  auto loss = rt::Interpreter::create(*m.find("loss"));
  auto grad = rt::Interpreter::create(*m.find("loss_grad"));
  EXPECT_TRUE(loss.ok() && grad.ok());
  std::vector<rt::Tensor> args = random_args(*m.find("loss"), 7);
  auto g = grad->run(args);
  EXPECT_TRUE(g.ok());
  Gradients out;
  const Function& f = *m.find("loss");
  for (size_t i = 0, k = 1; i < f.args.size(); ++i) {
    if (f.arg_kinds[i] != ArgKind::param) continue;
    for (int64_t e = 0; e < args[i].num_elements(); ++e) {
      double& x = args[i].data<double>()[e];
      const double x0 = x, h = 1e-6;
      x = x0 + h;
      double plus = loss->run(args).value()[0].data<double>()[0];
      x = x0 - h;
      double minus = loss->run(args).value()[0].data<double>()[0];
      x = x0;
      out.numerical.push_back((plus - minus) / (2 * h));
      out.analytic.push_back((*g)[k].data<double>()[e]);
    }
    ++k;
  }
  return out;
}

TEST(CustomOpGradient, TheWholeModelsGradientMatchesFiniteDifferences) {
  Gradients g = model_gradients(testing::slurp(kExample));
  ASSERT_EQ(g.analytic.size(), 4u);  // inner.weight, inner.bias, outer.weight, outer.bias
  for (size_t i = 0; i < g.analytic.size(); ++i)
    EXPECT_LE(std::fabs(g.analytic[i] - g.numerical[i]), 1e-7 * std::max(1.0, std::fabs(g.numerical[i])))
        << "parameter element " << i << ": " << g.analytic[i] << " vs " << g.numerical[i];
}

// A backward of zero stops the gradient at the op: inner's parameters get
// none, outer's theirs; the derivative of the forward would give inner some.
TEST(CustomOpGradient, AutodiffUsesTheDeclaredBackward) {
  Gradients g = model_gradients(example_with_backward("grad * 0"));
  ASSERT_EQ(g.analytic.size(), 4u);
  EXPECT_EQ(g.analytic[0], 0.0);
  EXPECT_EQ(g.analytic[1], 0.0);
  EXPECT_GT(std::fabs(g.numerical[0]) + std::fabs(g.numerical[1]), 1e-3);
  for (size_t i = 2; i < 4; ++i)
    EXPECT_LE(std::fabs(g.analytic[i] - g.numerical[i]), 1e-7 * std::max(1.0, std::fabs(g.numerical[i])));
}

// ---- check-grad

TEST(CustomOpCheckGrad, TheLegendreBackwardPasses) {
  ModelFile model = parse_model(testing::slurp(kExample));
  auto checks = check_custom_op_gradients(model, {});
  ASSERT_TRUE(checks.ok()) << checks.error().message;
  ASSERT_EQ(checks->size(), 1u);
  const InputGradCheck& c = (*checks)[0];
  EXPECT_EQ(c.signature, "legendre3(f32[2000,1])");
  EXPECT_EQ(c.input, "x");
  EXPECT_EQ(c.elements, 2000);
  EXPECT_EQ(c.checked, 2000);
  EXPECT_TRUE(c.pass) << c.max_abs_error;
  EXPECT_LT(c.max_rel_error, 1e-6);
}

// Two ops, one with two inputs and multi-statement gradients, one called in
// a nested container; both check, and the whole model's gradient too.
TEST(CustomOpCheckGrad, SeveralOpsAndInputs) {
  ModelFile model = parse_model(testing::slurp("tests/data/custom_ops/two_ops.json"));
  auto checks = check_custom_op_gradients(model, {});
  ASSERT_TRUE(checks.ok()) << checks.error().message;
  ASSERT_EQ(checks->size(), 3u);
  EXPECT_EQ((*checks)[0].signature, "cube(f32[8,2])");
  EXPECT_EQ((*checks)[1].signature, "gate(f32[8,8], f32[8,8])");
  EXPECT_EQ((*checks)[2].input, "b");
  for (const InputGradCheck& c : *checks) EXPECT_TRUE(c.pass) << c.signature << " " << c.input;
  Gradients g = model_gradients(testing::slurp("tests/data/custom_ops/two_ops.json"));
  ASSERT_EQ(g.analytic.size(), 2u * (32 + 8) + 16 + 2);
  for (size_t i = 0; i < g.analytic.size(); ++i)
    EXPECT_LE(std::fabs(g.analytic[i] - g.numerical[i]), 1e-7 * std::max(1.0, std::fabs(g.numerical[i])))
        << "parameter element " << i;
}

TEST(CustomOpCheckGrad, AWrongCoefficientFails) {
  ModelFile model = parse_model(example_with_backward("grad * 1.4 * (5 * x * x - 1)"));
  auto checks = check_custom_op_gradients(model, {});
  ASSERT_TRUE(checks.ok()) << checks.error().message;
  ASSERT_EQ(checks->size(), 1u);
  EXPECT_FALSE((*checks)[0].pass);
  EXPECT_GT((*checks)[0].max_rel_error, 0.05);  // 1.4 / 1.5 is off by 6.7 %
}

TEST(CustomOpCheckGrad, TheCommandNamesTheFailingOpAndExitsOne) {
  auto ok = testing::run_mlc("check-grad " + kExample);
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_NE(ok.out.find("legendre3(f32[2000,1])"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("PASS"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("check-grad: 1 input of 1 custom op pass"), std::string::npos) << ok.out;

  auto dir = testing::scratch_dir("mlc_check_grad");
  const std::string wrong = (dir / "wrong.json").string();
  std::ofstream(wrong) << example_with_backward("grad * 1.4 * (5 * x * x - 1)");
  auto bad = testing::run_mlc("check-grad " + wrong);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.out.find("FAIL"), std::string::npos) << bad.out;
  EXPECT_NE(bad.err.find(wrong + ": error: check-grad: the backward of custom op 'legendre3' input 'x' at "
                                 "legendre3(f32[2000,1]) does not match finite differences"),
            std::string::npos)
      << bad.err;

  EXPECT_EQ(testing::run_mlc("check-grad").status, 2);
  EXPECT_EQ(testing::run_mlc("check-grad " + kExample + " --cotangents 0").status, 2);
  EXPECT_EQ(testing::run_mlc("check-grad " + kExample + " --bogus").status, 2);
  auto none = testing::run_mlc("check-grad examples/digits_mlp.json");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("has no \"custom_ops\""), std::string::npos) << none.err;
}

// ---- the oracle

std::vector<double> read_losses(const std::string& path) {
  std::vector<double> losses;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) losses.push_back(j["loss"]);
  }
  return losses;
}

class LegendreOracle : public ::testing::TestWithParam<Backend> {};

// PyTorch's tutorial, 300 steps of SGD on the sum of squared errors: every
// loss within 1e-5 relative, the final parameters within 1e-4.
TEST_P(LegendreOracle, TrainsAsPyTorchStepForStep) {
  auto model = ModelFile::load(kExample);
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto dir = testing::scratch_dir(std::string("mlc_legendre_") + (GetParam() == Backend::interp ? "interp" : "compiled"));
  TrainOptions o;
  o.backend = GetParam();
  o.init_path = kOracle + "/init.safetensors";
  o.metrics_path = (dir / "metrics.jsonl").string();
  o.save_path = (dir / "final.safetensors").string();
  std::filesystem::remove(o.metrics_path);
  auto summary = train(*model, o);
  ASSERT_TRUE(summary.ok()) << summary.error().message;
  std::ifstream in(kOracle + "/losses.json");
  auto want = nlohmann::json::parse(in)["losses"].get<std::vector<double>>();
  std::vector<double> got = read_losses(o.metrics_path);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i)
    EXPECT_LE(std::fabs(got[i] - want[i]) / std::fabs(want[i]), 1e-5) << "step " << i << ": " << got[i] << " vs " << want[i];
  auto final_params = rt::read_safetensors(o.save_path);
  auto ref = rt::read_safetensors(kOracle + "/final.safetensors");
  ASSERT_TRUE(final_params.ok() && ref.ok());
  for (const rt::SafetensorsEntry& e : ref->entries) {
    auto t = final_params->get(e.name);
    ASSERT_TRUE(t.ok()) << e.name;
    ASSERT_EQ((*t)->type(), e.tensor.type()) << e.name;
    for (int64_t i = 0; i < e.tensor.num_elements(); ++i)
      EXPECT_LE(std::fabs((*t)->data<float>()[i] - e.tensor.data<float>()[i]), 1e-4) << e.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, LegendreOracle, ::testing::Values(Backend::compiled, Backend::interp),
                         [](const auto& info) { return info.param == Backend::interp ? "interp" : "compiled"; });

}  // namespace
}  // namespace mlc
