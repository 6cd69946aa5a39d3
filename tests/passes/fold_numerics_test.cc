// Numerics of fold-constants: a folded value must be bit-for-bit what the
// reference interpreter computes for the unfolded op (NaNs compare equal to
// NaNs), for every dtype; ops the runtime fails on must not fold. Also
// hand-checked f32 and i64 values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "ir/builder.h"
#include "ir/decompose.h"
#include "ir/op_table.h"
#include "ir/verifier.h"
#include "passes/fold_constants.h"
#include "runtime/half.h"
#include "runtime/interpreter.h"
#include "tests/ir/sample_fusion_body.h"

namespace mlc {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Operand {
  double value;
  TensorType type;
};

AttrValue value_attr(double v, DType t) {
  if (is_float(t)) return v;
  return static_cast<int64_t>(v);
}

// f() { c_i = constant(operand i); r = code(c...) {attrs} : declared; return r }
std::unique_ptr<Function> make_case(OpCode code, const std::vector<Operand>& operands,
                                    Attrs attrs = {},
                                    std::optional<TensorType> declared = std::nullopt) {
  auto f = std::make_unique<Function>("f");
  Builder b(*f);
  std::vector<Value*> values;
  for (const Operand& o : operands)
    values.push_back(b.create(OpCode::Constant, {}, {{"value", value_attr(o.value, o.type.dtype)}}, o.type));
  if (code == OpCode::Fusion) f->results.push_back(testing::sample_fusion(b, values[0], values[1]));
  else if (declared) f->results.push_back(b.create(code, values, std::move(attrs), std::move(declared)));
  else f->results = b.create_results(code, values, std::move(attrs));  // all of split's pieces
  return f;
}

Expected<rt::Tensor> run(const Function& f) {
  MLC_TRY(rt::Interpreter interp, rt::Interpreter::create(f));
  MLC_TRY(std::vector<rt::Tensor> out, interp.run(std::vector<rt::Tensor>{}));
  return std::move(out[0]);
}

// Element i as a double (exact for every dtype).
double element(const rt::Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DType::f32: return t.data<float>()[i];
    case DType::f64: return t.data<double>()[i];
    case DType::bf16: return t.data<rt::bf16>()[i].to_float();
    case DType::f16: return t.data<rt::f16>()[i].to_float();
    case DType::i32: return t.data<int32_t>()[i];
    case DType::i64: return static_cast<double>(t.data<int64_t>()[i]);
    case DType::boolean: return t.data<bool>()[i];
  }
  return 0;
}

// Bitwise equal, except that any two NaNs are equal.
bool same_tensor(const rt::Tensor& a, const rt::Tensor& b) {
  if (a.type() != b.type()) return false;
  int size = dtype_size(a.dtype());
  for (int64_t i = 0; i < a.num_elements(); ++i) {
    if (std::memcmp(a.bytes() + i * size, b.bytes() + i * size, size) == 0) continue;
    if (!(std::isnan(element(a, i)) && std::isnan(element(b, i)))) return false;
  }
  return true;
}

// Folds `f` and checks it against the interpreter. Returns whether it folded.
bool check_fold(const Function& original, const std::string& what) {
  SCOPED_TRACE(what);
  auto folded = original.clone();
  bool changed = fold_constants(*folded);
  EXPECT_TRUE(verify_function(*folded).ok());
  const Op* producer = folded->results[0]->producer;
  bool is_constant = producer && producer->code == OpCode::Constant;
  EXPECT_EQ(changed, is_constant);
  auto want = run(original);
  if (!want.ok()) {
    EXPECT_FALSE(is_constant) << "folded an op the runtime fails on: " << want.error().message;
    return false;
  }
  if (!is_constant) return false;
  auto got = run(*folded);
  EXPECT_TRUE(got.ok());
  if (!got.ok()) return false;
  EXPECT_TRUE(same_tensor(*want, *got))
      << "kernel " << element(*want, 0) << " vs folded " << element(*got, 0);
  return true;
}

const std::vector<double> kFloatValues = {0.0,  -0.0,   0.1,   -0.5,  1.0,     2.5,  -3.75,
                                          1e-3, 100.0,  -88.5, 1e30,  6.1e-5,  kInf, -kInf,
                                          kNaN, 65504.0, 3e-39, 1.0 / 3.0};
const std::vector<double> kIntValues = {0, 1, -1, 7, -7, 2, 2147483647.0, -2147483648.0,
                                        4294967296.0, 1e18, -9.2e18, -0x1p63};
const DType kFloatTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16};
const DType kIntTypes[] = {DType::i32, DType::i64};

std::string describe(OpCode code, DType t, std::initializer_list<double> values) {
  std::string s = std::string(op_name(code)) + " " + std::string(dtype_name(t));
  for (double v : values) s += " " + std::to_string(v);
  return s;
}

// Counts the cases of a sweep and those that folded.
struct Tally {
  int cases = 0, folded = 0;
  bool add(bool f) {
    ++cases;
    folded += f;
    return f;
  }
};

TEST(FoldNumerics, UnaryMatchesKernels) {
  Tally tally;
  for (DType t : kFloatTypes)
    for (OpCode code : {OpCode::Neg, OpCode::Abs, OpCode::Exp, OpCode::Log, OpCode::Sqrt,
                        OpCode::Rsqrt, OpCode::Tanh, OpCode::Sigmoid, OpCode::Erf, OpCode::Sin,
                        OpCode::Cos})
      for (double v : kFloatValues)
        tally.add(check_fold(*make_case(code, {{v, {t, {2}}}}), describe(code, t, {v})));
  for (DType t : kIntTypes)
    for (OpCode code : {OpCode::Neg, OpCode::Abs})
      for (double v : kIntValues)
        tally.add(check_fold(*make_case(code, {{v, {t, {}}}}), describe(code, t, {v})));
  EXPECT_EQ(tally.folded, tally.cases);  // the runtime fails on none of them
}

TEST(FoldNumerics, BinaryMatchesKernels) {
  const OpCode codes[] = {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div,
                          OpCode::Max, OpCode::Min, OpCode::Pow};
  Tally tally;
  for (DType t : kFloatTypes)
    for (OpCode code : codes)
      for (double a : kFloatValues)
        for (double b : kFloatValues)
          tally.add(check_fold(*make_case(code, {{a, {t, {}}}, {b, {t, {3}}}}), describe(code, t, {a, b})));
  for (DType t : kIntTypes)
    for (OpCode code : codes)
      for (double a : kIntValues)
        for (double b : kIntValues) {
          if (code == OpCode::Pow) continue;  // float only
          auto f = make_case(code, {{a, {t, {}}}, {b, {t, {}}}});
          bool folded = tally.add(check_fold(*f, describe(code, t, {a, b})));
          bool divides_by_zero = code == OpCode::Div && splat_value(f->ops[1]->result())->i == 0;
          EXPECT_EQ(folded, !divides_by_zero) << describe(code, t, {a, b});
        }
  EXPECT_GT(tally.folded, 9000);
}

TEST(FoldNumerics, CompareAndSelectMatchKernels) {
  Tally tally;
  for (const char* dir : {"eq", "ne", "lt", "le", "gt", "ge"}) {
    for (double a : kFloatValues)
      for (double b : kFloatValues)
        tally.add(check_fold(*make_case(OpCode::Compare, {{a, {DType::bf16, {}}}, {b, {DType::bf16, {}}}},
                                        {{"direction", std::string(dir)}}),
                             describe(OpCode::Compare, DType::bf16, {a, b}) + dir));
    for (double a : kIntValues)
      for (double b : kIntValues)
        tally.add(check_fold(*make_case(OpCode::Compare, {{a, {DType::i32, {}}}, {b, {DType::i32, {}}}},
                                        {{"direction", std::string(dir)}}),
                             describe(OpCode::Compare, DType::i32, {a, b}) + dir));
  }
  for (double p : {0.0, 1.0, 2.0})
    tally.add(check_fold(*make_case(OpCode::Select, {{p, {DType::boolean, {2}}},
                                                     {1.5, {DType::f16, {}}},
                                                     {-2.0, {DType::f16, {2}}}}),
                         "select"));
  EXPECT_EQ(tally.folded, tally.cases);
}

TEST(FoldNumerics, CastMatchesKernels) {
  std::vector<double> values = kFloatValues;
  values.insert(values.end(), {2.9, -2.9, 2147483647.5, -2147483648.9, 2147483648.0, 9.3e18});
  Tally tally;
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes)
      for (double v : is_float(from) ? values : kIntValues) {
        auto f = make_case(OpCode::Cast, {{v, {from, {}}}}, {}, TensorType{to, {}});
        std::string what = describe(OpCode::Cast, from, {v}) + " -> " + std::string(dtype_name(to));
        bool folded = tally.add(check_fold(*f, what));
        if (!is_float(from) || !is_integer(to)) {
          EXPECT_TRUE(folded) << what;
        } else if (!std::isfinite(v)) {
          EXPECT_FALSE(folded) << what;
        }
      }
  EXPECT_GT(tally.folded, 800);
}

TEST(FoldNumerics, ReductionsMatchKernels) {
  Tally tally;
  for (DType t : {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i32, DType::i64})
    for (double v : is_float(t) ? kFloatValues : kIntValues)
      for (int64_t n : {0, 1, 3, 10, 1000}) {
        for (OpCode code : {OpCode::ReduceSum, OpCode::ReduceMax, OpCode::ReduceMin}) {
          if (code != OpCode::ReduceSum && n == 0) continue;  // no identity element
          Attrs attrs{{"dims", std::vector<int64_t>{-1}}, {"keepdim", true}};
          bool folded = tally.add(check_fold(*make_case(code, {{v, {t, {2, n}}}}, attrs),
                                             describe(code, t, {v, double(n)})));
          // Only an f64 sum may be refused (when its double accumulation rounds).
          if (code != OpCode::ReduceSum || t != DType::f64) {
            EXPECT_TRUE(folded);
          }
        }
        Attrs axis{{"axis", int64_t{1}}};
        if (n > 0) {
          EXPECT_TRUE(check_fold(*make_case(OpCode::Argmax, {{v, {t, {2, n}}}}, axis), "argmax"));
        }
      }
  EXPECT_GT(tally.folded, 900);
}

TEST(FoldNumerics, PadFoldsOnlyAnEqualFill) {
  Attrs pad_zero{{"low", std::vector<int64_t>{1}}, {"high", std::vector<int64_t>{0}}, {"value", 0.0}};
  EXPECT_TRUE(check_fold(*make_case(OpCode::Pad, {{0.0, {DType::f32, {2}}}}, pad_zero), "pad 0"));
  EXPECT_FALSE(check_fold(*make_case(OpCode::Pad, {{-0.0, {DType::f32, {2}}}}, pad_zero), "pad -0"));
  EXPECT_FALSE(check_fold(*make_case(OpCode::Pad, {{1.0, {DType::f32, {2}}}}, pad_zero), "pad 1"));
  Attrs pad_big{{"low", std::vector<int64_t>{1}}, {"high", std::vector<int64_t>{1}}, {"value", 1e10}};
  // 1e10 saturates to the i32 maximum, as the pad kernel converts it.
  EXPECT_TRUE(check_fold(*make_case(OpCode::Pad, {{2147483647.0, {DType::i32, {2}}}}, pad_big), "pad sat"));
  Attrs pad_none{{"low", std::vector<int64_t>{0}}, {"high", std::vector<int64_t>{0}}, {"value", 5.0}};
  EXPECT_TRUE(check_fold(*make_case(OpCode::Pad, {{1.0, {DType::bf16, {2}}}}, pad_none), "no pad"));
}

// ---- hand-checked values

double folded_value(const Function& original) {
  auto f = original.clone();
  EXPECT_TRUE(fold_constants(*f));
  auto s = splat_value(f->results[0]);
  EXPECT_TRUE(s.has_value());
  if (!s) return kNaN;
  return is_float(s->dtype) ? s->f : static_cast<double>(s->i);
}

TEST(FoldNumerics, F32UsesFloatArithmetic) {
  TensorType f32{DType::f32, {}};
  EXPECT_EQ(folded_value(*make_case(OpCode::Exp, {{1.0, f32}})), static_cast<double>(std::exp(1.0f)));
  EXPECT_EQ(folded_value(*make_case(OpCode::Add, {{0.1, f32}, {0.2, f32}})),
            static_cast<double>(0.1f + 0.2f));
  EXPECT_EQ(folded_value(*make_case(OpCode::Div, {{1.0, f32}, {3.0, f32}})),
            static_cast<double>(1.0f / 3.0f));
  // 1e30 * 1e30 overflows float (not double).
  EXPECT_EQ(folded_value(*make_case(OpCode::Mul, {{1e30, f32}, {1e30, f32}})), kInf);
  // Ten f32 0.1s: the double accumulator gives exactly 10 * float(0.1), which
  // rounds to 1.0f (a float accumulator would give 1.0000001f).
  Attrs all{{"dims", std::vector<int64_t>{0}}};
  EXPECT_EQ(folded_value(*make_case(OpCode::ReduceSum, {{0.1, {DType::f32, {10}}}}, all)), 1.0);
  // The written value is the shortest decimal that reads back as the float.
  auto f = make_case(OpCode::Add, {{0.1, f32}, {0.2, f32}});
  fold_constants(*f);
  EXPECT_EQ(attr_value_to_string(*f->results[0]->producer->attrs.find("value")), "0.3");
}

TEST(FoldNumerics, I64WrapsAndTruncates) {
  TensorType i64{DType::i64, {}};
  auto max = static_cast<double>(std::numeric_limits<int64_t>::max());  // rounds to 2^63
  EXPECT_EQ(folded_value(*make_case(OpCode::Div, {{-7, i64}, {2, i64}})), -3.0);
  EXPECT_EQ(folded_value(*make_case(OpCode::Neg, {{-max, i64}})), -max);  // -(-2^63) wraps
  EXPECT_EQ(folded_value(*make_case(OpCode::Mul, {{3e9, i64}, {4e9, i64}})), 1.2e19 - 0x1p64);
  Attrs all{{"dims", std::vector<int64_t>{0}}};
  EXPECT_EQ(folded_value(*make_case(OpCode::ReduceSum, {{0x1p62, {DType::i64, {4}}}}, all)), 0.0);
  EXPECT_EQ(folded_value(*make_case(OpCode::ReduceSum, {{-5, {DType::i64, {7}}}}, all)), -35.0);
  auto f = make_case(OpCode::Div, {{1, i64}, {0, i64}});
  EXPECT_FALSE(fold_constants(*f));
}

TEST(FoldNumerics, I64ToF32CastRoundsOnce) {
  // 2^62 + 2^38 + 1 is just above halfway between two floats: it rounds up.
  // Through a double it would first lose the +1 and then tie to even (down).
  const int64_t x = (int64_t{1} << 62) + (int64_t{1} << 38) + 1;
  auto f = std::make_unique<Function>("f");
  Builder b(*f);
  Value* c = b.create(OpCode::Constant, {}, {{"value", x}}, TensorType{DType::i64, {}});
  f->results.push_back(b.cast(c, DType::f32));
  EXPECT_TRUE(check_fold(*f, "i64 -> f32"));
  EXPECT_EQ(folded_value(*f), 0x1p62 + 0x1p39);
  // A constant written with that Int value in an f32 tensor rounds the same way.
  auto g = std::make_unique<Function>("g");
  Builder gb(*g);
  Value* k = gb.create(OpCode::Constant, {}, {{"value", x}}, TensorType{DType::f32, {}});
  g->results.push_back(gb.create(OpCode::Neg, {k}));
  EXPECT_TRUE(check_fold(*g, "neg of an i64-valued f32 constant"));
  EXPECT_EQ(folded_value(*g), -(0x1p62 + 0x1p39));
}

// fold-constants never folds a composite (composites have no reference kernel
// and no folding rule): relu, softmax, ... of splat constants stay as they
// are. Decomposed first, their primitives fold, and the function computes
// bit for bit what the interpreter computes for the original.
TEST(FoldNumerics, CompositesAreNotFoldedButTheirDecompositionsAre) {
  const TensorType m{DType::f32, {2, 3}}, row{DType::f32, {3}};
  struct Case {
    OpCode code;
    std::vector<Operand> operands;
    Attrs attrs;
  };
  const Case cases[] = {
      {OpCode::Relu, {{-1.5, m}}, {}},
      {OpCode::Silu, {{0.5, m}}, {}},
      {OpCode::Gelu, {{1.0, m}}, {{"approximate", std::string("none")}}},
      {OpCode::Gelu, {{-0.25, m}}, {{"approximate", std::string("tanh")}}},
      {OpCode::Softmax, {{2.0, m}}, {{"axis", int64_t{-1}}}},
      {OpCode::LogSoftmax, {{2.0, m}}, {{"axis", int64_t{0}}}},
      {OpCode::LayerNorm, {{3.0, m}, {0.5, row}, {-1.0, row}}, {}},
      {OpCode::RmsNorm, {{3.0, m}, {0.5, row}}, {}},
      {OpCode::CrossEntropy, {{0.25, m}, {1, {DType::i64, {2}}}}, {}},
      {OpCode::Mse, {{1.0, m}, {-2.0, m}}, {{"reduction", std::string("sum")}}},
      {OpCode::Split, {{2.5, m}}, {{"axis", int64_t{1}}, {"sizes", std::vector<int64_t>{1, 2}}}},
      {OpCode::Log1p, {{1e-3, m}}, {}},
      {OpCode::LeakyRelu, {{-1.5, m}}, {}},
      {OpCode::Elu, {{-0.5, m}}, {{"alpha", 1.5}}},
      {OpCode::Softplus, {{0.5, m}}, {}},
      {OpCode::Hardswish, {{1.0, m}}, {}},
      {OpCode::Mish, {{-0.75, m}}, {}},
      {OpCode::Cumsum, {{0.5, m}}, {{"axis", int64_t{1}}}},
      {OpCode::NllLoss, {{-0.25, m}, {1, {DType::i64, {2}}}, {2.0, row}}, {}},
      {OpCode::L1Loss, {{1.0, m}, {-2.0, m}}, {}},
      {OpCode::SmoothL1Loss, {{1.0, m}, {0.75, m}}, {}},
      {OpCode::HuberLoss, {{1.0, m}, {-2.0, m}}, {}},
      {OpCode::BinaryCrossEntropy, {{0.25, m}, {0.5, m}}, {}},
      {OpCode::BinaryCrossEntropyWithLogits, {{0.25, m}, {0.5, m}}, {}},
      {OpCode::KlDiv, {{-1.0, m}, {0.5, m}}, {}},
      {OpCode::CosineEmbeddingLoss, {{1.0, m}, {-2.0, m}, {1, {DType::i64, {2}}}}, {}},
      {OpCode::Fusion, {{-0.75, m}, {1.5, row}}, {}},
  };
  int covered = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(op_name(c.code)));
    ASSERT_TRUE(op_info(c.code).is_composite());
    auto f = make_case(c.code, c.operands, c.attrs);
    auto g = f->clone();
    EXPECT_FALSE(fold_constants(*g));
    ASSERT_NE(g->results[0]->producer, nullptr);
    EXPECT_EQ(g->results[0]->producer->code, c.code);
    EXPECT_TRUE(decompose_composites(*g));
    // cumsum's decomposition is a dot with a 0/1 matrix of iotas, which folding leaves as it is.
    EXPECT_EQ(fold_constants(*g), c.code != OpCode::Cumsum);
    EXPECT_TRUE(verify_function(*g).ok());
    auto want = run(*f), got = run(*g);
    ASSERT_TRUE(want.ok()) << want.error().message;
    ASSERT_TRUE(got.ok()) << got.error().message;
    EXPECT_TRUE(same_tensor(*want, *got));
    ++covered;
  }
  int composites = 0;
  for (const OpInfo& info : all_ops()) composites += info.is_composite();
  EXPECT_EQ(covered - 1, composites);  // gelu twice
}

}  // namespace
}  // namespace mlc
