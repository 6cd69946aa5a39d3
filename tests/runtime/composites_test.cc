// The meaning of the composite ops (relu, silu, gelu, softmax, log_softmax,
// layer_norm, rms_norm, cross_entropy, mse, nll_loss, log1p, kl_div,
// cosine_embedding_loss), against hand-computed values (the others against
// PyTorch: tests/tools/losses_oracle_test.cc).
// Composites have no reference kernel: each case runs a one-op function
// through rt::Interpreter, which decomposes the op into primitives
// (ir/op_rules_composite.cc) before running it.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/builder.h"
#include "ir/op_table.h"
#include "runtime/interpreter.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::rt {
namespace {

using namespace testing;

// f(x0, x1, ...) = code(x0, x1, ...) {attrs}, run through the Interpreter; a
// failure is a test failure. Checks that the interpreted function holds no
// composite (the op was decomposed).
Tensor run_composite(OpCode code, std::vector<const Tensor*> in, Attrs attrs = {}) {
  EXPECT_TRUE(op_info(code).is_composite()) << op_name(code);
  Function f(std::string(op_name(code)));
  std::vector<Value*> args;
  for (size_t i = 0; i < in.size(); ++i)
    args.push_back(f.add_arg("x" + std::to_string(i), in[i]->type(), ArgKind::input));
  Builder b(f);
  auto v = b.try_create(code, std::move(args), std::move(attrs));
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  if (!v.ok()) return Tensor();
  f.results.push_back(*v);
  auto interp = Interpreter::create(f);
  EXPECT_TRUE(interp.ok()) << (interp.ok() ? "" : interp.error().message);
  if (!interp.ok()) return Tensor();
  for (const auto& op : interp->function().ops)
    EXPECT_FALSE(op_info(op->code).is_composite()) << op_name(op->code);
  auto out = interp->run(std::span<const Tensor* const>(in));
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  if (!out.ok()) return Tensor();
  EXPECT_EQ(out->size(), 1u);
  return std::move((*out)[0]);
}

const double kLn2 = 0.6931471805599453, kLn3 = 1.0986122886681098;

TEST(Relu, ClampsNegativesAndZero) {
  for (DType dt : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    Tensor x = make_tensor(dt, {4}, {-1.5, 0.0, 2.0, -0.0});
    expect_near(run_composite(OpCode::Relu, {&x}), {dt, {4}}, {0, 0, 2, 0}, 0);
  }
}

TEST(Silu, KnownPoints) {
  Tensor x = make_tensor(DType::f64, {4}, {1, -1, 2, 0});
  expect_near(run_composite(OpCode::Silu, {&x}), {DType::f64, {4}},
              {0.7310585786300049, -0.2689414213699951, 1.7615941559557646, 0}, 1e-15);
}

TEST(Gelu, ExactAndTanhAtKnownPoints) {
  Tensor x = make_tensor(DType::f64, {5}, {1, -1, 2, 0.5, 0});
  expect_near(run_composite(OpCode::Gelu, {&x}, {{"approximate", std::string("none")}}), {DType::f64, {5}},
              {0.8413447460685429, -0.15865525393145707, 1.9544997361036416, 0.34573123063700656, 0},
              1e-15);
  expect_near(run_composite(OpCode::Gelu, {&x}, {{"approximate", std::string("tanh")}}), {DType::f64, {5}},
              {0.8411919906082768, -0.15880800939172324, 1.954597694087775, 0.34571400982514394, 0},
              1e-15);
  Tensor xf = make_tensor(DType::f32, {2}, {1, -1});
  expect_near(run_composite(OpCode::Gelu, {&xf}), {DType::f32, {2}}, {0.8413447460685429, -0.15865525393145707},
              1e-6);
}

TEST(Softmax, KnownValuesAndRowsSumToOne) {
  Tensor x = make_tensor(DType::f64, {2, 3}, {0, kLn2, kLn3, 5, 5, 5});
  expect_near(run_composite(OpCode::Softmax, {&x}, {{"axis", int64_t{-1}}}), {DType::f64, {2, 3}},
              {1.0 / 6, 2.0 / 6, 3.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-15);
  // Along axis 0: columns of [[0, 0], [ln3, 1000]].
  Tensor y = make_tensor(DType::f32, {2, 2}, {0, 0, kLn3, 1000});
  expect_near(run_composite(OpCode::Softmax, {&y}, {{"axis", int64_t{0}}}), {DType::f32, {2, 2}},
              {0.25, 0, 0.75, 1}, 1e-6);
  Tensor z = make_tensor(DType::f32, {3, 4}, {1, -2, 3, 0.5, 100, 101, 102, 103, -7, 0, 7, 1});
  std::vector<double> p = to_doubles(run_composite(OpCode::Softmax, {&z}, {{"axis", int64_t{1}}}));
  for (int r = 0; r < 3; ++r) EXPECT_NEAR(p[4 * r] + p[4 * r + 1] + p[4 * r + 2] + p[4 * r + 3], 1.0, 1e-6);
  // Half dtypes: each primitive rounds once, so expect bf16/f16 accuracy.
  for (DType dt : {DType::bf16, DType::f16}) {
    Tensor h = make_tensor(dt, {3}, {0, kLn2, kLn3});
    expect_near(run_composite(OpCode::Softmax, {&h}, {{"axis", int64_t{0}}}), {dt, {3}},
                {1.0 / 6, 2.0 / 6, 3.0 / 6}, dt == DType::bf16 ? 4e-3 : 5e-4);
  }
}

TEST(LogSoftmax, KnownValuesAndLargeInputsStayFinite) {
  Tensor x = make_tensor(DType::f64, {3}, {0, kLn2, kLn3});
  expect_near(run_composite(OpCode::LogSoftmax, {&x}, {{"axis", int64_t{0}}}), {DType::f64, {3}},
              {-1.791759469228055, -1.0986122886681098, -0.6931471805599453}, 1e-15);
  Tensor big = make_tensor(DType::f32, {2, 2}, {1000, 0, -1000, -1000});
  expect_near(run_composite(OpCode::LogSoftmax, {&big}, {{"axis", int64_t{1}}}), {DType::f32, {2, 2}},
              {0, -1000, -kLn2, -kLn2}, 1e-5);
}

TEST(CrossEntropy, MeanAndSumWithI32AndI64Targets) {
  // Row 0: softmax [1/6, 2/6, 3/6], target 2 -> ln 2. Row 1: uniform, target 0 -> ln 3.
  Tensor logits = make_tensor(DType::f64, {2, 3}, {0, kLn2, kLn3, 4, 4, 4});
  for (DType it : {DType::i32, DType::i64}) {
    Tensor targets = make_tensor(it, {2}, {2, 0});
    expect_near(run_composite(OpCode::CrossEntropy, {&logits, &targets}, {{"reduction", std::string("mean")}}),
                {DType::f64, {}}, {(kLn2 + kLn3) / 2}, 1e-15);
    expect_near(run_composite(OpCode::CrossEntropy, {&logits, &targets}, {{"reduction", std::string("sum")}}),
                {DType::f64, {}}, {kLn2 + kLn3}, 1e-15);
  }
  // Extra leading dims: [1, 2, 3] logits with [1, 2] targets.
  Tensor l3 = logits.reshaped({1, 2, 3});
  Tensor t2 = make_tensor(DType::i64, {1, 2}, {2, 0});
  expect_near(run_composite(OpCode::CrossEntropy, {&l3, &t2}), {DType::f64, {}}, {(kLn2 + kLn3) / 2}, 1e-15);
}

TEST(Mse, MeanAndSum) {
  Tensor p = make_tensor(DType::f32, {2, 2}, {1, 2, 3, 4});
  Tensor t = make_tensor(DType::f32, {2, 2}, {1, 0, 3, 0});
  expect_near(run_composite(OpCode::Mse, {&p, &t}, {{"reduction", std::string("mean")}}), {DType::f32, {}}, {5}, 0);
  expect_near(run_composite(OpCode::Mse, {&p, &t}, {{"reduction", std::string("sum")}}), {DType::f32, {}}, {20}, 0);
}

TEST(NllLoss, WeightsAndIgnoredTargets) {
  // Position 0: target 0, weight 1 -> 1; position 1: target 2, weight 3 -> 7.5;
  // position 2: ignored. Mean: 8.5 over the kept weights 1 + 3.
  Tensor logp = make_tensor(DType::f64, {3, 3}, {-1, -2, -3, -0.5, -1.5, -2.5, -0.1, -0.2, -0.3});
  Tensor targets = make_tensor(DType::i64, {3}, {0, 2, 1});
  Tensor weight = make_tensor(DType::f64, {3}, {1, 2, 3});
  const Attrs ignore_1{{"ignore_index", int64_t{1}}};
  expect_near(run_composite(OpCode::NllLoss, {&logp, &targets, &weight}, ignore_1), {DType::f64, {}}, {8.5 / 4}, 1e-15);
  expect_near(run_composite(OpCode::NllLoss, {&logp, &targets}, {{"reduction", std::string("none")}}),
              {DType::f64, {3}}, {1, 2.5, 0.2}, 1e-15);
}

TEST(Log1p, AccurateForTinyArguments) {
  // log(1 + x) rounds 1 + x: off by ~1e-17 here, 1e-7 of the value.
  Tensor x = make_tensor(DType::f64, {2}, {1e-10, -1e-12});
  expect_near(run_composite(OpCode::Log1p, {&x}), {DType::f64, {2}}, {std::log1p(1e-10), std::log1p(-1e-12)}, 1e-25);
}

TEST(KlDiv, ZeroTargetsContributeZero) {
  // xlogy(0, 0) = 0; 0.5 log 0.5 + 0.5: batchmean over dim 0 (size 1).
  Tensor input = make_tensor(DType::f64, {1, 2}, {0.5, -1});
  Tensor target = make_tensor(DType::f64, {1, 2}, {0, 0.5});
  expect_near(run_composite(OpCode::KlDiv, {&input, &target}, {{"reduction", std::string("batchmean")}}),
              {DType::f64, {}}, {0.5 * std::log(0.5) + 0.5}, 1e-15);
}

TEST(CosineEmbeddingLoss, SimilarAndDissimilarPairs) {
  // Pair 0: cos 1, target 1 -> 0; pair 1: cos 1/sqrt(2), target -1, margin 0.5 -> 1/sqrt(2) - 0.5.
  Tensor a = make_tensor(DType::f64, {2, 2}, {1, 0, 1, 0});
  Tensor b = make_tensor(DType::f64, {2, 2}, {2, 0, 1, 1});
  Tensor y = make_tensor(DType::i64, {2}, {1, -1});
  expect_near(run_composite(OpCode::CosineEmbeddingLoss, {&a, &b, &y}, {{"margin", 0.5}, {"reduction", std::string("none")}}),
              {DType::f64, {2}}, {0, M_SQRT1_2 - 0.5}, 1e-12);
}

TEST(LayerNorm, NormalizesTheLastDim) {
  // mean 2.5, biased variance 1.25: (x - 2.5) / sqrt(1.25) * w + b.
  Tensor x = make_tensor(DType::f64, {1, 4}, {1, 2, 3, 4});
  Tensor w = make_tensor(DType::f64, {4}, {1, 2, 1, 0.5});
  Tensor b = make_tensor(DType::f64, {4}, {0, 0, 1, -1});
  expect_near(run_composite(OpCode::LayerNorm, {&x, &w, &b}, {{"eps", 0.0}}), {DType::f64, {1, 4}},
              {-1.3416407864998738, -0.8944271909999159, 1.4472135954999579, -0.3291796067500631},
              1e-15);
}

TEST(LayerNorm, EpsKeepsConstantRowsFinite) {
  Tensor x = make_tensor(DType::f32, {1, 4}, {5, 5, 5, 5});
  Tensor w = make_tensor(DType::f32, {4}, {1});
  Tensor b = make_tensor(DType::f32, {4}, {0, 0, 1, -1});
  expect_near(run_composite(OpCode::LayerNorm, {&x, &w, &b}), {DType::f32, {1, 4}}, {0, 0, 1, -1}, 0);
}

TEST(RmsNorm, ScalesByRootMeanSquare) {
  Tensor x = make_tensor(DType::f64, {1, 4}, {1, 2, 3, 4});
  Tensor w = make_tensor(DType::f64, {4}, {1, 1, 2, 2});
  expect_near(run_composite(OpCode::RmsNorm, {&x, &w}, {{"eps", 0.0}}), {DType::f64, {1, 4}},
              {0.3651483716701107, 0.7302967433402214, 2.1908902300206643, 2.9211869733608857}, 1e-15);
  Tensor z = make_tensor(DType::f32, {2}, {0, 0});
  Tensor one = make_tensor(DType::f32, {2}, {1});
  expect_near(run_composite(OpCode::RmsNorm, {&z, &one}), {DType::f32, {2}}, {0, 0}, 0);
}

}  // namespace
}  // namespace mlc::rt
