// Convolutions lowered as unfold + one GEMM over the batch
// (compiler/conv_to_gemm.h) against the reference interpreter, on random
// geometries (stride, padding, dilation, groups, 1x1 and non-square kernels,
// batch 1), in f32, f64, bf16 and f16: conv2d and its gradients within the
// reordered-sum bound of tests/compiler/reordered_sum.h (for bf16 and f16 the
// f32 bound and one rounding), unfold and fold bit for bit. And the shape of
// the lowering: no reference instruction, one gemm per convolution, the
// columns of x shared by conv2d and its weight gradient, the output transpose
// fused into the consumer's kernel, dy arranged by a plain transpose; a half
// conv2d and weight gradient as half dots, a half input gradient in f32 cast
// back once.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "compiler/conv_to_gemm.h"
#include "compiler/lower.h"
#include "ir/builder.h"
#include "ir/printer.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "tests/compiler/reordered_sum.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc {
namespace {

using Ints = std::vector<int64_t>;

// One conv geometry: x [n, c, h, w], weight [o, c/groups, kh, kw].
struct Geometry {
  int64_t n, c, h, w, o, kh, kw, groups;
  Ints stride, padding, dilation;
  int64_t out(int64_t in, int64_t k, size_t d) const {
    return (in + 2 * padding[d] - dilation[d] * (k - 1) - 1) / stride[d] + 1;
  }
  Shape x() const { return {n, c, h, w}; }
  Shape weight() const { return {o, c / groups, kh, kw}; }
  Shape y() const { return {n, o, out(h, kh, 0), out(w, kw, 1)}; }
  Attrs conv_attrs() const {
    return {{"stride", stride}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}};
  }
  Attrs window_attrs() const {
    return {{"kernel", Ints{kh, kw}}, {"stride", stride}, {"padding", padding}, {"dilation", dilation}};
  }
};

// Random geometries whose window fits, and the edge cases named in the file comment.
std::vector<Geometry> geometries() {
  std::vector<Geometry> g = {
      {1, 3, 5, 7, 4, 1, 1, 1, {1, 1}, {0, 0}, {1, 1}},   // 1x1, batch 1, non-square image
      {2, 4, 6, 5, 6, 3, 2, 2, {2, 1}, {1, 0}, {1, 2}},   // groups, stride, dilation, non-square kernel
      {3, 1, 8, 8, 16, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}},  // digits_cnn's first layer, smaller batch
      {2, 6, 4, 4, 6, 3, 3, 6, {1, 1}, {1, 1}, {1, 1}},   // depthwise
      {1, 2, 3, 9, 3, 3, 5, 1, {2, 3}, {2, 1}, {1, 1}},   // padding wider than the input needs
  };
  std::mt19937_64 rng(2024);
  auto pick = [&](int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)); };
  while (g.size() < 17) {
    Geometry r;
    r.groups = pick(1, 2);
    r.n = pick(1, 3);
    r.c = r.groups * pick(1, 3);
    r.o = r.groups * pick(1, 3);
    r.kh = pick(1, 3);
    r.kw = pick(1, 3);
    r.stride = {pick(1, 2), pick(1, 2)};
    r.padding = {pick(0, 2), pick(0, 2)};
    r.dilation = {pick(1, 2), pick(1, 2)};
    r.h = pick(1, 7);
    r.w = pick(1, 7);
    if (r.out(r.h, r.kh, 0) >= 1 && r.out(r.w, r.kw, 1) >= 1) g.push_back(r);
  }
  return g;
}

rt::Tensor random_tensor(DType t, const Shape& shape, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2, 2);
  std::vector<double> v(static_cast<size_t>(num_elements(shape)));
  for (double& x : v) x = u(rng);
  return rt::testing::make_tensor(t, shape, v);
}

// The function @f(a0, a1, ...) = op(a0, a1, ...).
std::unique_ptr<Function> one_op(OpCode code, const std::vector<TensorType>& args, const Attrs& attrs,
                                 std::optional<TensorType> declared = std::nullopt) {
  auto f = std::make_unique<Function>("f");
  std::vector<Value*> vs;
  for (size_t i = 0; i < args.size(); ++i) vs.push_back(f->add_arg("a" + std::to_string(i), args[i], ArgKind::input));
  Builder b(*f);
  f->results = {b.create(code, vs, attrs, declared)};
  return f;
}

// Runs f compiled (no reference instruction) and interpreted on `inputs`;
// compares as the file comment says.
void expect_matches_interpreter(const Function& f, std::vector<rt::Tensor> inputs) {
  auto lowered = lower_function(f);
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  for (const rt::Instruction& ins : lowered->executable->instructions)
    EXPECT_NE(ins.kind, rt::InstrKind::reference) << ins.name;
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : inputs) ptrs.push_back(&t);
  ASSERT_TRUE(exe->run(ptrs).ok());
  auto interp = rt::Interpreter::create(f);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  auto want = interp->run(inputs);
  ASSERT_TRUE(want.ok()) << want.error().message;
  const rt::Tensor& got = exe->result(0);
  if (mlc::testing::reordered_terms(*f.ops.back()) > 0) {
    mlc::testing::expect_within_reordered_bound(*interp, *f.ops.back(), inputs, (*want)[0], got);
    return;
  }
  ASSERT_EQ((*want)[0].type(), got.type());  // unfold, fold: bit for bit
  EXPECT_EQ(rt::testing::to_doubles((*want)[0]), rt::testing::to_doubles(got)) << print_function(f);
}

class ConvGemm : public ::testing::TestWithParam<Geometry> {};

TEST_P(ConvGemm, ConvolutionsMatchTheInterpreter) {
  const Geometry& g = GetParam();
  std::mt19937_64 rng(7);
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    const TensorType x{t, g.x()}, w{t, g.weight()}, y{t, g.y()};
    rt::Tensor xs = random_tensor(t, x.shape, rng), ws = random_tensor(t, w.shape, rng),
               dys = random_tensor(t, y.shape, rng);
    expect_matches_interpreter(*one_op(OpCode::Conv2d, {x, w}, g.conv_attrs()), {xs, ws});
    expect_matches_interpreter(*one_op(OpCode::Conv2dInputGrad, {y, w}, g.conv_attrs(), x), {dys, ws});
    expect_matches_interpreter(*one_op(OpCode::Conv2dWeightGrad, {x, y}, g.conv_attrs(), w), {xs, dys});
  }
}

TEST_P(ConvGemm, UnfoldAndFoldMatchTheInterpreterBitForBit) {
  const Geometry& g = GetParam();
  std::mt19937_64 rng(11);
  const Shape y = g.y();
  const Shape cols = {g.n, g.c * g.kh * g.kw, y[2] * y[3]};
  Attrs fold = g.window_attrs();
  fold.set("output_size", Ints{g.h, g.w});
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    expect_matches_interpreter(*one_op(OpCode::Unfold, {{t, g.x()}}, g.window_attrs()), {random_tensor(t, g.x(), rng)});
    expect_matches_interpreter(*one_op(OpCode::Fold, {{t, cols}}, fold), {random_tensor(t, cols, rng)});
  }
}

INSTANTIATE_TEST_SUITE_P(Geometries, ConvGemm, ::testing::ValuesIn(geometries()));

// A conv layer's forward and backward in dtype t: conv2d, bias, relu, and
// both gradients of a given dy.
std::unique_ptr<Function> layer(DType t = DType::f32) {
  auto owned = std::make_unique<Function>("layer");
  Function& f = *owned;
  const Geometry g{4, 3, 6, 6, 8, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}};
  Value* x = f.add_arg("x", {t, g.x()}, ArgKind::input);
  Value* w = f.add_arg("w", {t, g.weight()}, ArgKind::param);
  Value* bias = f.add_arg("b", {t, {g.o}}, ArgKind::param);
  Value* dy = f.add_arg("dy", {t, g.y()}, ArgKind::input);
  Builder b(f);
  Value* y = b.create(OpCode::Conv2d, {x, w}, g.conv_attrs());
  Value* act = b.max(b.add(y, b.broadcast(bias, g.y(), {1})), b.broadcast_to(b.scalar(0, t), g.y()));
  Value* dx = b.create(OpCode::Conv2dInputGrad, {dy, w}, g.conv_attrs(), x->type);
  Value* dw = b.create(OpCode::Conv2dWeightGrad, {x, dy}, g.conv_attrs(), w->type);
  f.results = {act, dx, dw};
  return owned;
}

// The layer in dtype t lowered without native code.
Expected<LoweredFunction> lower_layer(DType t = DType::f32) {
  std::unique_ptr<Function> f = layer(t);
  LowerOptions o;
  o.compile_kernels = false;
  return lower_function(*f, o);
}

TEST(ConvGemmLowering, OneGemmPerConvolutionAndNoReferenceKernel) {
  auto lowered = lower_layer();
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  int gemm = 0, reference = 0, unfold = 0, kernels = 0;
  for (const rt::Instruction& ins : lowered->executable->instructions) {
    gemm += ins.kind == rt::InstrKind::gemm;
    reference += ins.kind == rt::InstrKind::reference;
    kernels += ins.kind == rt::InstrKind::kernel;
    unfold += ins.origin.find("unfold") != std::string::npos;
  }
  EXPECT_EQ(gemm, 3);
  EXPECT_EQ(reference, 0);
  EXPECT_EQ(unfold, 1) << "conv2d and conv2d_weight_grad of one x share its columns";
  // Kernels: x's columns; conv2d's output transposed inside the bias + relu
  // kernel; dy arranged once for both gradients; the fold.
  EXPECT_EQ(kernels, 4) << print_lowered(*lowered);
}

// dy arranged [O, N*L] is a transpose through two reshapes; its loads index
// dy linearly, with no division left over from splitting and re-joining the
// reshaped dims (kir's merge_digits).
TEST(ConvGemmLowering, ArrangingDyIsAPlainTranspose) {
  auto lowered = lower_layer();
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  int checked = 0;
  for (const kir::Kernel& k : lowered->kernels) {
    if (k.params.size() != 2 || k.origin.find("transpose") == std::string::npos ||
        k.origin.find("unfold") != std::string::npos || k.origin.find("fold") != std::string::npos)
      continue;
    ++checked;
    std::vector<int> work = {k.root};  // what the stored value depends on (dead expressions are never emitted)
    while (!work.empty()) {
      const kir::Expr& e = k.exprs[static_cast<size_t>(work.back())];
      work.pop_back();
      EXPECT_TRUE(e.kind != kir::ExprKind::idiv && e.kind != kir::ExprKind::irem) << kir::print_kernel(k);
      for (int x : {e.a, e.b, e.c})
        if (x >= 0) work.push_back(x);
    }
  }
  EXPECT_EQ(checked, 1);
}

TEST(ConvGemmLowering, LayerMatchesTheInterpreter) {
  std::unique_ptr<Function> f = layer();
  std::mt19937_64 rng(3);
  std::vector<rt::Tensor> in;
  for (const Value* a : f->args) in.push_back(random_tensor(DType::f32, a->type.shape, rng));
  auto interp = rt::Interpreter::create(*f);
  ASSERT_TRUE(interp.ok());
  auto want = interp->run(in);
  ASSERT_TRUE(want.ok());
  auto lowered = lower_function(*f);
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok());
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : in) ptrs.push_back(&t);
  ASSERT_TRUE(exe->run(ptrs).ok());
  // Each result within the reordered-sum bound of its convolution (bias + relu
  // add one rounding of the same size, covered by counting one more term).
  auto magnitude = interp->run(mlc::testing::magnitudes(in));
  ASSERT_TRUE(magnitude.ok());
  const int64_t terms[] = {3 * 9 + 1, 8 * 9, 4 * 36};
  for (size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE("result " + std::to_string(k));
    mlc::testing::expect_within_sum_bound((*want)[k], exe->result(k), (*magnitude)[k],
                                          mlc::testing::reordered_sum_factor(DType::f32, terms[k]));
  }
}

// A half layer lowers as the f32 one, but for the input gradient's casts:
// three gemms, one unfold, no reference instruction. Kernels: x's columns;
// conv2d's output transposed inside the bias + relu kernel; dy arranged for
// the weight gradient; dy cast to f32 and arranged for the input gradient; w
// cast to f32; the fold with its cast back to the half dtype.
TEST(ConvGemmLowering, HalfLayerHasNoReferenceKernel) {
  for (DType t : {DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    auto lowered = lower_layer(t);
    ASSERT_TRUE(lowered.ok()) << lowered.error().message;
    std::map<rt::InstrKind, int> kinds;
    int unfold = 0;
    for (const rt::Instruction& ins : lowered->executable->instructions) {
      ++kinds[ins.kind];
      unfold += ins.origin.find("unfold") != std::string::npos;
    }
    EXPECT_EQ(kinds, (std::map<rt::InstrKind, int>{{rt::InstrKind::kernel, 6}, {rt::InstrKind::gemm, 3}}))
        << print_lowered(*lowered);
    EXPECT_EQ(unfold, 1) << "conv2d and conv2d_weight_grad of one x share its columns";
  }
}

// The dtype of each dot and fold the rewrite makes of the op `code` in dtype t.
std::vector<DType> contraction_dtypes(OpCode code, DType t) {
  const Geometry g{2, 4, 5, 5, 6, 3, 3, 2, {2, 1}, {1, 1}, {1, 1}};
  const TensorType x{t, g.x()}, w{t, g.weight()}, y{t, g.y()};
  std::unique_ptr<Function> f = code == OpCode::Conv2d          ? one_op(code, {x, w}, g.conv_attrs())
                                : code == OpCode::Conv2dInputGrad ? one_op(code, {y, w}, g.conv_attrs(), x)
                                                                  : one_op(code, {x, y}, g.conv_attrs(), w);
  EXPECT_TRUE(convolutions_to_gemm(*f));
  std::vector<DType> dtypes;
  for (const auto& op : f->ops)
    if (op->code == OpCode::Dot || op->code == OpCode::Fold) dtypes.push_back(op->result()->type.dtype);
  EXPECT_EQ(f->results[0]->type, f->ops.back()->result()->type);
  return dtypes;
}

// Half conv2d and weight gradient: one half dot (f32 accumulation, one
// rounding). Half input gradient: its dot and fold in f32, then one cast to
// the half dtype (a half dot would round before fold sums again).
TEST(ConvGemmLowering, HalfPrecisionRoundsOnce) {
  for (DType t : {DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    EXPECT_EQ(contraction_dtypes(OpCode::Conv2d, t), std::vector<DType>{t});
    EXPECT_EQ(contraction_dtypes(OpCode::Conv2dWeightGrad, t), std::vector<DType>{t});
    EXPECT_EQ(contraction_dtypes(OpCode::Conv2dInputGrad, t), (std::vector<DType>{DType::f32, DType::f32}));
  }
}

TEST(ConvGemmLowering, HalfInputGradientIsCastBackOnce) {
  const Geometry g{1, 2, 4, 4, 2, 3, 3, 1, {1, 1}, {1, 1}, {1, 1}};
  auto f = one_op(OpCode::Conv2dInputGrad, {{DType::bf16, g.y()}, {DType::bf16, g.weight()}}, g.conv_attrs(),
                  TensorType{DType::bf16, g.x()});
  ASSERT_TRUE(convolutions_to_gemm(*f));
  int casts = 0;
  for (const auto& op : f->ops) casts += op->code == OpCode::Cast;
  EXPECT_EQ(casts, 3) << print_function(*f);  // dy and w to f32, dx back to bf16
  const Op& last = *f->ops.back();
  EXPECT_EQ(last.code, OpCode::Cast);
  EXPECT_EQ(last.operands[0]->producer->code, OpCode::Fold);
  EXPECT_EQ(f->results[0], last.result());
}

}  // namespace
}  // namespace mlc
