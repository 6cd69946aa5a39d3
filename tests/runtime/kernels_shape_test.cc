// Reference kernels: data movement (broadcast, reshape, transpose, slice,
// concat, pad), reductions, argmax and the sources (iota, constant), against
// hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/kernels.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::rt {
namespace {

using namespace testing;

Attrs reduce_attrs(Ints dims, bool keepdim) { return {{"dims", dims}, {"keepdim", keepdim}}; }

// ---- movement

TEST(Broadcast, ExpandsSizeOneAndNewDims) {
  Tensor x = make_tensor(DType::f32, {2, 1}, {1, 2});
  expect_values(eval(OpCode::Broadcast, {&x}, {{"dims", Ints{1, 2}}}, TensorType{DType::f32, {2, 2, 3}}),
                {DType::f32, {2, 2, 3}}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2});
  Tensor s = make_tensor(DType::i64, {}, {7});
  expect_values(eval(OpCode::Broadcast, {&s}, {{"dims", Ints{}}}, TensorType{DType::i64, {3}}),
                {DType::i64, {3}}, {7, 7, 7});
  Tensor v = make_tensor(DType::bf16, {3}, {1, 2, 3});
  expect_values(eval(OpCode::Broadcast, {&v}, {{"dims", Ints{0}}}, TensorType{DType::bf16, {3, 2}}),
                {DType::bf16, {3, 2}}, {1, 1, 2, 2, 3, 3});
}

TEST(Reshape, KeepsRowMajorOrder) {
  Tensor x = make_tensor(DType::boolean, {2, 3}, {1, 0, 0, 1, 1, 0});
  expect_values(eval(OpCode::Reshape, {&x}, {}, TensorType{DType::boolean, {3, 1, 2}}),
                {DType::boolean, {3, 1, 2}}, {1, 0, 0, 1, 1, 0});
  Tensor empty(DType::f32, {0, 4});
  EXPECT_EQ(eval(OpCode::Reshape, {&empty}, {}, TensorType{DType::f32, {2, 0}}).type(),
            (TensorType{DType::f32, {2, 0}}));
}

TEST(Transpose, PermutesDims) {
  Tensor x = make_tensor(DType::f32, {2, 3}, {1, 2, 3, 4, 5, 6});
  expect_values(eval(OpCode::Transpose, {&x}, {{"perm", Ints{1, 0}}}), {DType::f32, {3, 2}},
                {1, 4, 2, 5, 3, 6});
  // [2,2,3] with perm [2,0,1] -> [3,2,2]: out[k][i][j] = x[i][j][k].
  Tensor y = make_tensor(DType::i32, {2, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  expect_values(eval(OpCode::Transpose, {&y}, {{"perm", Ints{2, 0, 1}}}), {DType::i32, {3, 2, 2}},
                {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11});
}

TEST(Transpose, LargeBatchedTransposeUsesTilesCorrectly) {
  // x[b][i][j] = 10000 b + 100 i + j, sizes not multiples of the 32 tile.
  const int64_t B = 3, I = 37, J = 45;
  std::vector<double> v;
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < I; ++i)
      for (int64_t j = 0; j < J; ++j) v.push_back(10000 * b + 100 * i + j);
  Tensor x = make_tensor(DType::i32, {B, I, J}, v);
  std::vector<double> got = to_doubles(eval(OpCode::Transpose, {&x}, {{"perm", Ints{0, 2, 1}}}));
  ASSERT_EQ(got.size(), v.size());
  for (int64_t b = 0; b < B; ++b)
    for (int64_t j = 0; j < J; ++j)
      for (int64_t i = 0; i < I; ++i)
        ASSERT_EQ(got[(b * J + j) * I + i], 10000 * b + 100 * i + j) << b << " " << j << " " << i;
  // perm [2, 0, 1]: out[j][b][i].
  got = to_doubles(eval(OpCode::Transpose, {&x}, {{"perm", Ints{2, 0, 1}}}));
  for (int64_t j = 0; j < J; ++j)
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < I; ++i)
        ASSERT_EQ(got[(j * B + b) * I + i], 10000 * b + 100 * i + j) << j << " " << b << " " << i;
}

TEST(Slice, StartLimitStride) {
  Tensor x = make_tensor(DType::f64, {3, 5}, {0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 20, 21, 22, 23, 24});
  expect_values(eval(OpCode::Slice, {&x}, {{"start", Ints{1, 0}}, {"limit", Ints{3, 5}}, {"stride", Ints{1, 2}}}),
                {DType::f64, {2, 3}}, {10, 12, 14, 20, 22, 24});
  expect_values(eval(OpCode::Slice, {&x}, {{"start", Ints{0, 3}}, {"limit", Ints{3, 4}}, {"stride", Ints{2, 1}}}),
                {DType::f64, {2, 1}}, {3, 23});
  EXPECT_EQ(eval(OpCode::Slice, {&x}, {{"start", Ints{2, 2}}, {"limit", Ints{2, 5}}, {"stride", Ints{1, 1}}}).type(),
            (TensorType{DType::f64, {0, 3}}));
}

TEST(Concat, AlongEveryAxis) {
  Tensor a = make_tensor(DType::f32, {2, 2}, {1, 2, 3, 4});
  Tensor b = make_tensor(DType::f32, {1, 2}, {5, 6});
  expect_values(eval(OpCode::Concat, {&a, &b}, {{"axis", int64_t{0}}}), {DType::f32, {3, 2}},
                {1, 2, 3, 4, 5, 6});
  Tensor c = make_tensor(DType::f32, {2, 1}, {7, 8});
  Tensor empty(DType::f32, {2, 0});
  expect_values(eval(OpCode::Concat, {&a, &empty, &c, &a}, {{"axis", int64_t{-1}}}), {DType::f32, {2, 5}},
                {1, 2, 7, 1, 2, 3, 4, 8, 3, 4});
  Tensor i = make_tensor(DType::i64, {1}, {9});
  expect_values(eval(OpCode::Concat, {&i}, {{"axis", int64_t{0}}}), {DType::i64, {1}}, {9});
}

TEST(Pad, LowHighAndValue) {
  Tensor x = make_tensor(DType::f32, {2, 2}, {1, 2, 3, 4});
  expect_values(eval(OpCode::Pad, {&x}, {{"low", Ints{1, 0}}, {"high", Ints{0, 2}}, {"value", -1.0}}),
                {DType::f32, {3, 4}}, {-1, -1, -1, -1, 1, 2, -1, -1, 3, 4, -1, -1});
  Tensor i = make_tensor(DType::i32, {2}, {5, 6});
  expect_values(eval(OpCode::Pad, {&i}, {{"low", Ints{2}}, {"high", Ints{1}}}), {DType::i32, {5}},
                {0, 0, 5, 6, 0});
  Tensor empty(DType::f16, {0});
  expect_values(eval(OpCode::Pad, {&empty}, {{"low", Ints{1}}, {"high", Ints{1}}, {"value", 2.5}}),
                {DType::f16, {2}}, {2.5, 2.5});
}

// ---- reductions

TEST(ReduceSum, MultipleDimsWithAndWithoutKeepdim) {
  // x[i][j][k] = 100 i + 10 j + k, shape [2,2,3]
  Tensor x = make_tensor(DType::f32, {2, 2, 3}, {0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112});
  expect_values(eval(OpCode::ReduceSum, {&x}, reduce_attrs({0, 2}, false)), {DType::f32, {2}},
                {0 + 1 + 2 + 100 + 101 + 102, 10 + 11 + 12 + 110 + 111 + 112});
  expect_values(eval(OpCode::ReduceSum, {&x}, reduce_attrs({0, 2}, true)), {DType::f32, {1, 2, 1}},
                {306, 366});
  expect_values(eval(OpCode::ReduceSum, {&x}, reduce_attrs({1}, false)), {DType::f32, {2, 3}},
                {10, 12, 14, 210, 212, 214});
  expect_values(eval(OpCode::ReduceSum, {&x}, reduce_attrs({-1, 0, 1}, false)), {DType::f32, {}}, {672});
  expect_values(eval(OpCode::ReduceSum, {&x}, reduce_attrs({}, false)), {DType::f32, {2, 2, 3}},
                {0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111, 112});
}

TEST(ReduceSum, IntegersEmptyAndHalfAccumulation) {
  Tensor i = make_tensor(DType::i32, {2, 2}, {1, 2, 3, 2147483647});  // column 1 wraps
  expect_values(eval(OpCode::ReduceSum, {&i}, reduce_attrs({0}, false)), {DType::i32, {2}},
                {4, -2147483647});
  Tensor empty(DType::f32, {3, 0});
  expect_values(eval(OpCode::ReduceSum, {&empty}, reduce_attrs({1}, true)), {DType::f32, {3, 1}}, {0, 0, 0});
  // 300 ones: a bf16 running sum would stick at 256; the double accumulator
  // gives 300 (representable in bf16).
  Tensor ones = make_tensor(DType::bf16, {300}, {1.0});
  expect_values(eval(OpCode::ReduceSum, {&ones}, reduce_attrs({0}, false)), {DType::bf16, {}}, {300});
  Tensor h = make_tensor(DType::f16, {4096}, {1.0});
  expect_values(eval(OpCode::ReduceSum, {&h}, reduce_attrs({0}, false)), {DType::f16, {}}, {4096});
}

TEST(ReduceMaxMin, DimsNanAndEveryNumericDtype) {
  for (DType dt : {DType::f32, DType::f64, DType::bf16, DType::f16, DType::i32, DType::i64}) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {2, 3}, {3, -1, 2, -5, 4, 4});
    expect_values(eval(OpCode::ReduceMax, {&x}, reduce_attrs({1}, false)), {dt, {2}}, {3, 4});
    expect_values(eval(OpCode::ReduceMin, {&x}, reduce_attrs({0}, true)), {dt, {1, 3}}, {-5, -1, 2});
    expect_values(eval(OpCode::ReduceMax, {&x}, reduce_attrs({0, 1}, false)), {dt, {}}, {4});
  }
  Tensor n = make_tensor(DType::f32, {2, 3}, {1, kNan, 3, -kInf, -kInf, -kInf});
  expect_values(eval(OpCode::ReduceMax, {&n}, reduce_attrs({1}, false)), {DType::f32, {2}}, {kNan, -kInf});
  expect_values(eval(OpCode::ReduceMin, {&n}, reduce_attrs({1}, false)), {DType::f32, {2}}, {kNan, -kInf});
}

TEST(Argmax, FirstMaximalIndexWins) {
  Tensor x = make_tensor(DType::f32, {2, 4}, {1, 3, 3, 2, 5, 5, 5, 5});
  expect_values(eval(OpCode::Argmax, {&x}, {{"axis", int64_t{1}}}), {DType::i64, {2}}, {1, 0});
  expect_values(eval(OpCode::Argmax, {&x}, {{"axis", int64_t{0}}}), {DType::i64, {4}}, {1, 1, 1, 1});
  Tensor y = make_tensor(DType::i32, {3, 2}, {4, 1, 4, 7, 0, 7});
  expect_values(eval(OpCode::Argmax, {&y}, {{"axis", int64_t{-2}}}), {DType::i64, {2}}, {0, 1});
  Tensor n = make_tensor(DType::bf16, {4}, {1, kNan, 9, kNan});
  expect_values(eval(OpCode::Argmax, {&n}, {{"axis", int64_t{0}}}), {DType::i64, {}}, {1});
  Tensor e(DType::f32, {0, 3});
  EXPECT_EQ(eval(OpCode::Argmax, {&e}, {{"axis", int64_t{1}}}).type(), (TensorType{DType::i64, {0}}));
}

// ---- sources

TEST(Iota, AlongEachDim) {
  expect_values(eval(OpCode::Iota, {}, {{"dim", int64_t{0}}}, TensorType{DType::i32, {3, 2}}),
                {DType::i32, {3, 2}}, {0, 0, 1, 1, 2, 2});
  expect_values(eval(OpCode::Iota, {}, {{"dim", int64_t{1}}}, TensorType{DType::f32, {2, 3}}),
                {DType::f32, {2, 3}}, {0, 1, 2, 0, 1, 2});
  // bf16 has 8 significant bits: 257 rounds to 256 (ties to even), 259 to 260.
  Tensor big = eval(OpCode::Iota, {}, {{"dim", int64_t{0}}}, TensorType{DType::bf16, {260}});
  EXPECT_EQ(to_doubles(big)[257], 256.0);
  EXPECT_EQ(to_doubles(big)[259], 260.0);
}

TEST(Constant, SplatAndListOnEveryDtype) {
  for (DType dt : kAllDTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    expect_values(eval(OpCode::Constant, {}, {{"value", int64_t{1}}}, TensorType{dt, {2}}), {dt, {2}}, {1, 1});
    expect_values(eval(OpCode::Constant, {}, {{"value", Ints{0, 1, 1}}}, TensorType{dt, {3}}), {dt, {3}},
                  {0, 1, 1});
  }
  expect_values(eval(OpCode::Constant, {}, {{"value", std::vector<double>{0.5, -2.25}}},
                     TensorType{DType::f16, {2, 1}}),
                {DType::f16, {2, 1}}, {0.5, -2.25});
  expect_values(eval(OpCode::Constant, {}, {{"value", 0.1}}, TensorType{DType::f64, {}}), {DType::f64, {}}, {0.1});
  // 0.1 in bf16: 0x3DCD = 0.10009765625.
  expect_values(eval(OpCode::Constant, {}, {{"value", 0.1}}, TensorType{DType::bf16, {}}), {DType::bf16, {}},
                {0.10009765625});
  expect_values(eval(OpCode::Constant, {}, {{"value", int64_t{-7}}}, TensorType{DType::i64, {}}),
                {DType::i64, {}}, {-7});
}

}  // namespace
}  // namespace mlc::rt
