// Reference kernels: the table covers every op, and the elementwise kernels
// (unary, binary with broadcasting, compare, select, cast) on every dtype,
// against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "ir/op_table.h"
#include "runtime/kernels/kernels.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::rt {
namespace {

using namespace testing;

const DType kFloatTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16};
const DType kNumericTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i32, DType::i64};

// ---- the table

// Every primitive has a kernel; every composite has a decomposition and no
// kernel (the interpreter and lowering decompose composites before running;
// their meaning is tested in composites_test.cc).
TEST(KernelTable, PrimitivesHaveKernelsCompositesOnlyDecompositions) {
  int n = 0, composites = 0;
  for (const OpInfo& info : all_ops()) {
    KernelFn k = kReferenceKernels[static_cast<size_t>(info.code)];
    if (info.is_composite()) {
      EXPECT_TRUE(info.decompose.defined()) << info.name;
      EXPECT_EQ(k, nullptr) << info.name;
      ++composites;
    } else {
      EXPECT_NE(k, nullptr) << info.name;
      EXPECT_EQ(reference_kernel(info.code), k) << info.name;
    }
    EXPECT_NE(reference_kernel(info.code), nullptr) << info.name;
    ++n;
  }
  EXPECT_EQ(n, kNumOps);
  std::vector<std::string> want = {"relu", "silu", "gelu", "softmax", "log_softmax", "layer_norm",
                                   "rms_norm", "cross_entropy", "mse", "split", "fusion", "log1p",
                                   "leaky_relu", "elu", "softplus", "hardswish", "mish", "cumsum",
                                   "nll_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                                   "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
                                   "cosine_embedding_loss"};
  for (const std::string& name : want) {
    auto code = find_op(name);
    ASSERT_TRUE(code) << name;
    EXPECT_TRUE(op_info(*code).is_composite()) << name;
  }
  EXPECT_EQ(composites, static_cast<int>(want.size()));
}

// A composite's reference_kernel, called by mistake, is an internal error
// naming the op, not a call through nullptr; so is eval_op of a composite.
TEST(KernelTable, ACompositeHasNoKernelToCall) {
  Tensor x = make_tensor(DType::f32, {2}, {-1, 1});
  Tensor out(DType::f32, {2});
  Op op;
  op.code = OpCode::Relu;
  std::vector<const Tensor*> in = {&x};
  Status st = reference_kernel(OpCode::Relu)(op, in, out);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message,
            "mlc internal error: relu is a composite op and has no reference kernel (decompose it first)");
  EXPECT_EQ(eval_error(OpCode::Softmax, {&x}, {{"axis", int64_t{0}}}),
            "mlc internal error: softmax is a composite op and has no reference kernel (decompose it first)");
}

// Ops the table marks commutative give bit-identical results with their
// operands swapped, broadcasting included.
TEST(KernelTable, CommutativeOpsCommute) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-3, 3);
  Tensor a(DType::f32, {2, 3}), b(DType::f32, {3});
  for (Tensor* t : {&a, &b})
    for (int64_t i = 0; i < t->num_elements(); ++i) t->data<float>()[i] = dist(rng);
  int checked = 0;
  for (const OpInfo& info : all_ops()) {
    if (!info.has(kCommutative)) continue;
    const Tensor* ab[] = {&a, &b};
    const Tensor* ba[] = {&b, &a};
    auto x = eval_op(info.code, ab), y = eval_op(info.code, ba);
    ASSERT_TRUE(x.ok() && y.ok()) << info.name;
    ASSERT_EQ(x->type(), y->type()) << info.name;
    EXPECT_EQ(std::memcmp(x->bytes(), y->bytes(), x->num_bytes()), 0) << info.name;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

// ---- unary

TEST(Unary, FloatOpsAtKnownPoints) {
  Tensor x = make_tensor(DType::f64, {4}, {0.0, 1.0, 0.5, 4.0});
  TensorType t{DType::f64, {4}};
  expect_near(eval(OpCode::Exp, {&x}), t, {1.0, 2.718281828459045, 1.6487212707001282, 54.598150033144236}, 1e-12);
  expect_near(eval(OpCode::Sqrt, {&x}), t, {0.0, 1.0, 0.7071067811865476, 2.0}, 1e-15);
  expect_near(eval(OpCode::Tanh, {&x}), t, {0.0, 0.7615941559557649, 0.46211715726000974, 0.999329299739067}, 1e-15);
  expect_near(eval(OpCode::Erf, {&x}), t, {0.0, 0.8427007929497149, 0.5204998778130465, 0.9999999845827421}, 1e-15);
  expect_near(eval(OpCode::Sin, {&x}), t, {0.0, 0.8414709848078965, 0.479425538604203, -0.7568024953079282}, 1e-15);
  expect_near(eval(OpCode::Cos, {&x}), t, {1.0, 0.5403023058681398, 0.8775825618903728, -0.6536436208636119}, 1e-15);
  expect_near(eval(OpCode::Sigmoid, {&x}), t, {0.5, 0.7310585786300049, 0.6224593312018546, 0.9820137900379085}, 1e-15);
  Tensor y = make_tensor(DType::f64, {4}, {1.0, 2.0, 0.25, 0.0});
  expect_values(eval(OpCode::Log, {&y}), t, {0.0, 0.6931471805599453, -1.3862943611198906, -kInf});
  expect_values(eval(OpCode::Rsqrt, {&y}), t, {1.0, 0.7071067811865475, 2.0, kInf});
}

TEST(Unary, SigmoidIsStableForLargeInputs) {
  Tensor x = make_tensor(DType::f32, {4}, {-100.0, -2.0, 2.0, 100.0});
  expect_near(eval(OpCode::Sigmoid, {&x}), {DType::f32, {4}},
              {3.7200759760208356e-44, 0.11920292202211755, 0.8807970779778823, 1.0}, 1e-7);
}

TEST(Unary, NegAndAbsOnEveryNumericDtype) {
  for (DType dt : kNumericTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {2, 2}, {-3.0, 0.0, 2.0, -1.0});
    expect_values(eval(OpCode::Neg, {&x}), {dt, {2, 2}}, {3.0, 0.0, -2.0, 1.0});
    expect_values(eval(OpCode::Abs, {&x}), {dt, {2, 2}}, {3.0, 0.0, 2.0, 1.0});
  }
}

TEST(Unary, IntegerNegWrapsAtMin) {
  Tensor x = make_tensor(DType::i32, {1}, {-2147483648.0});
  expect_values(eval(OpCode::Neg, {&x}), {DType::i32, {1}}, {-2147483648.0});
  expect_values(eval(OpCode::Abs, {&x}), {DType::i32, {1}}, {-2147483648.0});
}

TEST(Unary, FloatOpsOnEveryFloatDtype) {
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {3}, {0.0, 1.0, 4.0});
    expect_values(eval(OpCode::Sqrt, {&x}), {dt, {3}}, {0.0, 1.0, 2.0});
    Tensor e = eval(OpCode::Exp, {&x});
    // exp(1) rounded once to the dtype.
    double e1 = dt == DType::bf16 ? 2.71875 : dt == DType::f16 ? 2.71875
                : dt == DType::f32 ? static_cast<double>(2.718281828459045f) : 2.718281828459045;
    EXPECT_EQ(to_doubles(e)[1], e1);
  }
}

TEST(Unary, EveryFloatOpOnEveryFloatDtypeAtExactPoints) {
  struct Case { OpCode op; double in, out; };
  const Case cases[] = {{OpCode::Exp, 0, 1},     {OpCode::Log, 1, 0},   {OpCode::Log, 0, -kInf},
                        {OpCode::Sqrt, 0.25, 0.5}, {OpCode::Rsqrt, 4, 0.5}, {OpCode::Tanh, 0, 0},
                        {OpCode::Sigmoid, 0, 0.5}, {OpCode::Erf, 0, 0},   {OpCode::Sin, 0, 0},
                        {OpCode::Cos, 0, 1},     {OpCode::Sqrt, -1, kNan}, {OpCode::Exp, -kInf, 0}};
  for (DType dt : kFloatTypes)
    for (const Case& c : cases) {
      SCOPED_TRACE(std::string(dtype_name(dt)) + " " + std::string(op_name(c.op)));
      Tensor x = make_tensor(dt, {1}, {c.in});
      expect_values(eval(c.op, {&x}), {dt, {1}}, {c.out});
    }
}

TEST(Unary, ZeroSizeAndScalar) {
  Tensor empty(DType::f32, {0, 3});
  EXPECT_EQ(eval(OpCode::Exp, {&empty}).type(), (TensorType{DType::f32, {0, 3}}));
  Tensor s = make_tensor(DType::f32, {}, {-2.5});
  expect_values(eval(OpCode::Abs, {&s}), {DType::f32, {}}, {2.5});
}

// ---- binary

TEST(Binary, ArithmeticOnEveryNumericDtype) {
  for (DType dt : kNumericTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor a = make_tensor(dt, {4}, {6.0, -8.0, 3.0, 0.0});
    Tensor b = make_tensor(dt, {4}, {2.0, 4.0, -3.0, 5.0});
    TensorType t{dt, {4}};
    expect_values(eval(OpCode::Add, {&a, &b}), t, {8.0, -4.0, 0.0, 5.0});
    expect_values(eval(OpCode::Sub, {&a, &b}), t, {4.0, -12.0, 6.0, -5.0});
    expect_values(eval(OpCode::Mul, {&a, &b}), t, {12.0, -32.0, -9.0, 0.0});
    expect_values(eval(OpCode::Div, {&a, &b}), t, {3.0, -2.0, -1.0, 0.0});
    expect_values(eval(OpCode::Max, {&a, &b}), t, {6.0, 4.0, 3.0, 5.0});
    expect_values(eval(OpCode::Min, {&a, &b}), t, {2.0, -8.0, -3.0, 0.0});
  }
}

TEST(Binary, HalfResultsRoundOnce) {
  // 1 + 2^-8 is exactly between two bf16 values: ties to even gives 1.0.
  Tensor a = make_tensor(DType::bf16, {2}, {1.0, 1.0});
  Tensor b = make_tensor(DType::bf16, {2}, {0.00390625, 0.01171875});  // 2^-8, 3*2^-8
  expect_values(eval(OpCode::Add, {&a, &b}), {DType::bf16, {2}}, {1.0, 1.015625});
  Tensor c = make_tensor(DType::f16, {1}, {60000.0});
  expect_values(eval(OpCode::Add, {&c, &c}), {DType::f16, {1}}, {kInf});
}

TEST(Binary, IntegerDivisionTruncatesTowardZero) {
  for (DType dt : {DType::i32, DType::i64}) {
    Tensor a = make_tensor(dt, {4}, {7.0, -7.0, 7.0, -7.0});
    Tensor b = make_tensor(dt, {4}, {2.0, 2.0, -2.0, -2.0});
    expect_values(eval(OpCode::Div, {&a, &b}), {dt, {4}}, {3.0, -3.0, -3.0, 3.0});
  }
  Tensor m = make_tensor(DType::i32, {1}, {-2147483648.0});
  Tensor n1 = make_tensor(DType::i32, {1}, {-1.0});
  expect_values(eval(OpCode::Div, {&m, &n1}), {DType::i32, {1}}, {-2147483648.0});
}

TEST(Binary, IntegerDivisionByZeroIsAnError) {
  Tensor a = make_tensor(DType::i64, {2}, {1.0, 2.0});
  Tensor b = make_tensor(DType::i64, {2}, {1.0, 0.0});
  EXPECT_EQ(eval_error(OpCode::Div, {&a, &b}), "div: integer division by zero");
  Tensor fa = make_tensor(DType::f32, {2}, {1.0, -1.0});
  Tensor fz = make_tensor(DType::f32, {2}, {0.0, 0.0});
  expect_values(eval(OpCode::Div, {&fa, &fz}), {DType::f32, {2}}, {kInf, -kInf});
}

TEST(Binary, IntegerOverflowWraps) {
  Tensor a = make_tensor(DType::i32, {2}, {2147483647.0, 65536.0});
  Tensor b = make_tensor(DType::i32, {2}, {1.0, 65536.0});
  expect_values(eval(OpCode::Add, {&a, &b}), {DType::i32, {2}}, {-2147483648.0, 131072.0});
  expect_values(eval(OpCode::Mul, {&a, &b}), {DType::i32, {2}}, {2147483647.0, 0.0});
}

TEST(Binary, MaxMinTieTakesFirstOperandAndNanPropagates) {
  Tensor a = make_tensor(DType::f32, {3}, {-0.0, 0.0, kNan});
  Tensor b = make_tensor(DType::f32, {3}, {0.0, -0.0, 1.0});
  Tensor mx = eval(OpCode::Max, {&a, &b});
  Tensor mn = eval(OpCode::Min, {&a, &b});
  EXPECT_TRUE(std::signbit(mx.data<float>()[0]));
  EXPECT_FALSE(std::signbit(mx.data<float>()[1]));
  EXPECT_TRUE(std::signbit(mn.data<float>()[0]));
  EXPECT_FALSE(std::signbit(mn.data<float>()[1]));
  EXPECT_TRUE(std::isnan(mx.data<float>()[2]));
  EXPECT_TRUE(std::isnan(mn.data<float>()[2]));
  Tensor c = make_tensor(DType::f32, {1}, {2.0});
  Tensor d = make_tensor(DType::f32, {1}, {kNan});
  EXPECT_TRUE(std::isnan(eval(OpCode::Max, {&c, &d}).data<float>()[0]));
}

TEST(Binary, Pow) {
  for (DType dt : kFloatTypes) {
    Tensor a = make_tensor(dt, {4}, {2.0, 4.0, -2.0, 0.0});
    Tensor b = make_tensor(dt, {4}, {3.0, 0.5, 2.0, 0.0});
    expect_values(eval(OpCode::Pow, {&a, &b}), {dt, {4}}, {8.0, 2.0, 4.0, 1.0});
  }
}

TEST(Broadcasting, TrailingDimsSizeOneDimsAndRankMismatch) {
  Tensor a = make_tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor row = make_tensor(DType::f32, {3}, {10, 20, 30});
  expect_values(eval(OpCode::Add, {&a, &row}), {DType::f32, {2, 3}}, {11, 22, 33, 14, 25, 36});
  expect_values(eval(OpCode::Sub, {&row, &a}), {DType::f32, {2, 3}}, {9, 18, 27, 6, 15, 24});
  Tensor col = make_tensor(DType::f32, {2, 1}, {100, 200});
  expect_values(eval(OpCode::Add, {&a, &col}), {DType::f32, {2, 3}},
                {101, 102, 103, 204, 205, 206});
  // [2,1] x [3] -> [2,3] (outer product).
  expect_values(eval(OpCode::Mul, {&col, &row}), {DType::f32, {2, 3}},
                {1000, 2000, 3000, 2000, 4000, 6000});
  // [2,1,2] + [3,1] -> [2,3,2]
  Tensor x = make_tensor(DType::i32, {2, 1, 2}, {1, 2, 3, 4});
  Tensor y = make_tensor(DType::i32, {3, 1}, {10, 20, 30});
  expect_values(eval(OpCode::Add, {&x, &y}), {DType::i32, {2, 3, 2}},
                {11, 12, 21, 22, 31, 32, 13, 14, 23, 24, 33, 34});
}

TEST(Broadcasting, ScalarsAndZeroSize) {
  Tensor a = make_tensor(DType::f64, {2, 2}, {1, 2, 3, 4});
  Tensor s = make_tensor(DType::f64, {}, {2});
  expect_values(eval(OpCode::Div, {&a, &s}), {DType::f64, {2, 2}}, {0.5, 1, 1.5, 2});
  expect_values(eval(OpCode::Sub, {&s, &a}), {DType::f64, {2, 2}}, {1, 0, -1, -2});
  expect_values(eval(OpCode::Mul, {&s, &s}), {DType::f64, {}}, {4});
  Tensor one = make_tensor(DType::f64, {1, 1}, {3});
  expect_values(eval(OpCode::Add, {&one, &a}), {DType::f64, {2, 2}}, {4, 5, 6, 7});
  Tensor empty(DType::f64, {0, 2});
  Tensor pair = make_tensor(DType::f64, {2}, {1, 2});
  EXPECT_EQ(eval(OpCode::Add, {&empty, &pair}).type(), (TensorType{DType::f64, {0, 2}}));
  Tensor empty_col(DType::f64, {0, 1});
  EXPECT_EQ(eval(OpCode::Mul, {&empty_col, &pair}).type(), (TensorType{DType::f64, {0, 2}}));
}

// ---- compare, select

TEST(Compare, EveryDirectionOnEveryDtype) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    bool is_bool = dt == DType::boolean;
    Tensor a = make_tensor(dt, {3}, is_bool ? std::vector<double>{0, 1, 1} : std::vector<double>{1, 2, 3});
    Tensor b = make_tensor(dt, {3}, is_bool ? std::vector<double>{1, 1, 0} : std::vector<double>{2, 2, 2});
    TensorType t{DType::boolean, {3}};
    auto cmp = [&](const char* dir) { return eval(OpCode::Compare, {&a, &b}, {{"direction", std::string(dir)}}); };
    expect_values(cmp("eq"), t, {0, 1, 0});
    expect_values(cmp("ne"), t, {1, 0, 1});
    expect_values(cmp("lt"), t, {1, 0, 0});
    expect_values(cmp("le"), t, {1, 1, 0});
    expect_values(cmp("gt"), t, {0, 0, 1});
    expect_values(cmp("ge"), t, {0, 1, 1});
  }
}

TEST(Compare, BroadcastsAndHandlesNan) {
  Tensor a = make_tensor(DType::f32, {2, 2}, {1, kNan, 3, 4});
  Tensor b = make_tensor(DType::f32, {2}, {1, 4});
  expect_values(eval(OpCode::Compare, {&a, &b}, {{"direction", std::string("ge")}}),
                {DType::boolean, {2, 2}}, {1, 0, 1, 1});
  expect_values(eval(OpCode::Compare, {&a, &a}, {{"direction", std::string("ne")}}),
                {DType::boolean, {2, 2}}, {0, 1, 0, 0});
}

TEST(Select, EveryDtypeWithBroadcasting) {
  Tensor pred = make_tensor(DType::boolean, {2, 1}, {1, 0});
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor on_true = make_tensor(dt, {2, 2}, {1, 0, 1, 1});
    Tensor on_false = make_tensor(dt, {}, {0});
    expect_values(eval(OpCode::Select, {&pred, &on_true, &on_false}), {dt, {2, 2}}, {1, 0, 0, 0});
  }
  Tensor p = make_tensor(DType::boolean, {3}, {1, 0, 1});
  Tensor x = make_tensor(DType::f32, {3}, {1, 2, 3});
  Tensor y = make_tensor(DType::f32, {3}, {-1, -2, -3});
  expect_values(eval(OpCode::Select, {&p, &x, &y}), {DType::f32, {3}}, {1, -2, 3});
}

// ---- cast

TEST(Cast, FloatToIntTruncatesTowardZero) {
  Tensor x = make_tensor(DType::f32, {4}, {2.7, -2.7, 0.5, -0.5});
  expect_values(eval(OpCode::Cast, {&x}, {}, TensorType{DType::i32, {4}}), {DType::i32, {4}}, {2, -2, 0, 0});
  Tensor h = make_tensor(DType::bf16, {2}, {3.5, -3.5});
  expect_values(eval(OpCode::Cast, {&h}, {}, TensorType{DType::i64, {2}}), {DType::i64, {2}}, {3, -3});
}

TEST(Cast, NanAndOutOfRangeAreErrors) {
  Tensor nan = make_tensor(DType::f32, {2}, {1.0, kNan});
  EXPECT_EQ(eval_error(OpCode::Cast, {&nan}, {}, TensorType{DType::i32, {2}}),
            "cast: value nan of f32[2] does not fit i32");
  Tensor big = make_tensor(DType::f64, {1}, {2147483648.0});
  EXPECT_EQ(eval_error(OpCode::Cast, {&big}, {}, TensorType{DType::i32, {1}}),
            "cast: value 2147483648.0 of f64[1] does not fit i32");
  Tensor edge = make_tensor(DType::f64, {2}, {2147483647.9, -2147483648.9});
  expect_values(eval(OpCode::Cast, {&edge}, {}, TensorType{DType::i32, {2}}), {DType::i32, {2}},
                {2147483647.0, -2147483648.0});
  Tensor inf = make_tensor(DType::f16, {1}, {-kInf});
  EXPECT_NE(eval_error(OpCode::Cast, {&inf}, {}, TensorType{DType::i64, {1}}), "(no error)");
}

TEST(Cast, ToAndFromBool) {
  Tensor x = make_tensor(DType::f32, {4}, {0.0, -0.0, 0.25, kNan});
  expect_values(eval(OpCode::Cast, {&x}, {}, TensorType{DType::boolean, {4}}), {DType::boolean, {4}},
                {0, 0, 1, 1});
  Tensor b = make_tensor(DType::boolean, {2}, {1, 0});
  for (DType dt : kNumericTypes)
    expect_values(eval(OpCode::Cast, {&b}, {}, TensorType{dt, {2}}), {dt, {2}}, {1, 0});
}

TEST(Cast, EveryPairOfDtypesOnSmallIntegers) {
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes) {
      SCOPED_TRACE(std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to)));
      bool boolish = from == DType::boolean || to == DType::boolean;
      std::vector<double> v = boolish ? std::vector<double>{0, 1} : std::vector<double>{-3, 7};
      Tensor x = make_tensor(from, {2}, v);
      expect_values(eval(OpCode::Cast, {&x}, {}, TensorType{to, {2}}), {to, {2}}, v);
    }
}

TEST(Cast, FloatNarrowingRoundsOnceToNearestEven) {
  // 1 + 2^-11 + 2^-40 is just above the midpoint of two f16 values: it must
  // round up (rounding to f32 first would land on the midpoint, then down).
  Tensor x = make_tensor(DType::f64, {3}, {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40),
                                           1.0 + std::ldexp(1.0, -11), 65520.0});
  expect_values(eval(OpCode::Cast, {&x}, {}, TensorType{DType::f16, {3}}), {DType::f16, {3}},
                {1.0 + std::ldexp(1.0, -10), 1.0, kInf});
  Tensor y = make_tensor(DType::f64, {2}, {1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30), 1e300});
  expect_values(eval(OpCode::Cast, {&y}, {}, TensorType{DType::bf16, {2}}), {DType::bf16, {2}},
                {1.0 + std::ldexp(1.0, -7), kInf});
  Tensor i = make_tensor(DType::i64, {1}, {4294967297.0});  // 2^32 + 1
  expect_values(eval(OpCode::Cast, {&i}, {}, TensorType{DType::i32, {1}}), {DType::i32, {1}}, {1});
}

}  // namespace
}  // namespace mlc::rt
