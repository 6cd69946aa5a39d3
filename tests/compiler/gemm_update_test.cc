// Gemm updates (compiler/fusion.h): plain SGD's `p + (-lr) * dot(a, b)` for a
// parameter p that the step replaces becomes one GEMM computing
// C = -lr * op(A) op(B) + C in p's own buffer. Checked: when it applies and
// when it must not (p read afterwards, a scale that is not a constant, a
// small parameter, the dot's result used twice), the lowered instruction
// (three operands, alpha, beta, the result donated to p, no kernel), and the
// values against the interpreter; SGD momentum's `mu * buf + dot(a, b)` too
// (beta = mu, in the buffer's own memory).
//
// Tolerance: the interpreter rounds the dot to f32 (g = D + e1, |e1| <=
// gamma_K * S with S = sum |a_i b_i|, tests/compiler/reordered_sum.h), then
// t = fl(c * g), r = fl(p + t); the GEMM sums in its own order (e2, the same
// bound) and adds c * acc to p with at most two roundings. So |r - r'| <=
// |c| * 2 gamma_K * S + 2u * (|c g| + |c| gamma_K S) + 2u * max(|r|, |r'|),
// u = 2^-24, to first order (the second-order terms are below 1e-6 of this).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/fusion.h"
#include "compiler/lower.h"
#include "ir/parser.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc {
namespace {

// p: [n, n] (n = 256: 2^16 elements, the smallest square that qualifies);
// a, b: [32, n]; `after` may compute a second result %4 of p's type.
std::string sgd_step(const std::string& scale, const std::string& after, int n = 256) {
  const std::string p = "f32[" + std::to_string(n) + "," + std::to_string(n) + "]",
                    ab = "f32[32," + std::to_string(n) + "]";
  return "module @m {\n  func @step(%a: " + ab + " {input}, %b: " + ab + " {input}, %p: " + p +
         " {param}) -> (" + p + " {updates = %p}" + (after.empty() ? "" : ", " + p) + ") {\n" +
         "    %0 = dot(%a, %b) {transpose_a = true, transpose_b = false} : " + p + "\n    " + scale + "\n" +
         "    %2 = mul(%0, %1) : " + p + "\n    %3 = add(%p, %2) : " + p + "\n    " + after + "\n" +
         "    return %3" + (after.empty() ? "" : ", %4") + "\n  }\n}\n";
}
const std::string kConstant = "%1 = constant() {value = -0.01} : f32[]";

std::unique_ptr<Module> parse(const std::string& text) {
  auto m = parse_module(text, "sgd.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? std::make_unique<Module>(std::move(*m)) : nullptr;
}

int gemm_updates(const Function& f) {
  int n = 0;
  for (const FusionGroup& g : plan_fusion(f).groups) n += g.kind == GroupKind::gemm_update;
  return n;
}

// Runs the lowered step on random inputs (every argument in [-1, 1]) and
// expects result `which` (c * dot(a^T, b) + beta * x for the gemm update)
// within the bound of the file comment, widened by beta's own rounding
// (2u |beta x|, first order) when beta != 1.
void expect_compiled_within_bound(const Function& f, const LoweredFunction& l, double c, double beta,
                                  size_t which = 0) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<rt::Tensor> inputs;
  for (const Value* v : f.args) {
    std::vector<double> x(static_cast<size_t>(num_elements(v->type.shape)));
    for (double& e : x) e = uni(rng);
    inputs.push_back(rt::testing::make_tensor(DType::f32, v->type.shape, x));
  }
  auto interp = rt::Interpreter::create(f);
  ASSERT_TRUE(interp.ok());
  auto want = interp->run(inputs);
  ASSERT_TRUE(want.ok());
  const std::vector<double> a = rt::testing::to_doubles(inputs[0]), b = rt::testing::to_doubles(inputs[1]);
  std::vector<rt::Tensor> state = inputs;  // the executor updates arguments in place
  auto exe = rt::Executor::create(l.executable);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  std::vector<rt::Tensor*> args;
  for (rt::Tensor& t : state) args.push_back(&t);
  ASSERT_TRUE(exe->run(args).ok());
  const std::vector<double> r = rt::testing::to_doubles((*want)[which]),
                            got = rt::testing::to_doubles(exe->result(which));
  const size_t n = 256;
  const double u32 = 0x1p-24, gamma = 32 * u32 / (1 - 32 * u32);
  int bad = 0;
  for (size_t i = 0; i < n && bad < 5; ++i)
    for (size_t j = 0; j < n && bad < 5; ++j) {
      double s = 0, d = 0;
      for (size_t k = 0; k < 32; ++k) {
        s += std::fabs(a[k * n + i] * b[k * n + j]);
        d += a[k * n + i] * b[k * n + j];
      }
      const size_t at = i * n + j;
      const double tol = std::fabs(c) * 2 * gamma * s + 2 * u32 * std::fabs(c) * (std::fabs(d) + gamma * s) +
                         2 * u32 * (std::fabs(beta) + std::max(std::fabs(r[at]), std::fabs(got[at])));
      if (std::fabs(r[at] - got[at]) > tol) {
        ++bad;
        ADD_FAILURE() << "element " << i << "," << j << ": interpreter " << r[at] << ", compiled " << got[at]
                      << " (bound " << tol << ")";
      }
    }
}

TEST(GemmUpdate, PlainSgdOfADotGradientIsOneGemmInPlace) {
  auto m = parse(sgd_step(kConstant, ""));
  ASSERT_TRUE(m);
  const Function& f = *m->find("step");
  auto u = match_gemm_update(f, *f.ops.back());
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->alpha, static_cast<double>(-0.01f));  // the constant as f32 holds it
  EXPECT_EQ(u->addend, f.args[2]);
  EXPECT_EQ(gemm_updates(f), 1);

  auto l = lower_function(f);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const rt::Executable& e = *l->executable;
  ASSERT_EQ(e.instructions.size(), 1u);
  const rt::Instruction& ins = e.instructions[0];
  EXPECT_EQ(ins.kind, rt::InstrKind::gemm);
  EXPECT_EQ(ins.operands.size(), 3u);
  EXPECT_EQ(ins.gemm.alpha, static_cast<double>(-0.01f));
  EXPECT_EQ(ins.gemm.beta, 1.0);
  EXPECT_EQ(e.slots[ins.result].arg, 2);  // written into p's buffer: no gradient, no copy
  EXPECT_EQ(e.slots[ins.operands[2]].arg, 2);
  EXPECT_EQ(e.arena_bytes, 0);

  expect_compiled_within_bound(f, *l, 0.01, 1);
}

TEST(GemmUpdate, SgdMomentumBufferIsOneGemmInPlaceWithBeta) {
  auto m = parse(R"(module @m {
  func @step(%a: f32[32,256] {input}, %b: f32[32,256] {input}, %p: f32[256,256] {param}, %buf: f32[256,256] {state}) -> (f32[256,256] {updates = %p}, f32[256,256] {updates = %buf}) {
    %0 = dot(%a, %b) {transpose_a = true, transpose_b = false} : f32[256,256]
    %1 = constant() {value = 0.9} : f32[]
    %2 = mul(%buf, %1) : f32[256,256]
    %3 = add(%2, %0) : f32[256,256]
    %4 = constant() {value = -0.1} : f32[]
    %5 = mul(%3, %4) : f32[256,256]
    %6 = add(%p, %5) : f32[256,256]
    return %6, %3
  }
})");
  ASSERT_TRUE(m);
  const Function& f = *m->find("step");
  auto u = match_gemm_update(f, *f.ops[3]);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->alpha, 1.0);
  EXPECT_EQ(u->beta, static_cast<double>(0.9f));
  EXPECT_EQ(u->addend, f.args[3]);
  EXPECT_FALSE(match_gemm_update(f, *f.ops[6]).has_value());  // p's update reads buf', no dot
  auto l = lower_function(f);
  ASSERT_TRUE(l.ok()) << l.error().message;
  const rt::Executable& e = *l->executable;
  ASSERT_EQ(e.instructions.size(), 2u);  // the gemm update of buf, then p's kernel
  const rt::Instruction& ins = e.instructions[0];
  EXPECT_EQ(ins.kind, rt::InstrKind::gemm);
  EXPECT_EQ(ins.gemm.beta, static_cast<double>(0.9f));
  EXPECT_EQ(e.slots[ins.result].arg, 3);
  EXPECT_EQ(e.instructions[1].kind, rt::InstrKind::kernel);
  expect_compiled_within_bound(f, *l, 1, 0.9f, 1);
}

// An executable whose gemm update has a result buffer of its own (lowering
// donates x's buffer where it can; an artifact may say otherwise): the
// executor copies x there first and leaves x as it was. Small integers, so
// every sum is exact: C = 2 * A B + 0.5 * X, A [2,3], B [3,2].
TEST(GemmUpdate, ExecutorCopiesTheAddendIntoAResultBufferOfItsOwn) {
  auto exe = std::make_shared<rt::Executable>();
  exe->function = "update";
  const TensorType a{DType::f32, {2, 3}}, b{DType::f32, {3, 2}}, x{DType::f32, {2, 2}};
  exe->slots = {{a, 0, 0}, {b, 1, 0}, {x, 2, 0}, {x, -1, 0}};
  exe->args = {{"a", ArgKind::input, 0, {}}, {"b", ArgKind::input, 1, {}}, {"x", ArgKind::input, 2, {}}};
  exe->results = {{3, -1}};
  rt::Instruction ins;
  ins.kind = rt::InstrKind::gemm;
  ins.operands = {0, 1, 2};
  ins.result = 3;
  ins.gemm.shape = {1, 2, 2, 3};
  ins.gemm.alpha = 2;
  ins.gemm.beta = 0.5;
  exe->instructions = {ins};
  exe->arena_bytes = 64;
  rt::Tensor ta = rt::testing::make_tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6}),
             tb = rt::testing::make_tensor(DType::f32, {3, 2}, {1, 0, 0, 1, 1, 1}),
             tx = rt::testing::make_tensor(DType::f32, {2, 2}, {2, 4, 6, 8});
  auto e = rt::Executor::create(exe);
  ASSERT_TRUE(e.ok()) << e.error().message;
  std::vector<rt::Tensor*> args = {&ta, &tb, &tx};
  ASSERT_TRUE(e->run(args).ok());
  // A B = [[4, 5], [10, 11]].
  EXPECT_EQ(rt::testing::to_doubles(e->result(0)), (std::vector<double>{9, 12, 23, 26}));
  EXPECT_EQ(rt::testing::to_doubles(tx), (std::vector<double>{2, 4, 6, 8}));
}

TEST(GemmUpdate, NotWhenTheParameterIsReadAfterwards) {
  auto m = parse(sgd_step(kConstant, "%4 = mul(%p, %p) : f32[256,256]"));
  ASSERT_TRUE(m);
  EXPECT_EQ(gemm_updates(*m->find("step")), 0);
}

TEST(GemmUpdate, NotWithAScaleThatIsNotAConstant) {
  auto m = parse(sgd_step("%1 = reduce_sum(%a) {dims = [0, 1], keepdim = false} : f32[]", ""));
  ASSERT_TRUE(m);
  EXPECT_EQ(gemm_updates(*m->find("step")), 0);
}

TEST(GemmUpdate, NotWhenTheGradientHasAnotherUse) {
  auto m = parse(sgd_step(kConstant, "%4 = mul(%0, %0) : f32[256,256]"));
  ASSERT_TRUE(m);
  EXPECT_EQ(gemm_updates(*m->find("step")), 0);
}

TEST(GemmUpdate, NotForSmallParameters) {
  auto m = parse(sgd_step(kConstant, "", 255));
  ASSERT_TRUE(m);
  EXPECT_EQ(gemm_updates(*m->find("step")), 0);
}

}  // namespace
}  // namespace mlc
