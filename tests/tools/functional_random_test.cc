// The random built-ins of forward statements (frontends/random_ops.h:
// F.dropout, torch.rand_like, torch.randn_like) and `self.training`:
//  - finite differences in f64 with the noise fixed by the step;
//  - the compiled train step against the interpreter's;
//  - what they draw: dropout(training=self.training) draws in @loss only,
//    randn_like's moments, rand_like's range, the streams of two calls;
//  - errors: a custom op's forward cannot draw, p out of range.
// The examples that use them against PyTorch: pytorch_examples_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "driver/train.h"
#include "frontends/model_file.h"
#include "ir/printer.h"
#include "runtime/interpreter.h"
#include "runtime/safetensors.h"
#include "tests/tools/grad_check_util.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

// x and t: f64[batch, n]; the forward's statements are `body`.
std::string model(const std::string& body, int64_t n = 6, const std::string& dtype = "f64") {
  return R"({"name": "rnd", "inputs": {"x": {"dtype": ")" + dtype + R"(", "shape": ["batch", )" + std::to_string(n) +
         R"(]}, "t": {"dtype": ")" + dtype + R"(", "shape": ["batch", )" + std::to_string(n) + R"(]}},
  "model": {"inputs": ["x"], "layers": {}, "forward": )" + body + R"(},
  "loss": {"type": "mse", "targets": "t", "reduction": "sum"},
  "train": {"batch_size": 4, "steps": 1, "seed": 5, "optimizer": {"type": "sgd", "lr": 0.1}}})";
}

const char* kAll = R"x(["n = torch.randn_like(x)", "u = torch.rand_like(x)",
  "return F.dropout(x * n + u * x * x, 0.3, training=self.training)"])x";

Module build(const std::string& text, int64_t batch = 4) {
  auto mf = ModelFile::parse(text, "rnd.json");
  EXPECT_TRUE(mf.ok()) << mf.error().message;
  auto m = mf->build(batch);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A fixed step fixes every draw: the gradient is the derivative of the
// forward with that noise.
TEST(FunctionalRandom, GradientWithTheNoiseFixed) {
  Module m = build(model(kAll));
  expect_gradients_match(m, {"x"}, 3);
}

// self.training: @loss draws the dropout mask (3 draws in all), @eval only
// rand_like's and randn_like's (step -1), and dropout is the identity there.
TEST(FunctionalRandom, DropoutFollowsSelfTraining) {
  Module m = build(model(kAll));
  const std::string loss = print_function(*m.find("loss")), eval = print_function(*m.find("eval"));
  EXPECT_EQ(count(loss, "random_uniform("), 4);  // randn_like: 2, rand_like: 1, dropout: 1
  EXPECT_EQ(count(eval, "random_uniform("), 3);
  Module off = build(model(R"x(["return F.dropout(x, 0.3, training=False) + F.dropout(x, p=0)"])x"));
  EXPECT_EQ(count(print_function(*off.find("loss")), "random_uniform("), 0);
  // PyTorch's default training=True draws in evaluation too.
  Module on = build(model(R"x(["return F.dropout(x, 0.3)"])x"));
  EXPECT_EQ(count(print_function(*on.find("eval")), "random_uniform("), 1);
}

// As F.pad, the random built-ins are written qualified: the bare names are
// free for values, and a bare call is an unknown function.
TEST(FunctionalRandom, BareNamesStayFree) {
  Module m = build(model(R"x(["dropout = F.dropout(x, 0.3)", "rand_like = torch.rand_like(x)",
    "return dropout + rand_like"])x"));
  EXPECT_EQ(count(print_function(*m.find("loss")), "random_uniform("), 2);
  auto bare = ModelFile::parse(model(R"x(["return dropout(x, 0.3)"])x"), "rnd.json");
  ASSERT_FALSE(bare.ok());
  EXPECT_NE(bare.error().message.find("unknown layer or function 'dropout'"), std::string::npos)
      << bare.error().message;
}

// The loss sum((y - 0)^2) of a forward y over 4 x 5000 draws at step 1.
double sum_of_squares(const std::string& body) {
  Module m = build(model(body, 5000));
  Function& loss = *m.find("loss");
  auto interp = rt::Interpreter::create(loss);
  EXPECT_TRUE(interp.ok()) << interp.error().message;
  std::vector<rt::Tensor> args;
  for (size_t i = 0; i < loss.args.size(); ++i) {
    rt::Tensor t(loss.args[i]->type);
    if (loss.arg_kinds[i] == ArgKind::step) t.data<int64_t>()[0] = 1;
    args.push_back(std::move(t));
  }
  auto r = interp->run(args);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? (*r)[0].data<double>()[0] : 0;
}

// randn_like's second moment within 5 standard errors of 1 (sqrt(2/n) for
// n = 20000 fixed draws: no flake); rand_like's E[u^2] = 1/3 (standard error
// sqrt(4/45/n)), and two calls of one forward draw on different streams:
// E[(u1 - u2)^2] = 1/6 for independent draws (0 on one stream).
TEST(FunctionalRandom, DrawsNormalAndUniformValues) {
  const double n = 20000;
  EXPECT_NEAR(sum_of_squares(R"x(["return torch.randn_like(x)"])x") / n, 1.0, 5 * std::sqrt(2.0 / n));
  EXPECT_NEAR(sum_of_squares(R"x(["return torch.rand_like(x)"])x") / n, 1.0 / 3, 5 * std::sqrt(4.0 / 45 / n));
  EXPECT_NEAR(sum_of_squares(R"x(["return torch.rand_like(x) - torch.rand_like(x)"])x") / n, 1.0 / 6, 0.01);
}

TEST(FunctionalRandom, Errors) {
  auto bad_p = ModelFile::parse(model(R"x(["return F.dropout(x, 1.5)"])x"), "rnd.json");
  ASSERT_FALSE(bad_p.ok());
  EXPECT_NE(bad_p.error().message.find("dropout's p must be in [0, 1], found 1.5"), std::string::npos)
      << bad_p.error().message;
  auto ints = ModelFile::parse(model(R"x(["return torch.rand_like(x)"])x", 6, "i64"), "rnd.json");
  ASSERT_FALSE(ints.ok());
  EXPECT_NE(ints.error().message.find("rand_like expects a float tensor, found i64[4,6]"), std::string::npos)
      << ints.error().message;
  std::string custom = model(R"x(["return noisy(x)"])x");
  custom.replace(custom.find("\"model\""), 0,
                 R"x("custom_ops": {"noisy": {"inputs": ["a"], "forward": ["return a * torch.randn_like(a)"],
                     "backward": {"a": ["return grad"]}}},
  )x");
  auto c = ModelFile::parse(custom, "rnd.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("'randn_like' draws random numbers, which a custom op's forward cannot"),
            std::string::npos)
      << c.error().message;
}

// The same training run on the compiled backend and the interpreter: a
// Linear model (f32) whose forward draws all three, 4 steps of SGD. The
// compiled kernels' log, cos and sums round differently from the
// interpreter's in the last bits: 1e-5 relative.
TEST(FunctionalRandom, CompiledMatchesTheInterpreter) {
  auto dir = testing::scratch_dir("mlc_functional_random");
  rt::Tensor x(TensorType{DType::f32, {16, 6}}), t(TensorType{DType::f32, {16, 3}});
  for (int64_t i = 0; i < x.num_elements(); ++i) x.data<float>()[i] = std::sin(0.3f * static_cast<float>(i));
  for (int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = std::cos(0.7f * static_cast<float>(i));
  const std::string data = (dir / "data.safetensors").string();
  ASSERT_TRUE(rt::write_safetensors(data, {{"x", &x}, {"t", &t}}).ok());
  const std::string text = R"x({"name": "rnd", "inputs": {"x": {"dtype": "f32", "shape": ["batch", 6]},
      "t": {"dtype": "f32", "shape": ["batch", 3]}},
    "model": {"inputs": ["x"], "layers": {"fc": {"type": "Linear", "in_features": 6, "out_features": 3}},
      "forward": ["h = F.dropout(fc(x), 0.25, training=self.training)",
                  "return h + 0.1 * torch.randn_like(h) * torch.rand_like(h)"]},
    "loss": {"type": "mse", "targets": "t"},
    "data": {"file": ")x" + data + R"x(", "train": {"x": "x", "t": "t"}},
    "train": {"batch_size": 4, "steps": 4, "seed": 2, "optimizer": {"type": "sgd", "lr": 0.1}}})x";
  auto mf = ModelFile::parse(text, (dir / "rnd.json").string());
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  std::vector<std::vector<double>> losses;
  for (Backend backend : {Backend::compiled, Backend::interp}) {
    TrainOptions o;
    o.backend = backend;
    o.metrics_path = (dir / (backend == Backend::interp ? "interp.jsonl" : "compiled.jsonl")).string();
    std::filesystem::remove(o.metrics_path);
    auto s = train(*mf, o);
    ASSERT_TRUE(s.ok()) << s.error().message;
    std::ifstream in(o.metrics_path);
    losses.emplace_back();
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line);
      if (j.contains("loss")) losses.back().push_back(j["loss"]);
    }
  }
  ASSERT_EQ(losses[0].size(), 4u);
  ASSERT_EQ(losses[1].size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(losses[0][i], losses[1][i], 1e-5 * std::fabs(losses[1][i])) << "step " << i;
  EXPECT_NE(losses[1][0], losses[1][1]);
}

}  // namespace
}  // namespace mlc
