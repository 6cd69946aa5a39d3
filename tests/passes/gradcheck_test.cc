// Gradient checks: every op whose VJP is a rule (or that is differentiated
// through its decomposition) is checked against central finite differences in
// f64 on random inputs, through the autodiff pass and the reference
// interpreter. A test enumerates the op table and fails if a differentiable op
// has no case here.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "ir/builder.h"
#include "ir/collectives.h"
#include "passes/autodiff.h"
#include "passes/vjp.h"
#include "runtime/interpreter.h"

namespace mlc {
namespace {

enum class Fill { uniform, positive, predicate, indices, unit, wide, signs };

struct ArgSpec {
  TensorType type;
  Fill fill = Fill::uniform;
  int64_t bound = 0;  // indices: values in [0, bound)
};

struct Case {
  std::string label;
  OpCode code;
  std::vector<ArgSpec> args;
  Attrs attrs;
  std::optional<TensorType> declared;
  double tol = 1e-6;
};

void PrintTo(const Case& c, std::ostream* os) { *os << op_name(c.code) << " " << c.label; }

TensorType f64(Shape s) { return {DType::f64, std::move(s)}; }
ArgSpec x(Shape s) { return {f64(std::move(s)), Fill::uniform}; }
ArgSpec pos(Shape s) { return {f64(std::move(s)), Fill::positive}; }
ArgSpec idx(Shape s, int64_t bound) { return {{DType::i64, std::move(s)}, Fill::indices, bound}; }
using Ints = std::vector<int64_t>;

std::vector<Case> cases() {
  std::vector<Case> c;
  for (OpCode u : {OpCode::Neg, OpCode::Abs, OpCode::Exp, OpCode::Tanh, OpCode::Sigmoid, OpCode::Erf,
                   OpCode::Sin, OpCode::Cos, OpCode::Relu, OpCode::Silu})
    c.push_back({"", u, {x({2, 3})}});
  for (OpCode u : {OpCode::Log, OpCode::Sqrt, OpCode::Rsqrt}) c.push_back({"", u, {pos({2, 3})}});
  c.push_back({"none", OpCode::Gelu, {x({2, 3})}});
  c.push_back({"tanh", OpCode::Gelu, {x({2, 3})}, {{"approximate", std::string("tanh")}}});
  for (OpCode bin : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Max, OpCode::Min}) {
    c.push_back({"same", bin, {x({2, 3}), x({2, 3})}});
    c.push_back({"broadcast", bin, {x({2, 1, 3}), x({4, 1})}});
  }
  c.push_back({"", OpCode::Div, {x({2, 3}), pos({3})}});
  c.push_back({"", OpCode::Pow, {pos({2, 3}), x({2, 1})}});
  c.push_back({"", OpCode::Select,
               {{{DType::boolean, {2, 3}}, Fill::predicate}, x({2, 3}), x({3})}});
  c.push_back({"", OpCode::Cast, {{{DType::f32, {2, 3}}, Fill::uniform}}, {}, f64({2, 3}), 1e-5});
  c.push_back({"", OpCode::Broadcast, {x({2, 1})}, {{"dims", Ints{0, 2}}}, f64({2, 4, 3})});
  c.push_back({"", OpCode::Reshape, {x({2, 3})}, {}, f64({3, 2})});
  c.push_back({"", OpCode::Transpose, {x({2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}});
  c.push_back({"strided", OpCode::Slice, {x({4, 5})},
               {{"start", Ints{1, 0}}, {"limit", Ints{4, 5}}, {"stride", Ints{2, 2}}}});
  c.push_back({"", OpCode::Concat, {x({2, 3}), x({2, 2})}, {{"axis", int64_t{1}}}});
  c.push_back({"", OpCode::Split, {x({2, 6})}, {{"axis", int64_t{1}}, {"sizes", Ints{2, 0, 3, 1}}}});
  c.push_back({"", OpCode::Pad, {x({2, 3})}, {{"low", Ints{1, 0}}, {"high", Ints{0, 2}}, {"value", 0.5}}});
  c.push_back({"", OpCode::ReduceSum, {x({2, 3, 4})}, {{"dims", Ints{0, 2}}}});
  c.push_back({"keepdim", OpCode::ReduceMax, {x({2, 3})}, {{"dims", Ints{1}}, {"keepdim", true}}});
  c.push_back({"", OpCode::ReduceMin, {x({2, 3})}, {{"dims", Ints{0}}}});
  c.push_back({"shared", OpCode::Dot, {x({2, 3, 4}), x({4, 5})}});
  c.push_back({"batched", OpCode::Dot, {x({2, 3, 4}), x({2, 4, 5})}});
  c.push_back({"transposed", OpCode::Dot, {x({2, 4, 3}), x({5, 4})},
               {{"transpose_a", true}, {"transpose_b", true}}});
  c.push_back({"batched_transposed", OpCode::Dot, {x({2, 4, 3}), x({2, 5, 4})},
               {{"transpose_a", true}, {"transpose_b", true}}});
  c.push_back({"", OpCode::Conv2d, {x({2, 4, 5, 5}), x({6, 2, 3, 3})},
               {{"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}},
                {"groups", int64_t{2}}}});
  // ConvTranspose2d's forward: stride 2 with an input size that conv2d does not
  // fully cover (output_padding 1).
  c.push_back({"", OpCode::Conv2dInputGrad, {x({2, 4, 3, 3}), x({4, 3, 3, 2})},
               {{"stride", Ints{2, 1}}, {"padding", Ints{1, 0}}, {"dilation", Ints{1, 2}},
                {"groups", int64_t{1}}}, f64({2, 3, 6, 5})});
  c.push_back({"", OpCode::MaxPool2d, {x({1, 2, 5, 5})},
               {{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}});
  c.push_back({"apart", OpCode::MaxPool2d, {x({2, 3, 6, 4})},
               {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{0, 0}}}});
  c.push_back({"include_pad", OpCode::AvgPool2d, {x({1, 2, 5, 5})},
               {{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}});
  c.push_back({"exclude_pad", OpCode::AvgPool2d, {x({1, 2, 5, 5})},
               {{"kernel", Ints{3, 2}}, {"stride", Ints{1, 2}}, {"padding", Ints{1, 1}},
                {"count_include_pad", false}}});
  c.push_back({"", OpCode::Unfold, {x({2, 2, 5, 4})},
               {{"kernel", Ints{3, 2}}, {"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}}});
  c.push_back({"", OpCode::Fold, {x({2, 12, 12})},
               {{"output_size", Ints{5, 4}}, {"kernel", Ints{3, 2}}, {"stride", Ints{2, 1}},
                {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}}});
  c.push_back({"", OpCode::Gather, {x({5, 3}), idx({2, 2}, 5)}, {{"axis", int64_t{0}}}});
  c.push_back({"", OpCode::ScatterAdd, {x({5, 3}), idx({4}, 3), x({4, 3})}, {{"axis", int64_t{0}}}});
  c.push_back({"", OpCode::Softmax, {x({2, 4})}, {{"axis", int64_t{1}}}});
  c.push_back({"", OpCode::LogSoftmax, {x({2, 4})}, {{"axis", int64_t{0}}}});
  c.push_back({"", OpCode::LayerNorm, {x({2, 4}), x({4}), x({4})}});
  c.push_back({"", OpCode::RmsNorm, {x({2, 4}), x({4})}});
  c.push_back({"mean", OpCode::CrossEntropy, {x({2, 3, 4}), idx({2, 3}, 4)}});
  c.push_back({"sum", OpCode::CrossEntropy, {x({3, 4}), idx({3}, 4)}, {{"reduction", std::string("sum")}}});
  c.push_back({"", OpCode::Mse, {x({2, 3}), x({2, 3})}});
  // Activations and losses (ir/ops.def); wide inputs reach every branch.
  const ArgSpec wide{f64({2, 5}), Fill::wide}, unit{f64({2, 3}), Fill::unit};
  const Attrs none{{"reduction", std::string("none")}};
  c.push_back({"", OpCode::Log1p, {x({2, 3})}});
  c.push_back({"", OpCode::LeakyRelu, {x({2, 3})}, {{"negative_slope", 0.2}}});
  c.push_back({"", OpCode::Elu, {wide}, {{"alpha", 0.7}, {"scale", 1.2}, {"input_scale", 0.9}}});
  c.push_back({"", OpCode::Softplus, {wide}, {{"beta", 2.0}, {"threshold", 3.0}}});
  c.push_back({"", OpCode::Hardswish, {wide}});
  c.push_back({"", OpCode::Mish, {wide}});
  c.push_back({"", OpCode::Cumsum, {x({2, 3, 4})}, {{"axis", int64_t{1}}}});
  c.push_back({"weighted", OpCode::NllLoss, {x({4, 3}), idx({4}, 3), pos({3})}, {{"ignore_index", int64_t{1}}}});
  c.push_back({"none", OpCode::NllLoss, {x({2, 2, 3}), idx({2, 2}, 3)}, none});
  c.push_back({"none", OpCode::CrossEntropy, {x({3, 4}), idx({3}, 4)}, none});
  c.push_back({"", OpCode::L1Loss, {x({2, 3}), x({2, 3})}});
  c.push_back({"", OpCode::SmoothL1Loss, {x({2, 3}), x({2, 3})}, {{"beta", 0.5}}});
  c.push_back({"", OpCode::HuberLoss, {x({2, 3}), x({2, 3})}, {{"delta", 0.5}, {"reduction", std::string("sum")}}});
  c.push_back({"", OpCode::BinaryCrossEntropy, {unit, unit}});
  c.push_back({"pos_weight", OpCode::BinaryCrossEntropyWithLogits, {x({2, 3}), unit, pos({3})}, none});
  c.push_back({"", OpCode::BinaryCrossEntropyWithLogits, {x({2, 3}), unit}});
  c.push_back({"batchmean", OpCode::KlDiv, {x({2, 3}), pos({2, 3})}, {{"reduction", std::string("batchmean")}}});
  c.push_back({"log_target", OpCode::KlDiv, {x({2, 3}), x({2, 3})}, {{"log_target", true}}});
  c.push_back({"", OpCode::CosineEmbeddingLoss, {x({3, 4}), x({3, 4}), {{DType::i64, {3}}, Fill::signs}},
               {{"margin", -0.5}}});
  return c;
}

rt::Tensor random_tensor(const ArgSpec& spec, std::mt19937_64& rng) {
  rt::Tensor t(spec.type);
  std::uniform_real_distribution<double> u(-1, 1), p(0.5, 2);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (spec.fill) {
      case Fill::uniform:
        if (spec.type.dtype == DType::f32) t.data<float>()[i] = static_cast<float>(u(rng));
        else t.data<double>()[i] = u(rng);
        break;
      case Fill::positive: t.data<double>()[i] = p(rng); break;
      case Fill::unit: t.data<double>()[i] = 0.1 + 0.4 * (u(rng) + 1); break;  // (0.1, 0.9)
      case Fill::wide: t.data<double>()[i] = 4 * u(rng); break;
      case Fill::signs: t.data<int64_t>()[i] = i % 3 == 1 ? -1 : 1; break;
      case Fill::predicate: t.data<bool>()[i] = (i % 3) != 1; break;
      case Fill::indices: t.data<int64_t>()[i] = static_cast<int64_t>(rng() % spec.bound); break;
    }
  }
  return t;
}

// loss(args..., w) = sum(op(args...) * w), w a fixed random weighting.
Module build(const Case& c) {
  Module m;
  m.name = "gradcheck";
  Function& f = m.add_function("loss");
  std::vector<Value*> args;
  for (size_t i = 0; i < c.args.size(); ++i)
    args.push_back(f.add_arg("a" + std::to_string(i), c.args[i].type,
                             is_float(c.args[i].type.dtype) ? ArgKind::param : ArgKind::input));
  Builder b(f);
  std::vector<Value*> ys = c.declared ? std::vector<Value*>{b.create(c.code, args, c.attrs, c.declared)}
                                      : b.create_results(c.code, args, c.attrs);
  // Several results (split): loss = sum over k of sum(y_k * w_k).
  Value* loss = nullptr;
  for (size_t k = 0; k < ys.size(); ++k) {
    Value* w = f.add_arg("w" + std::to_string(k), ys[k]->type, ArgKind::input);
    std::vector<int64_t> dims;
    for (int64_t d = 0; d < ys[k]->type.rank(); ++d) dims.push_back(d);
    Value* weighted = b.mul(ys[k], w);
    Value* term = dims.empty() ? weighted : b.reduce_sum(weighted, dims, false);
    loss = loss ? b.add(loss, term) : term;
  }
  f.results = {loss};
  return m;
}

double as_double(const rt::Tensor& t, int64_t i) {
  return t.dtype() == DType::f32 ? t.data<float>()[i] : t.data<double>()[i];
}
void add_to(rt::Tensor& t, int64_t i, double h) {
  if (t.dtype() == DType::f32) t.data<float>()[i] += static_cast<float>(h);
  else t.data<double>()[i] += h;
}

class GradCheck : public ::testing::TestWithParam<Case> {};

TEST_P(GradCheck, MatchesCentralDifferences) {
  const Case& c = GetParam();
  Module m = build(c);
  auto grad_fn = differentiate(m, *m.find("loss"));
  ASSERT_TRUE(grad_fn.ok()) << grad_fn.error().message;
  auto loss = rt::Interpreter::create(*m.find("loss"));
  auto grad = rt::Interpreter::create(**grad_fn);
  ASSERT_TRUE(loss.ok() && grad.ok());
  std::mt19937_64 rng(42);
  std::vector<rt::Tensor> values;
  for (const ArgSpec& a : c.args) values.push_back(random_tensor(a, rng));
  const Function& loss_fn = *m.find("loss");
  for (size_t w = c.args.size(); w < loss_fn.args.size(); ++w)
    values.push_back(random_tensor({loss_fn.args[w]->type, Fill::uniform}, rng));
  auto grads = grad->run(values);
  ASSERT_TRUE(grads.ok()) << grads.error().message;
  size_t g = 1;
  for (size_t a = 0; a < c.args.size(); ++a) {
    if (!is_float(c.args[a].type.dtype)) continue;
    const rt::Tensor& analytic = (*grads)[g++];
    const double h = c.args[a].type.dtype == DType::f32 ? 1e-2 : 1e-6;
    for (int64_t i = 0; i < values[a].num_elements(); ++i) {
      add_to(values[a], i, h);
      double up = as_double((*loss->run(values))[0], 0);
      add_to(values[a], i, -2 * h);
      double down = as_double((*loss->run(values))[0], 0);
      add_to(values[a], i, h);
      double numeric = (up - down) / (2 * h);
      EXPECT_NEAR(as_double(analytic, i), numeric, c.tol * std::max(1.0, std::fabs(numeric)))
          << "operand " << a << " element " << i;
    }
  }
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name(op_name(info.param.code));
  if (!info.param.label.empty()) name += "_" + info.param.label;
  return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, GradCheck, ::testing::ValuesIn(cases()), case_name);

TEST(GradCheckCoverage, EveryDifferentiableOpHasACase) {
  std::set<OpCode> covered;
  for (const Case& c : cases()) covered.insert(c.code);
  for (const OpInfo& info : all_ops()) {
    VjpRule::Kind kind = vjp_rule(info.code).kind;
    if (kind == VjpRule::Kind::zero || kind == VjpRule::Kind::none) continue;
    if (uses_mesh_axis(info.code)) continue;  // on local ranks: tests/runtime/collective_run_test.cc
    if (info.code == OpCode::Call) continue;  // custom ops: tests/tools/custom_op_test.cc
    EXPECT_TRUE(covered.count(info.code)) << "no gradient check for " << info.name;
  }
}

}  // namespace
}  // namespace mlc
