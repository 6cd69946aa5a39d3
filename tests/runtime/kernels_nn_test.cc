// Reference kernels: dot, conv2d, unfold/fold, pooling, gather and
// scatter_add, against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "runtime/kernels/kernels.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::rt {
namespace {

using namespace testing;

const DType kFloatTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16};

Attrs dot_attrs(bool ta, bool tb) { return {{"transpose_a", ta}, {"transpose_b", tb}}; }

// ---- dot

TEST(Dot, PlainAndTransposedOnEveryFloatDtype) {
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor a = make_tensor(dt, {2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor at = make_tensor(dt, {3, 2}, {1, 4, 2, 5, 3, 6});
    Tensor b = make_tensor(dt, {3, 2}, {7, 8, 9, 10, 11, 12});
    Tensor bt = make_tensor(dt, {2, 3}, {7, 9, 11, 8, 10, 12});
    TensorType t{dt, {2, 2}};
    std::vector<double> want = {58, 64, 139, 154};
    expect_values(eval(OpCode::Dot, {&a, &b}), t, want);
    expect_values(eval(OpCode::Dot, {&at, &b}, dot_attrs(true, false)), t, want);
    expect_values(eval(OpCode::Dot, {&a, &bt}, dot_attrs(false, true)), t, want);
    expect_values(eval(OpCode::Dot, {&at, &bt}, dot_attrs(true, true)), t, want);
  }
}

TEST(Dot, BatchedWithPerBatchRhs) {
  Tensor a = make_tensor(DType::f32, {2, 2, 2}, {1, 2, 3, 4, 1, 1, 1, 1});
  Tensor b = make_tensor(DType::f32, {2, 2, 2}, {1, 0, 0, 1, 2, 3, 4, 5});
  expect_values(eval(OpCode::Dot, {&a, &b}), {DType::f32, {2, 2, 2}}, {1, 2, 3, 4, 6, 8, 6, 8});
  // b transposed per batch: b1^T = [[2,4],[3,5]].
  expect_values(eval(OpCode::Dot, {&a, &b}, dot_attrs(false, true)), {DType::f32, {2, 2, 2}},
                {1, 2, 3, 4, 5, 9, 5, 9});
}

TEST(Dot, BatchedWithSharedRank2Rhs) {
  Tensor a = make_tensor(DType::f64, {2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor swap = make_tensor(DType::f64, {2, 2}, {0, 1, 1, 0});
  expect_values(eval(OpCode::Dot, {&a, &swap}), {DType::f64, {2, 2, 2}}, {2, 1, 4, 3, 6, 5, 8, 7});
  // transpose_a: each batch's a^T times swap.
  expect_values(eval(OpCode::Dot, {&a, &swap}, dot_attrs(true, false)), {DType::f64, {2, 2, 2}},
                {3, 1, 4, 2, 7, 5, 8, 6});
  // Rank 4 batch dims [2,1] with a shared [2,3] rhs.
  Tensor a4 = make_tensor(DType::bf16, {2, 1, 1, 2}, {1, 2, 3, 4});
  Tensor b2 = make_tensor(DType::bf16, {2, 3}, {1, 0, 1, 0, 1, 1});
  expect_values(eval(OpCode::Dot, {&a4, &b2}), {DType::bf16, {2, 1, 1, 3}}, {1, 2, 3, 3, 4, 7});
}

TEST(Dot, EmptyContractionGivesZeros) {
  Tensor a(DType::f32, {2, 0});
  Tensor b(DType::f32, {0, 3});
  expect_values(eval(OpCode::Dot, {&a, &b}), {DType::f32, {2, 3}}, {0, 0, 0, 0, 0, 0});
  Tensor e(DType::f32, {0, 2});
  Tensor f = make_tensor(DType::f32, {2, 1}, {1, 2});
  EXPECT_EQ(eval(OpCode::Dot, {&e, &f}).type(), (TensorType{DType::f32, {0, 1}}));
}

TEST(Dot, HalfRoundsOnceFromF32Accumulation) {
  // 256 + 1 + 1 in bf16: rounding after every add would stay at 256.
  Tensor a = make_tensor(DType::bf16, {1, 3}, {256, 1, 1});
  Tensor b = make_tensor(DType::bf16, {3, 1}, {1, 1, 1});
  expect_values(eval(OpCode::Dot, {&a, &b}), {DType::bf16, {1, 1}}, {258});
}

// ---- conv2d

Attrs conv_attrs(Ints stride, Ints padding, Ints dilation, int64_t groups) {
  return {{"stride", stride}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}};
}

TEST(Conv2d, ValidConvolutionOnEveryFloatDtype) {
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    Tensor w = make_tensor(dt, {1, 1, 2, 2}, {1, 2, 3, 4});
    expect_values(eval(OpCode::Conv2d, {&x, &w}), {dt, {1, 1, 2, 2}}, {37, 47, 67, 77});
  }
}

TEST(Conv2d, StrideAndPadding) {
  Tensor x = make_tensor(DType::f32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Tensor w = make_tensor(DType::f32, {1, 1, 3, 3}, {1});
  expect_values(eval(OpCode::Conv2d, {&x, &w}, conv_attrs({2, 2}, {1, 1}, {1, 1}, 1)),
                {DType::f32, {1, 1, 2, 2}}, {12, 16, 24, 28});
  // Asymmetric: stride [1, 2], padding [0, 1] with a 1x3 kernel [1, 10, 100].
  Tensor r = make_tensor(DType::f32, {1, 1, 1, 3}, {1, 10, 100});
  expect_values(eval(OpCode::Conv2d, {&x, &r}, conv_attrs({1, 2}, {0, 1}, {1, 1}, 1)),
                {DType::f32, {1, 1, 3, 2}}, {210, 32, 540, 65, 870, 98});
}

TEST(Conv2d, Dilation) {
  std::vector<double> v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;  // x[i][j] = 4i + j
  Tensor x = make_tensor(DType::f64, {1, 1, 4, 4}, v);
  Tensor w = make_tensor(DType::f64, {1, 1, 2, 2}, {1});
  expect_values(eval(OpCode::Conv2d, {&x, &w}, conv_attrs({1, 1}, {0, 0}, {2, 2}, 1)),
                {DType::f64, {1, 1, 2, 2}}, {20, 24, 36, 40});
}

TEST(Conv2d, GroupsChannelsAndBatch) {
  Tensor x = make_tensor(DType::f32, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  // 1x1, one filter per group (the direct no-im2col path).
  Tensor w1 = make_tensor(DType::f32, {2, 1, 1, 1}, {2, 3});
  expect_values(eval(OpCode::Conv2d, {&x, &w1}, conv_attrs({1, 1}, {0, 0}, {1, 1}, 2)),
                {DType::f32, {1, 2, 2, 2}}, {2, 4, 6, 8, 15, 18, 21, 24});
  // 2x2, two filters per group: group 0 sees channel 0, group 1 channel 1.
  Tensor w2 = make_tensor(DType::f32, {4, 1, 2, 2}, {1, 1, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 1});
  expect_values(eval(OpCode::Conv2d, {&x, &w2}, conv_attrs({1, 1}, {0, 0}, {1, 1}, 2)),
                {DType::f32, {1, 4, 1, 1}}, {10, 1, 26, 8});
  // Channel mixing over a batch of two.
  Tensor xb = make_tensor(DType::f32, {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  Tensor wm = make_tensor(DType::f32, {1, 2, 1, 1}, {1, 10});
  expect_values(eval(OpCode::Conv2d, {&xb, &wm}), {DType::f32, {2, 1, 1, 2}}, {31, 42, 75, 86});
}

// ---- unfold / fold (PyTorch's F.unfold / F.fold)

TEST(Unfold, PaddingAndStrideOnEveryFloatDtype) {
  // x = [[1,2,3],[4,5,6]], 2x2 windows, stride [1,2], padding [1,1]: 3 x 2 blocks;
  // row (i, j) holds x[oy - 1 + i][2*ox - 1 + j] over the blocks, 0 in the padding.
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {1, 1, 2, 3}, {1, 2, 3, 4, 5, 6});
    expect_values(eval(OpCode::Unfold, {&x}, {{"kernel", Ints{2, 2}}, {"stride", Ints{1, 2}}, {"padding", Ints{1, 1}}}),
                  {dt, {1, 4, 6}},
                  {0, 0, 0, 2, 0, 5, 0, 0, 1, 3, 4, 6, 0, 2, 0, 5, 0, 0, 1, 3, 4, 6, 0, 0});
  }
}

TEST(Unfold, DilationChannelsAndBatch) {
  std::vector<double> v(9);
  for (int i = 0; i < 9; ++i) v[i] = i + 1;
  Tensor x = make_tensor(DType::f32, {1, 1, 3, 3}, v);
  expect_values(eval(OpCode::Unfold, {&x}, {{"kernel", Ints{2, 2}}, {"dilation", Ints{2, 2}}}), {DType::f32, {1, 4, 1}},
                {1, 3, 7, 9});
  // 1x1 windows: rows are the channels, columns the pixels.
  Tensor xb = make_tensor(DType::f64, {2, 2, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_values(eval(OpCode::Unfold, {&xb}, {{"kernel", Ints{1, 1}}}), {DType::f64, {2, 2, 2}},
                {1, 2, 3, 4, 5, 6, 7, 8});
}

TEST(Fold, OverlapsAddUp) {
  // fold(ones) counts the windows covering each pixel.
  Tensor ones = make_tensor(DType::f32, {1, 4, 4}, std::vector<double>(16, 1));
  expect_values(eval(OpCode::Fold, {&ones}, {{"output_size", Ints{3, 3}}, {"kernel", Ints{2, 2}}}),
                {DType::f32, {1, 1, 3, 3}}, {1, 2, 1, 2, 4, 2, 1, 2, 1});
}

TEST(Fold, IsUnfoldsTransposeOnEveryFloatDtype) {
  // The geometry of Unfold.PaddingAndStrideOnEveryFloatDtype: each pixel sums the
  // two column entries that unfold copies it to (cols[r][l] = 6r + l + 1).
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    std::vector<double> v(24);
    for (int i = 0; i < 24; ++i) v[i] = i + 1;
    Tensor cols = make_tensor(dt, {1, 4, 6}, v);
    expect_values(eval(OpCode::Fold, {&cols},
                       {{"output_size", Ints{2, 3}}, {"kernel", Ints{2, 2}}, {"stride", Ints{1, 2}}, {"padding", Ints{1, 1}}}),
                  {dt, {1, 1, 2, 3}}, {28, 18, 30, 32, 22, 34});
  }
}

TEST(Fold, BadGeometryIsALocatedError) {
  Tensor cols = make_tensor(DType::f32, {1, 5, 4}, std::vector<double>(20, 1));
  EXPECT_EQ(eval_error(OpCode::Fold, {&cols}, {{"output_size", Ints{3, 3}}, {"kernel", Ints{2, 2}}}),
            "error: fold: input dim 1 (5) must be a multiple of the kernel size [2, 2] = 4, got f32[1,5,4]");
  Tensor blocks = make_tensor(DType::f32, {1, 4, 5}, std::vector<double>(20, 1));
  EXPECT_EQ(eval_error(OpCode::Fold, {&blocks}, {{"output_size", Ints{3, 3}}, {"kernel", Ints{2, 2}}}),
            "error: fold: input dim 2 (5) must be the 4 blocks (2 x 2) of output_size [3, 3], got f32[1,4,5]");
  Tensor x = make_tensor(DType::f32, {1, 1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(eval_error(OpCode::Unfold, {&x}, {{"kernel", Ints{3, 3}}}),
            "error: unfold: kernel [3, 3] (dilation [1, 1]) does not fit input [2,2] with padding [0, 0]");
}

// ---- pooling

Attrs pool_attrs(Ints kernel, Ints stride, Ints padding) {
  return {{"kernel", kernel}, {"stride", stride}, {"padding", padding}};
}

TEST(MaxPool2d, WindowsAndMinusInfPadding) {
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    expect_values(eval(OpCode::MaxPool2d, {&x}, pool_attrs({2, 2}, {1, 1}, {0, 0})),
                  {dt, {1, 1, 2, 2}}, {5, 6, 8, 9});
    Tensor n = make_tensor(dt, {1, 1, 3, 3}, {-1, -2, -3, -4, -5, -6, -7, -8, -9});
    expect_values(eval(OpCode::MaxPool2d, {&n}, pool_attrs({2, 2}, {2, 2}, {1, 1})),
                  {dt, {1, 1, 2, 2}}, {-1, -2, -4, -5});
  }
}

TEST(MaxPool2d, TiesTakeTheFirstAndNanWins) {
  Tensor x = make_tensor(DType::f32, {1, 2, 1, 2}, {-0.0, 0.0, 0.0, -0.0});
  Tensor y = eval(OpCode::MaxPool2d, {&x}, pool_attrs({1, 2}, {1, 1}, {0, 0}));
  ASSERT_EQ(y.type(), (TensorType{DType::f32, {1, 2, 1, 1}}));
  EXPECT_TRUE(std::signbit(y.data<float>()[0]));
  EXPECT_FALSE(std::signbit(y.data<float>()[1]));
  Tensor n = make_tensor(DType::f32, {1, 1, 2, 2}, {1, kNan, 3, 2});
  expect_values(eval(OpCode::MaxPool2d, {&n}, pool_attrs({2, 2}, {1, 1}, {0, 0})),
                {DType::f32, {1, 1, 1, 1}}, {kNan});
}

TEST(AvgPool2d, CountIncludePad) {
  Tensor x = make_tensor(DType::f32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  Attrs a = pool_attrs({2, 2}, {2, 2}, {1, 1});
  a.set("count_include_pad", true);
  expect_values(eval(OpCode::AvgPool2d, {&x}, a), {DType::f32, {1, 1, 2, 2}}, {0.25, 1.25, 2.75, 7});
  a.set("count_include_pad", false);
  expect_values(eval(OpCode::AvgPool2d, {&x}, a), {DType::f32, {1, 1, 2, 2}}, {1, 2.5, 5.5, 7});
  expect_values(eval(OpCode::AvgPool2d, {&x}, pool_attrs({3, 3}, {1, 1}, {0, 0})),
                {DType::f32, {1, 1, 1, 1}}, {5});
}

TEST(AvgPool2d, EveryFloatDtypeAndChannels) {
  for (DType dt : kFloatTypes) {
    SCOPED_TRACE(std::string(dtype_name(dt)));
    Tensor x = make_tensor(dt, {1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40});
    expect_values(eval(OpCode::AvgPool2d, {&x}, pool_attrs({2, 2}, {2, 2}, {0, 0})),
                  {dt, {1, 2, 1, 1}}, {2.5, 25});
  }
}

// ---- gather, scatter_add

TEST(Gather, RowsWithI32AndI64Indices) {
  Tensor table = make_tensor(DType::f32, {4, 2}, {0, 1, 10, 11, 20, 21, 30, 31});
  Tensor i32 = make_tensor(DType::i32, {3}, {2, 0, 2});
  expect_values(eval(OpCode::Gather, {&table, &i32}, {{"axis", int64_t{0}}}), {DType::f32, {3, 2}},
                {20, 21, 0, 1, 20, 21});
  Tensor i64 = make_tensor(DType::i64, {2, 2}, {3, 1, 0, 0});
  expect_values(eval(OpCode::Gather, {&table, &i64}, {{"axis", int64_t{0}}}), {DType::f32, {2, 2, 2}},
                {30, 31, 10, 11, 0, 1, 0, 1});
  Tensor scalar = make_tensor(DType::i64, {}, {1});
  expect_values(eval(OpCode::Gather, {&table, &scalar}, {{"axis", int64_t{0}}}), {DType::f32, {2}}, {10, 11});
  Tensor none(DType::i32, {0});
  EXPECT_EQ(eval(OpCode::Gather, {&table, &none}, {{"axis", int64_t{0}}}).type(),
            (TensorType{DType::f32, {0, 2}}));
}

TEST(Gather, InnerAxis) {
  Tensor table = make_tensor(DType::i64, {2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor idx = make_tensor(DType::i32, {2}, {2, 0});
  expect_values(eval(OpCode::Gather, {&table, &idx}, {{"axis", int64_t{1}}}), {DType::i64, {2, 2}}, {3, 1, 6, 4});
  expect_values(eval(OpCode::Gather, {&table, &idx}, {{"axis", int64_t{-1}}}), {DType::i64, {2, 2}}, {3, 1, 6, 4});
}

TEST(Gather, OutOfRangeIndexIsAnError) {
  Tensor table(DType::f32, {64, 8});
  Tensor idx = make_tensor(DType::i64, {3}, {1, 70, 80});
  EXPECT_EQ(eval_error(OpCode::Gather, {&table, &idx}, {{"axis", int64_t{0}}}),
            "gather: index 70 out of range [0, 64) along axis 0");
  Tensor neg = make_tensor(DType::i32, {1}, {-1});
  EXPECT_EQ(eval_error(OpCode::Gather, {&table, &neg}, {{"axis", int64_t{1}}}),
            "gather: index -1 out of range [0, 8) along axis 1");
}

TEST(ScatterAdd, RepeatedIndicesAccumulate) {
  Tensor operand = make_tensor(DType::f32, {4, 2}, {1});
  Tensor idx = make_tensor(DType::i32, {3}, {0, 2, 0});
  Tensor upd = make_tensor(DType::f32, {3, 2}, {1, 2, 3, 4, 5, 6});
  expect_values(eval(OpCode::ScatterAdd, {&operand, &idx, &upd}, {{"axis", int64_t{0}}}),
                {DType::f32, {4, 2}}, {7, 9, 1, 1, 4, 5, 1, 1});
}

TEST(ScatterAdd, InnerAxisIntegersAndHalf) {
  Tensor operand(DType::i32, {2, 3});
  Tensor idx = make_tensor(DType::i64, {4}, {1, 1, 2, 1});
  Tensor upd = make_tensor(DType::i32, {2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  expect_values(eval(OpCode::ScatterAdd, {&operand, &idx, &upd}, {{"axis", int64_t{1}}}),
                {DType::i32, {2, 3}}, {0, 7, 3, 0, 19, 7});
  // bf16: 256 + 1 + 1 accumulates in float, rounds once to 258.
  Tensor h = make_tensor(DType::bf16, {1}, {256});
  Tensor twice = make_tensor(DType::i32, {2}, {0, 0});
  Tensor ones = make_tensor(DType::bf16, {2}, {1});
  expect_values(eval(OpCode::ScatterAdd, {&h, &twice, &ones}, {{"axis", int64_t{0}}}), {DType::bf16, {1}},
                {258});
  Tensor bad = make_tensor(DType::i32, {2}, {0, 1});
  EXPECT_EQ(eval_error(OpCode::ScatterAdd, {&h, &bad, &ones}, {{"axis", int64_t{0}}}),
            "scatter_add: index 1 out of range [0, 1) along axis 0");
}

}  // namespace
}  // namespace mlc::rt
