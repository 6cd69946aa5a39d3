// The compiled backend against the reference interpreter (the oracle): every
// op of the table, for the dtypes it accepts, on random inputs with
// broadcasting and edge shapes (rank 0, size-1 and empty dims, NaN and inf),
// lowered (compiler/lower.h) and run by rt::Executor. A coverage test fails if
// an op of the table has no case. At the end: pooling fused with its
// neighbours (WindowFusion). Half types: every op a mixed-precision policy
// produces (add_half_cases), and f32 accumulation in their dots and convolutions.
//
// Tolerances, in units of the dtype's epsilon times the largest magnitude of
// the reference result (a normwise bound):
//  - 0 (bit-exact) for everything computed by IEEE-exact operations in the
//    same order as the reference kernels: movement, compare, select, casts,
//    integer ops, + - * / sqrt, max/min, tanh and erf of a rank-0 kernel
//    (libm's scalar functions), f64 dot (the same OpenBLAS call), max_pool2d,
//    unfold, fold (its f64 sum in the reference kernel's order,
//    compiler/kernel_ir.h), gather, scatter_add (its adds in the reference
//    kernel's order, kir::Kernel::scatter; bf16 and f16 ones summed in f32
//    and rounded once, compiler/half_accumulation.h), random_uniform (ir/random.h's
//    bits); bf16 and f16 loops (computed in f32, rounded per op as the
//    reference kernels round, compiler/cpu/llvm_half.h); pooling's sums: see
//    add_pool_cases;
//  - for bf16 and f16 dots and convolutions (f32 sums rounded once, in
//    oneDNN's order where the interpreter rounds an OpenBLAS f32 product):
//    the f32 reordered-sum bound plus one rounding of the result
//    (tests/compiler/reordered_sum.h);
//  - for f32 dot (libxsmm or oneDNN by size, runtime/executor.cc, where the
//    interpreter calls OpenBLAS) and for conv2d and its gradients (run as
//    unfold + one GEMM, compiler/conv_to_gemm.h), which order each element's
//    sum their own way, the reordered-sum bound of
//    tests/compiler/reordered_sum.h, per element;
//  - 4 where a kernel may call glibc's libmvec for exp, log, sin, cos, pow,
//    tanh or erf (glibc documents at most 4 ulp for them; libm's scalar
//    versions are within 1 for exp/log/sin/cos/pow, about 2 for tanhf), so
//    sigmoid, softmax, GELU and the other composites over them; for bf16 and
//    f16 1: their f32 values are 4 f32 ulp apart at most, so the rounded
//    results at most one rounding boundary;
//  - 2 for f32 sums: accumulated in double as the interpreter does, but
//    reassociated for vectorization where a sum's own loop is vectorized, so
//    the double sums differ by ~n·2^-53 relative before rounding to f32 (at
//    most a rounding boundary apart), and composites whose means and
//    variances come from such sums. (Sums vectorized across the elements of a
//    row, cpu::ReduceStrategy::across_row, keep the interpreter's order.)
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <random>
#include <set>

#include "compiler/gpu/nvrtc.h"
#include "compiler/lower.h"
#include "ir/builder.h"
#include "ir/collectives.h"
#include "ir/op_table.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"
#include "runtime/target.h"
#include "tests/compiler/op_case_util.h"
#include "tests/compiler/reordered_sum.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc {
namespace {

using Ints = std::vector<int64_t>;
// underflow: arguments around where exp's result becomes subnormal and then 0
// (the emitter gives exp 0 below -104 for f32, -746 for f64). zeros_below and
// zeros_above: -0, +0 and values below (above) them, so that a max (min) is a
// zero that both signs attain: the first one wins, as in the interpreter.
// minus_inf: every element -inf (pooling windows of nothing but -inf).
// half_edges: floats where rounding to bf16 or f16 is hardest: ties to even
// (up and down), f16 subnormals and the ties between them, half the smallest
// f16 subnormal, f16's largest finite value and the first that overflows,
// f32 subnormals, bf16's overflow to inf.
enum class Fill { uniform, positive, special, predicate, indices, small_ints, underflow, zeros_below, zeros_above, minus_inf, half_edges, unit, signs, wide };

using Arg = mlc::testing::OpArg<Fill>;
using Case = mlc::testing::OpCase<Fill>;

Arg A(DType t, Shape s, Fill f = Fill::uniform) { return {{t, std::move(s)}, f, 0}; }
Arg I(Shape s, int64_t bound) { return {{DType::i64, std::move(s)}, Fill::indices, bound}; }

const DType kF32 = DType::f32, kF64 = DType::f64, kI32 = DType::i32, kI64 = DType::i64, kBool = DType::boolean;

// Pooling and its gradients (loop kernels on f32 and f64): windows apart,
// overlapping, padded, non-square, with strides past the kernel (inputs in no
// window) and rows left over; ties (small integers), NaN and inf, all -inf.
// Tolerances: max_pool2d selects, so it is exact. A sum of small integers is
// exact in any order, and so is one term: max_pool2d_grad on integers, and
// both gradients where windows do not overlap (each element in one window)
// are exact, as is avg_pool2d of integers (an exact sum divided once in
// double, as the reference does). Sums of several arbitrary terms in double
// may be reassociated: 2 (see the file comment).
void add_pool_cases(std::vector<Case>& c) {
  struct Window {
    const char* label;
    Shape x;
    Ints kernel, stride, padding;
  };
  const Window windows[] = {
      {"2x2", {2, 3, 8, 8}, {2, 2}, {2, 2}, {0, 0}},
      {"odd_rows", {1, 2, 7, 5}, {2, 2}, {2, 2}, {0, 0}},
      {"3x3_s1_p1", {1, 2, 5, 6}, {3, 3}, {1, 1}, {1, 1}},
      {"3x3_s2_p1", {1, 2, 5, 5}, {3, 3}, {2, 2}, {1, 1}},
      {"3x2_s2x1_p1x0", {2, 2, 7, 5}, {3, 2}, {2, 1}, {1, 0}},
      {"2x3_s3x2_p1", {1, 2, 8, 7}, {2, 3}, {3, 2}, {1, 1}},
  };
  for (DType t : {kF32, kF64})
    for (const Window& w : windows) {
      auto out = [&](size_t d) { return (w.x[d + 2] + 2 * w.padding[d] - w.kernel[d]) / w.stride[d] + 1; };
      const Shape y = {w.x[0], w.x[1], out(0), out(1)};
      const bool overlap = w.stride[0] < w.kernel[0] || w.stride[1] < w.kernel[1];
      const double sums = overlap ? 2 : 0;
      Attrs pool = {{"kernel", w.kernel}, {"stride", w.stride}, {"padding", w.padding}};
      auto label = [&](const char* what) { return std::string(dtype_name(t)) + "_" + w.label + "_" + what; };
      for (Fill f : {Fill::uniform, Fill::small_ints, Fill::special}) {
        const char* what = f == Fill::uniform ? "uniform" : f == Fill::small_ints ? "ties" : "special";
        c.push_back({label(what), OpCode::MaxPool2d, {A(t, w.x, f)}, pool});
        c.push_back({label(what), OpCode::MaxPool2dGrad, {A(t, w.x, f), A(t, y, Fill::small_ints)}, pool});
        c.push_back({label(what), OpCode::MaxPool2dIndices, {A(t, w.x, f)}, pool});
      }
      // Random indices: mostly outside their windows (dropped); the forward's own
      // choices are routed in WindowFusion.ScatterRoutesTheForwardsChoices.
      c.push_back({label("random_indices"), OpCode::MaxPool2dScatter, {A(t, y, Fill::small_ints), I(y, w.x[2] * w.x[3])},
                   pool, TensorType{t, w.x}});
      c.push_back({label("uniform_dy"), OpCode::MaxPool2dGrad, {A(t, w.x), A(t, y)}, pool, {}, sums});
      // All -inf: each window selects its first element inside the input, never padding.
      c.push_back({label("minus_inf"), OpCode::MaxPool2dGrad, {A(t, w.x, Fill::minus_inf), A(t, y, Fill::small_ints)}, pool});
      c.push_back({label("minus_inf"), OpCode::MaxPool2dIndices, {A(t, w.x, Fill::minus_inf)}, pool});
      for (bool include_pad : {true, false}) {
        Attrs avg = pool;
        avg.set("count_include_pad", include_pad);
        const char* what = include_pad ? "with_pad" : "without_pad";
        c.push_back({label(what), OpCode::AvgPool2d, {A(t, w.x)}, avg, {}, 2});
        c.push_back({label(what) + "_ints", OpCode::AvgPool2d, {A(t, w.x, Fill::small_ints)}, avg});
        c.push_back({label(what), OpCode::AvgPool2dGrad, {A(t, y)}, avg, TensorType{t, w.x}, sums});
      }
    }
  // Half precision: loop kernels, computed in f32 and rounded as the reference kernels round.
  Attrs pool = {{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}};
  c.push_back({"bf16", OpCode::MaxPool2d, {A(DType::bf16, {1, 2, 5, 5})}, pool});
  c.push_back({"bf16", OpCode::MaxPool2dIndices, {A(DType::bf16, {1, 2, 5, 5})}, pool});
  c.push_back({"bf16", OpCode::MaxPool2dScatter, {A(DType::bf16, {1, 2, 3, 3}), I({1, 2, 3, 3}, 25)}, pool,
               TensorType{DType::bf16, {1, 2, 5, 5}}});
  c.push_back({"f16", OpCode::AvgPool2dGrad, {A(DType::f16, {1, 2, 3, 3})}, pool, TensorType{DType::f16, {1, 2, 5, 5}}});
  Attrs avg = pool;
  avg.set("count_include_pad", false);
  c.push_back({"bf16", OpCode::AvgPool2d, {A(DType::bf16, {1, 2, 5, 5})}, avg});
  c.push_back({"f16", OpCode::MaxPool2dGrad, {A(DType::f16, {1, 2, 5, 5}), A(DType::f16, {1, 2, 3, 3})}, pool});
}

// Every op a mixed-precision policy puts in a train step (passes/autocast.h;
// the ops of tiny_gpt, digits_cnn and digits_mlp under bf16/f16 policies after
// canonicalize), in bf16 and f16: casts to and from f32 and between the half
// types (NaN, inf, values past f16's range), dots (plain, transposed,
// batched, a shared rank-2 operand), conv2d and its gradients, the
// elementwise ops, reductions, movement, gather/scatter_add and max pooling
// (and f64 values past f16's range, cast to -inf).
// Half types compile to loop kernels (compiler/cpu/llvm_half.h) and oneDNN GEMMs
// (runtime/onednn_gemm.h); besides the policies' ops, every elementwise op,
// reduction and movement op, casts from every dtype and of half_edges, and
// composites over them. Bit-exact but where libmvec is called (1, see the
// file comment) and for dots and convolutions (their bound).
void add_half_cases(std::vector<Case>& c) {
  const DType kBf16 = DType::bf16, kF16 = DType::f16;
  const Attrs conv = {{"stride", Ints{1, 1}}, {"padding", Ints{1, 1}}};
  const Attrs pool = {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{0, 0}}};
  for (DType t : {kBf16, kF16}) {
    const std::string n(dtype_name(t));
    for (DType other : {kF32, t == kBf16 ? kF16 : kBf16}) {
      c.push_back({n + "_from_" + std::string(dtype_name(other)), OpCode::Cast, {A(other, {3, 6}, Fill::special)}, {},
                   TensorType{t, {3, 6}}});
      c.push_back({n + "_to_" + std::string(dtype_name(other)), OpCode::Cast, {A(t, {3, 6}, Fill::special)}, {},
                   TensorType{other, {3, 6}}});
    }
    c.push_back({n + "_from_f64_large", OpCode::Cast, {A(kF64, {2, 5}, Fill::underflow)}, {}, TensorType{t, {2, 5}}});
    for (DType from : {kF32, kF64})
      c.push_back({n + "_edges_from_" + std::string(dtype_name(from)), OpCode::Cast, {A(from, {4, 20}, Fill::half_edges)},
                   {}, TensorType{t, {4, 20}}});
    for (DType from : {kI32, kI64})
      c.push_back({n + "_from_" + std::string(dtype_name(from)), OpCode::Cast, {A(from, {3, 7}, Fill::small_ints)}, {},
                   TensorType{t, {3, 7}}});
    c.push_back({n + "_from_bool", OpCode::Cast, {A(kBool, {3, 7}, Fill::predicate)}, {}, TensorType{t, {3, 7}}});
    for (DType to : {kF64, kBool})
      c.push_back({n + "_to_" + std::string(dtype_name(to)), OpCode::Cast, {A(t, {3, 6}, Fill::special)}, {},
                   TensorType{to, {3, 6}}});
    for (OpCode u : {OpCode::Abs, OpCode::Sqrt, OpCode::Tanh, OpCode::Erf})
      c.push_back({n + "_more", u, {A(t, {3, 17}, u == OpCode::Sqrt ? Fill::positive : Fill::special)}});
    for (OpCode u : {OpCode::Log, OpCode::Sin, OpCode::Cos})
      c.push_back({n + "_vector", u, {A(t, {4, 33}, u == OpCode::Log ? Fill::positive : Fill::uniform)}, {}, {}, 1});
    c.push_back({n + "_vector", OpCode::Exp, {A(t, {4, 33})}, {}, {}, 1});
    c.push_back({n + "_same", OpCode::Min, {A(t, {5, 7}, Fill::special), A(t, {5, 7}, Fill::special)}});
    c.push_back({n + "_bcast", OpCode::Pow, {A(t, {3, 8}, Fill::positive), A(t, {8})}, {}, {}, 1});
    c.push_back({n + "_special", OpCode::ReduceMin, {A(t, {5, 3}, Fill::special)}, {{"dims", Ints{0}}}});
    c.push_back({n + "_special", OpCode::ReduceMax, {A(t, {4, 40}, Fill::special)}, {{"dims", Ints{-1}}}});
    c.push_back({n + "_zero_ties", OpCode::ReduceMax, {A(t, {6, 40}, Fill::zeros_below)}, {{"dims", Ints{1}}}});
    c.push_back({n + "_outer", OpCode::ReduceSum, {A(t, {30, 17})}, {{"dims", Ints{0}}}});
    c.push_back({n + "_special", OpCode::Argmax, {A(t, {4, 9}, Fill::special)}, {{"axis", int64_t{1}}}});
    c.push_back({n, OpCode::Softmax, {A(t, {3, 40})}, {{"axis", int64_t{1}}}, {}, 1});
    c.push_back({n, OpCode::LayerNorm, {A(t, {4, 24}), A(t, {24}), A(t, {24})}});
    c.push_back({n + "_tanh", OpCode::Gelu, {A(t, {3, 9})}, {{"approximate", std::string("tanh")}}});
    c.push_back({n, OpCode::Relu, {A(t, {3, 9}, Fill::special)}});
    c.push_back({n + "_strided", OpCode::Slice, {A(t, {7, 9})}, {{"start", Ints{1, 2}}, {"limit", Ints{7, 9}}, {"stride", Ints{2, 3}}}});
    c.push_back({n, OpCode::Concat, {A(t, {2, 3}), A(t, {2, 0}), A(t, {2, 2})}, {{"axis", int64_t{-1}}}});
    c.push_back({n, OpCode::Pad, {A(t, {2, 3})}, {{"low", Ints{1, 0}}, {"high", Ints{2, 3}}, {"value", 0.1}}});
    c.push_back({n, OpCode::Iota, {}, {{"dim", int64_t{0}}}, TensorType{t, {300, 2}}});
    c.push_back({n, OpCode::Dot, {A(t, {5, 7}), A(t, {7, 3})}});
    c.push_back({n + "_transpose_b", OpCode::Dot, {A(t, {2, 4, 8}), A(t, {6, 8})}, {{"transpose_b", true}}});
    c.push_back({n + "_batched_transpose_a", OpCode::Dot, {A(t, {2, 3, 5, 4}), A(t, {2, 3, 5, 6})}, {{"transpose_a", true}}});
    c.push_back({n, OpCode::Conv2d, {A(t, {2, 3, 5, 5}), A(t, {4, 3, 3, 3})}, conv});
    c.push_back({n, OpCode::Conv2dInputGrad, {A(t, {2, 4, 5, 5}), A(t, {4, 3, 3, 3})}, conv, TensorType{t, {2, 3, 5, 5}}});
    c.push_back({n, OpCode::Conv2dWeightGrad, {A(t, {2, 3, 5, 5}), A(t, {2, 4, 5, 5})}, conv, TensorType{t, {4, 3, 3, 3}}});
    // Two groups, strides, padding on one dim, dilation on the other: x [2, 4, 6, 5], w [6, 2, 3, 2], y [2, 6, 3, 3].
    const Attrs grouped = {{"stride", Ints{2, 1}}, {"padding", Ints{1, 0}}, {"dilation", Ints{1, 2}}, {"groups", int64_t{2}}};
    c.push_back({n + "_groups_strided", OpCode::Conv2d, {A(t, {2, 4, 6, 5}), A(t, {6, 2, 3, 2})}, grouped});
    c.push_back({n + "_groups_strided", OpCode::Conv2dInputGrad, {A(t, {2, 6, 3, 3}), A(t, {6, 2, 3, 2})}, grouped,
                 TensorType{t, {2, 4, 6, 5}}});
    c.push_back({n + "_groups_strided", OpCode::Conv2dWeightGrad, {A(t, {2, 4, 6, 5}), A(t, {2, 6, 3, 3})}, grouped,
                 TensorType{t, {6, 2, 3, 2}}});
    for (OpCode b : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Max})
      c.push_back({n + "_bcast", b, {A(t, {3, 4}, Fill::special), A(t, {4})}});
    for (OpCode u : {OpCode::Neg, OpCode::Exp, OpCode::Rsqrt, OpCode::Sigmoid})
      c.push_back({n, u, {A(t, {3, 5}, u == OpCode::Rsqrt ? Fill::positive : Fill::special)}});
    c.push_back({n, OpCode::Select, {A(kBool, {3, 4}, Fill::predicate), A(t, {}), A(t, {3, 4})}});
    c.push_back({n, OpCode::Compare, {A(t, {3, 4}, Fill::small_ints), A(t, {3, 4}, Fill::small_ints)}, {{"direction", std::string("gt")}}});
    c.push_back({n, OpCode::ReduceSum, {A(t, {4, 33})}, {{"dims", Ints{1}}}});
    c.push_back({n, OpCode::ReduceMax, {A(t, {4, 9})}, {{"dims", Ints{1}}, {"keepdim", true}}});
    c.push_back({n, OpCode::Transpose, {A(t, {2, 3, 4})}, {{"perm", Ints{0, 2, 1}}}});
    c.push_back({n, OpCode::Reshape, {A(t, {4, 6})}, {}, TensorType{t, {2, 3, 4}}});
    c.push_back({n, OpCode::Broadcast, {A(t, {3})}, {{"dims", Ints{1}}}, TensorType{t, {2, 3}}});
    c.push_back({n, OpCode::Constant, {}, {{"value", 0.1}}, TensorType{t, {2, 2}}});
    c.push_back({n, OpCode::Gather, {A(t, {6, 4}), I({2, 3}, 6)}, {{"axis", int64_t{0}}}});
    c.push_back({n, OpCode::ScatterAdd, {A(t, {6, 4}), I({5}, 6), A(t, {5, 4})}, {{"axis", int64_t{0}}}});
    // Summed in f32 in the reference kernel's order and rounded once
    // (compiler/half_accumulation.h): an inner axis, ~67 terms per element, NaN and inf.
    c.push_back({n + "_axis1_repeated", OpCode::ScatterAdd, {A(t, {3, 4, 5}), I({2, 6}, 4), A(t, {3, 2, 6, 5})},
                 {{"axis", int64_t{1}}}});
    c.push_back({n + "_many_terms", OpCode::ScatterAdd, {A(t, {3, 8}), I({200}, 3), A(t, {200, 8})}, {{"axis", int64_t{0}}}});
    c.push_back({n + "_special", OpCode::ScatterAdd, {A(t, {4, 3}, Fill::special), I({6}, 4), A(t, {6, 3}, Fill::special)},
                 {{"axis", int64_t{0}}}});
    c.push_back({n, OpCode::MaxPool2d, {A(t, {2, 3, 4, 4})}, pool});
    c.push_back({n, OpCode::MaxPool2dIndices, {A(t, {2, 3, 4, 4})}, pool});
    c.push_back({n, OpCode::MaxPool2dScatter, {A(t, {2, 3, 2, 2}), I({2, 3, 2, 2}, 16)}, pool, TensorType{t, {2, 3, 4, 4}}});
  }
}

std::vector<Case> cases() {
  std::vector<Case> c;
  auto name = [](DType t, const char* what) { return std::string(dtype_name(t)) + "_" + what; };
  for (DType t : {kF32, kF64}) {
    for (OpCode u : {OpCode::Neg, OpCode::Abs, OpCode::Tanh, OpCode::Erf, OpCode::Sqrt, OpCode::Rsqrt}) {
      const double ulps = u == OpCode::Tanh || u == OpCode::Erf ? 4 : 0;  // libmvec
      c.push_back({name(t, "special"), u, {A(t, {3, 17}, Fill::special)}, {}, {}, ulps});
      c.push_back({name(t, "scalar"), u, {A(t, {}, Fill::positive)}});
    }
    for (OpCode u : {OpCode::Tanh, OpCode::Erf}) c.push_back({name(t, "vector"), u, {A(t, {4, 33})}, {}, {}, 4});
    for (OpCode u : {OpCode::Exp, OpCode::Log, OpCode::Sin, OpCode::Cos, OpCode::Sigmoid}) {
      c.push_back({name(t, "vector"), u, {A(t, {4, 33}, u == OpCode::Log ? Fill::positive : Fill::uniform)}, {}, {}, 4});
      c.push_back({name(t, "special"), u, {A(t, {2, 9}, Fill::special)}, {}, {}, 4});
    }
    c.push_back({name(t, "underflow"), OpCode::Exp, {A(t, {3, 20}, Fill::underflow)}, {}, {}, 4});
    for (OpCode b : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Max, OpCode::Min}) {
      c.push_back({name(t, "same"), b, {A(t, {5, 7}, Fill::special), A(t, {5, 7}, Fill::special)}});
      c.push_back({name(t, "broadcast"), b, {A(t, {2, 1, 19}), A(t, {4, 1})}});
      c.push_back({name(t, "empty"), b, {A(t, {0, 3}), A(t, {3})}});
    }
    c.push_back({name(t, "broadcast"), OpCode::Pow, {A(t, {3, 8}, Fill::positive), A(t, {8})}, {}, {}, 4});
    for (const char* d : {"eq", "ne", "lt", "le", "gt", "ge"})
      c.push_back({name(t, d), OpCode::Compare, {A(t, {3, 5}, Fill::special), A(t, {5}, Fill::special)},
                   {{"direction", std::string(d)}}});
    c.push_back({name(t, "broadcast"), OpCode::Select, {A(kBool, {3, 1}, Fill::predicate), A(t, {3, 4}), A(t, {4})}});
    c.push_back({name(t, "keepdim"), OpCode::ReduceSum, {A(t, {3, 50, 2})}, {{"dims", Ints{1}}, {"keepdim", true}}, {}, 2});
    c.push_back({name(t, "all"), OpCode::ReduceSum, {A(t, {4, 6})}, {{"dims", Ints{0, 1}}}, {}, 2});
    c.push_back({name(t, "empty"), OpCode::ReduceSum, {A(t, {0, 6})}, {{"dims", Ints{0}}}});
    c.push_back({name(t, "special"), OpCode::ReduceMax, {A(t, {4, 9}, Fill::special)}, {{"dims", Ints{-1}}}});
    c.push_back({name(t, "outer"), OpCode::ReduceMin, {A(t, {5, 3}, Fill::special)}, {{"dims", Ints{0}}}});
    c.push_back({name(t, "zero_ties"), OpCode::ReduceMax, {A(t, {6, 40}, Fill::zeros_below)}, {{"dims", Ints{1}}}});
    c.push_back({name(t, "zero_ties"), OpCode::ReduceMin, {A(t, {6, 40}, Fill::zeros_above)}, {{"dims", Ints{1}}}});
    c.push_back({name(t, "special"), OpCode::Argmax, {A(t, {4, 9}, Fill::special)}, {{"axis", int64_t{1}}}});
    c.push_back({name(t, "outer"), OpCode::Argmax, {A(t, {6, 3})}, {{"axis", int64_t{0}}}});
    c.push_back({name(t, "shared"), OpCode::Dot, {A(t, {2, 3, 4}), A(t, {4, 5})}});
    c.push_back({name(t, "batched_transposed"), OpCode::Dot, {A(t, {2, 4, 3}), A(t, {2, 5, 4})},
                 {{"transpose_a", true}, {"transpose_b", true}}});
    c.push_back({name(t, ""), OpCode::Softmax, {A(t, {3, 40})}, {{"axis", int64_t{1}}}, {}, 4});
    c.push_back({name(t, ""), OpCode::LogSoftmax, {A(t, {5, 7})}, {{"axis", int64_t{0}}}, {}, 4});
    c.push_back({name(t, ""), OpCode::Relu, {A(t, {3, 9}, Fill::special)}});
    c.push_back({name(t, ""), OpCode::Silu, {A(t, {3, 9})}, {}, {}, 4});
    c.push_back({name(t, "none"), OpCode::Gelu, {A(t, {3, 9})}, {}, {}, 4});
    c.push_back({name(t, "tanh"), OpCode::Gelu, {A(t, {3, 9})}, {{"approximate", std::string("tanh")}}, {}, 4});
    c.push_back({name(t, ""), OpCode::LayerNorm, {A(t, {4, 24}), A(t, {24}), A(t, {24})}, {}, {}, 4});
    c.push_back({name(t, ""), OpCode::RmsNorm, {A(t, {4, 24}), A(t, {24})}, {}, {}, 4});
    c.push_back({name(t, "mean"), OpCode::CrossEntropy, {A(t, {2, 3, 10}), I({2, 3}, 10)}, {}, {}, 4});
    c.push_back({name(t, "sum"), OpCode::Mse, {A(t, {6, 5}), A(t, {6, 5})}, {{"reduction", std::string("sum")}}, {}, 2});
    c.push_back({name(t, "wide"), OpCode::Log1p, {A(t, {3, 9}, Fill::positive)}, {}, {}, 8});  // activations, losses: libmvec
    c.push_back({name(t, "special"), OpCode::LeakyRelu, {A(t, {3, 9}, Fill::special)}, {{"negative_slope", 0.2}}});
    c.push_back({name(t, "selu"), OpCode::Elu, {A(t, {3, 9}, Fill::wide)}, {{"alpha", 1.6732632423543772}, {"scale", 1.0507009873554805}}, {}, 8});
    c.push_back({name(t, "threshold"), OpCode::Softplus, {A(t, {3, 9}, Fill::wide)}, {{"beta", 2.0}, {"threshold", 3.0}}, {}, 8});
    c.push_back({name(t, ""), OpCode::Hardswish, {A(t, {3, 9}, Fill::wide)}});
    c.push_back({name(t, ""), OpCode::Mish, {A(t, {3, 9}, Fill::wide)}, {}, {}, 8});
    c.push_back({name(t, "inner"), OpCode::Cumsum, {A(t, {3, 7, 2})}, {{"axis", int64_t{1}}}, {}, 4});
    c.push_back({name(t, "weighted"), OpCode::NllLoss, {A(t, {6, 5}), I({6}, 5), A(t, {5}, Fill::positive)}, {{"ignore_index", int64_t{2}}}, {}, 4});
    c.push_back({name(t, "none"), OpCode::CrossEntropy, {A(t, {4, 5}), I({4}, 5)}, {{"reduction", std::string("none")}}, {}, 8});
    c.push_back({name(t, ""), OpCode::L1Loss, {A(t, {6, 5}), A(t, {6, 5})}, {}, {}, 2});
    c.push_back({name(t, "none"), OpCode::SmoothL1Loss, {A(t, {6, 5}), A(t, {6, 5})}, {{"reduction", std::string("none")}, {"beta", 0.5}}});
    c.push_back({name(t, "sum"), OpCode::HuberLoss, {A(t, {6, 5}), A(t, {6, 5})}, {{"reduction", std::string("sum")}, {"delta", 0.7}}, {}, 2});
    c.push_back({name(t, ""), OpCode::BinaryCrossEntropy, {A(t, {6, 5}, Fill::unit), A(t, {6, 5}, Fill::unit)}, {}, {}, 8});
    c.push_back({name(t, "pos_weight"), OpCode::BinaryCrossEntropyWithLogits, {A(t, {6, 5}, Fill::wide), A(t, {6, 5}, Fill::unit), A(t, {5}, Fill::positive)}, {}, {}, 8});
    c.push_back({name(t, "batchmean"), OpCode::KlDiv, {A(t, {6, 5}), A(t, {6, 5}, Fill::unit)}, {{"reduction", std::string("batchmean")}}, {}, 8});
    c.push_back({name(t, "log_target"), OpCode::KlDiv, {A(t, {6, 5}), A(t, {6, 5})}, {{"reduction", std::string("none")}, {"log_target", true}}, {}, 8});
    c.push_back({name(t, "margin"), OpCode::CosineEmbeddingLoss, {A(t, {6, 5}), A(t, {6, 5}), A(kI64, {6}, Fill::signs)}, {{"margin", 0.1}}, {}, 8});
  }
  for (DType t : {kI32, kI64}) {
    for (OpCode b : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Max, OpCode::Min, OpCode::Div})
      c.push_back({name(t, "broadcast"), b, {A(t, {3, 4}, Fill::small_ints), A(t, {4}, Fill::small_ints)}});
    c.push_back({name(t, ""), OpCode::Neg, {A(t, {7}, Fill::small_ints)}});
    c.push_back({name(t, ""), OpCode::Abs, {A(t, {7}, Fill::small_ints)}});
    c.push_back({name(t, "lt"), OpCode::Compare, {A(t, {3, 4}, Fill::small_ints), A(t, {1}, Fill::small_ints)},
                 {{"direction", std::string("lt")}}});
    c.push_back({name(t, ""), OpCode::ReduceSum, {A(t, {3, 4}, Fill::small_ints)}, {{"dims", Ints{1}}}});
    c.push_back({name(t, ""), OpCode::ReduceMax, {A(t, {3, 4}, Fill::small_ints)}, {{"dims", Ints{0}}}});
    c.push_back({name(t, ""), OpCode::Argmax, {A(t, {3, 4}, Fill::small_ints)}, {{"axis", int64_t{1}}}});
  }
  c.push_back({"bool_eq", OpCode::Compare, {A(kBool, {6}, Fill::predicate), A(kBool, {1}, Fill::predicate)},
               {{"direction", std::string("ge")}}});
  c.push_back({"bool", OpCode::Select, {A(kBool, {6}, Fill::predicate), A(kBool, {6}, Fill::predicate), A(kBool, {}, Fill::predicate)}});
  // Casts among every pair the fused loops handle, and float -> int (reference kernel).
  for (DType from : {kF32, kF64, kI32, kI64, kBool})
    for (DType to : {kF32, kF64, kI32, kI64, kBool}) {
      Fill f = from == kBool ? Fill::predicate : is_float(from) && !is_float(to) && to != kBool ? Fill::small_ints
                                                                                              : Fill::special;
      if (!is_float(from) && from != kBool) f = Fill::small_ints;
      c.push_back({std::string(dtype_name(from)) + "_to_" + std::string(dtype_name(to)), OpCode::Cast,
                   {A(from, {2, 5}, f)}, {}, TensorType{to, {2, 5}}});
    }
  c.push_back({"bf16", OpCode::Add, {A(DType::bf16, {3, 4}), A(DType::bf16, {4})}});
  c.push_back({"f16", OpCode::Exp, {A(DType::f16, {3, 4})}});
  c.push_back({"", OpCode::Broadcast, {A(kF32, {3, 1})}, {{"dims", Ints{0, 2}}}, TensorType{kF32, {3, 4, 5}}});
  c.push_back({"scalar", OpCode::Broadcast, {A(kI64, {}, Fill::small_ints)}, {{"dims", Ints{}}}, TensorType{kI64, {2, 3}}});
  c.push_back({"", OpCode::Reshape, {A(kF32, {4, 6})}, {}, TensorType{kF32, {2, 3, 4}}});
  c.push_back({"", OpCode::Transpose, {A(kF64, {2, 3, 4})}, {{"perm", Ints{2, 0, 1}}}});
  c.push_back({"strided", OpCode::Slice, {A(kF32, {7, 9})}, {{"start", Ints{1, 2}}, {"limit", Ints{7, 9}}, {"stride", Ints{2, 3}}}});
  c.push_back({"", OpCode::Concat, {A(kF32, {2, 3}), A(kF32, {2, 0}), A(kF32, {2, 2})}, {{"axis", int64_t{-1}}}});
  // A fusion op over (x, bias): sample_fusion_body, inlined before lowering.
  c.push_back({"f32", OpCode::Fusion, {A(kF32, {4, 5}), A(kF32, {5})}});
  c.push_back({"f64", OpCode::Fusion, {A(kF64, {2, 3, 2}), A(kF64, {2})}});
  c.push_back({"f32", OpCode::Split, {A(kF32, {3, 7})}, {{"axis", int64_t{-1}}, {"sizes", std::vector<int64_t>{2, 0, 5}}}});
  c.push_back({"i64_axis0", OpCode::Split, {A(kI64, {4, 2}, Fill::small_ints)}, {{"axis", int64_t{0}}, {"sizes", std::vector<int64_t>{1, 3}}}});
  c.push_back({"", OpCode::Pad, {A(kF32, {2, 3})}, {{"low", Ints{1, 0}}, {"high", Ints{2, 3}}, {"value", -1.5}}});
  c.push_back({"int", OpCode::Pad, {A(kI32, {3}, Fill::small_ints)}, {{"low", Ints{2}}, {"high", Ints{1}}, {"value", 7.0}}});
  c.push_back({"", OpCode::Iota, {}, {{"dim", int64_t{1}}}, TensorType{kF32, {3, 5}}});
  c.push_back({"i64", OpCode::Iota, {}, {{"dim", int64_t{0}}}, TensorType{kI64, {4, 2}}});
  c.push_back({"splat", OpCode::Constant, {}, {{"value", 0.1}}, TensorType{kF32, {3, 2}}});
  c.push_back({"dense", OpCode::Constant, {}, {{"value", std::vector<double>{1, 2, 3, 4, 5, 6}}}, TensorType{kF64, {2, 3}}});
  c.push_back({"", OpCode::Conv2d, {A(kF32, {2, 4, 7, 7}), A(kF32, {6, 2, 3, 3})},
               {{"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}, {"groups", int64_t{2}}}});
  c.push_back({"", OpCode::Conv2dInputGrad, {A(kF32, {2, 6, 4, 5}), A(kF32, {6, 2, 3, 3})},
               {{"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}, {"groups", int64_t{2}}},
               TensorType{kF32, {2, 4, 7, 7}}});
  c.push_back({"", OpCode::Conv2dWeightGrad, {A(kF32, {2, 4, 7, 7}), A(kF32, {2, 6, 4, 5})},
               {{"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}, {"groups", int64_t{2}}},
               TensorType{kF32, {6, 2, 3, 3}}});
  c.push_back({"f64_1x1", OpCode::Conv2d, {A(kF64, {1, 3, 4, 5}), A(kF64, {2, 3, 1, 1})}});
  const Attrs window = {{"kernel", Ints{3, 2}}, {"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}};
  Attrs fold_window = window;
  fold_window.set("output_size", Ints{6, 5});
  for (DType t : {kF32, kF64}) {
    c.push_back({name(t, "special"), OpCode::Unfold, {A(t, {2, 3, 6, 5}, Fill::special)}, window});
    c.push_back({name(t, "special"), OpCode::Fold, {A(t, {2, 18, 15}, Fill::special)}, fold_window});
  }
  c.push_back({"bf16", OpCode::Unfold, {A(DType::bf16, {1, 2, 4, 4})}, {{"kernel", Ints{2, 2}}}});
  c.push_back({"bf16", OpCode::Fold, {A(DType::bf16, {1, 8, 9})}, {{"kernel", Ints{2, 2}}, {"output_size", Ints{4, 4}}}});
  add_pool_cases(c);
  add_half_cases(c);
  c.push_back({"", OpCode::Gather, {A(kF32, {5, 3}), I({2, 2}, 5)}, {{"axis", int64_t{0}}}});
  c.push_back({"", OpCode::RandomUniform, {I({3, 5}, 1000), I({}, 7)}, {{"seed", int64_t{5}}, {"stream", int64_t{9}}}});
  c.push_back({"", OpCode::ScatterAdd, {A(kF32, {5, 3}), I({4}, 5), A(kF32, {4, 3})}, {{"axis", int64_t{0}}}});
  // Loop kernels (compiler/fusion.h): along inner axes, i32 indices, integer
  // tables, repeated indices (more indices than rows), a seed past 2^32 and
  // a stream past 2^31, steps per element.
  Arg i32_indices = I({2, 3}, 4);
  i32_indices.type.dtype = kI32;
  c.push_back({"axis1_i32", OpCode::Gather, {A(kF32, {3, 4, 5}), i32_indices}, {{"axis", int64_t{1}}}});
  c.push_back({"axis2", OpCode::Gather, {A(kI32, {3, 4, 5}, Fill::small_ints), I({7}, 5)}, {{"axis", int64_t{-1}}}});
  c.push_back({"axis1_repeated", OpCode::ScatterAdd, {A(kF64, {3, 4, 5}), I({2, 6}, 4), A(kF64, {3, 2, 6, 5})},
               {{"axis", int64_t{1}}}});
  c.push_back({"i64_last_axis", OpCode::ScatterAdd, {A(kI64, {3, 4}, Fill::small_ints), I({9}, 4), A(kI64, {3, 9}, Fill::small_ints)},
               {{"axis", int64_t{1}}}});
  c.push_back({"wide_seed", OpCode::RandomUniform, {I({4, 33}, int64_t{1} << 40), I({4, 1}, 1 << 20)},
               {{"seed", (int64_t{1} << 40) + 3}, {"stream", (int64_t{1} << 31) + 5}}});
  return c;
}

rt::Tensor random_tensor(const Arg& a, std::mt19937_64& rng) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double special[] = {0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 1e-30};
  const double underflow_f32[] = {-80, -87.5, -95, -100, -103.5, -103.96, -104, -104.5, -150, -inf};
  const double underflow_f64[] = {-700, -740, -745, -745.1, -745.2, -746, -746.5, -800, -1e6, -inf};
  std::uniform_real_distribution<double> u(-2, 2), p(0.25, 3);
  std::vector<double> v(static_cast<size_t>(num_elements(a.type.shape)));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (a.fill) {
      case Fill::uniform: v[i] = u(rng); break;
      case Fill::positive: v[i] = p(rng); break;
      case Fill::unit: v[i] = 0.05 + 0.225 * (u(rng) + 2); break;  // (0.05, 0.95): probabilities
      case Fill::signs: v[i] = std::array{1.0, -1.0, 1.0, 0.0}[rng() % 4]; break;  // cosine_embedding_loss's y
      case Fill::wide: v[i] = 4 * u(rng); break;  // every branch of hardswish and softplus
      case Fill::special: v[i] = i % 3 == 0 ? special[rng() % 8] : u(rng); break;
      case Fill::predicate: v[i] = rng() % 2; break;
      case Fill::indices: v[i] = static_cast<double>(rng() % a.bound); break;
      case Fill::small_ints: v[i] = static_cast<double>(static_cast<int64_t>(rng() % 11) - 5); break;
      case Fill::underflow: v[i] = (a.type.dtype == DType::f32 ? underflow_f32 : underflow_f64)[i % 10]; break;
      case Fill::zeros_below: v[i] = std::array{-0.0, 0.0, -1.0, -0.5}[rng() % 4]; break;
      case Fill::zeros_above: v[i] = std::array{-0.0, 0.0, 1.0, 0.5}[rng() % 4]; break;
      case Fill::minus_inf: v[i] = -inf; break;
      case Fill::half_edges: {
        static const double edges[] = {
            1 + 0x1p-8,  1 + 3 * 0x1p-8, -(1 + 0x1p-8),  1 + 0x1p-11, 1 + 3 * 0x1p-11, 0x1.8p-24, 0x1.4p-23,
            0x1p-25,     0x1.000002p-25, 0x1p-26,        65504,       65519.99,        65520,      -65520,
            0x1p-130,    -0x1p-149,      0x1.fffffep127, 3.3895e38,   nan,             -inf};
        v[i] = edges[i % 20] * (a.type.dtype == DType::f64 && i >= 20 ? 1 + 0x1p-40 : 1);
        break;
      }
    }
  }
  if (v.empty()) v.push_back(0);
  return rt::testing::make_tensor(a.type.dtype, a.type.shape, v);
}

// Expects equal tensors, or within c.ulps (see the file comment).
void expect_close(const rt::Tensor& want, const rt::Tensor& got, double ulps) {
  ASSERT_EQ(want.type(), got.type());
  std::vector<double> w = rt::testing::to_doubles(want), g = rt::testing::to_doubles(got);
  double scale = 0;
  for (double x : w)
    if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
  const double tol = ulps * mlc::testing::epsilon(want.dtype()) * scale;
  int reported = 0;
  for (size_t i = 0; i < w.size() && reported < 5; ++i) {
    bool ok = (std::isnan(w[i]) && std::isnan(g[i])) || w[i] == g[i] || std::fabs(w[i] - g[i]) <= tol;
    if (ulps == 0 && ok && w[i] == 0) ok = std::signbit(w[i]) == std::signbit(g[i]);
    if (!ok) {
      ++reported;
      ADD_FAILURE() << "element " << i << ": interpreter " << w[i] << ", compiled " << g[i] << " (tolerance " << tol << ")";
    }
  }
}

// Runs f interpreted and compiled as `options` say (the target, cuda's arch)
// on `inputs` and expects the results within `ulps`; a second compiled run
// over the same arena gives the same bits.
void expect_compiled_matches(const Function& f, std::vector<rt::Tensor> inputs, double ulps,
                             const LowerOptions& options = {}) {
  std::vector<rt::Tensor*> ptrs;
  for (rt::Tensor& t : inputs) ptrs.push_back(&t);

  auto interp = rt::Interpreter::create(f);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  auto want = interp->run(inputs);
  ASSERT_TRUE(want.ok()) << want.error().message;

  auto lowered = lower_function(f, options);
  ASSERT_TRUE(lowered.ok()) << lowered.error().message;
  auto exe = rt::Executor::create(lowered->executable);
  ASSERT_TRUE(exe.ok()) << exe.error().message;
  ASSERT_TRUE(exe->run(ptrs).ok());
  EXPECT_EQ(exe->arena_bytes(), lowered->plan.arena_bytes);
  ASSERT_EQ(want->size(), f.results.size());
  std::vector<rt::Tensor> first;
  for (size_t k = 0; k < f.results.size(); ++k) {
    SCOPED_TRACE("result " + std::to_string(k));
    const bool gpu_gemms = options.target == rt::kCudaTarget;  // f64 too: cuBLASLt's order, not OpenBLAS's
    if (mlc::testing::reordered_terms(*f.ops.back(), gpu_gemms) > 0)
      mlc::testing::expect_within_reordered_bound(*interp, *f.ops.back(), inputs, (*want)[k], exe->result(k),
                                                  gpu_gemms);
    else
      expect_close((*want)[k], exe->result(k), ulps);
    first.push_back(exe->result(k));
  }
  // A second run over the same arena gives the same bits.
  ASSERT_TRUE(exe->run(ptrs).ok());
  for (size_t k = 0; k < f.results.size(); ++k)
    EXPECT_EQ(std::memcmp(first[k].bytes(), exe->result(k).bytes(), static_cast<size_t>(first[k].num_bytes())), 0);
}

class Compiled : public ::testing::TestWithParam<Case> {};

TEST_P(Compiled, MatchesTheInterpreter) {
  const Case& c = GetParam();
  Module m = mlc::testing::one_op_module(c, "compiled_test");
  std::mt19937_64 rng(42);
  std::vector<rt::Tensor> inputs;
  for (const Arg& a : c.args) inputs.push_back(random_tensor(a, rng));
  expect_compiled_matches(*m.functions[0], std::move(inputs), c.ulps);
}

INSTANTIATE_TEST_SUITE_P(AllOps, Compiled, ::testing::ValuesIn(cases()), mlc::testing::case_name<Case>);

// The host device (runtime/host_gpu/): the GPU kernels' text run by OpenCL on
// this CPU, under the GPU schedules (compiler/gpu/gpu_schedule.h), GEMMs on
// the CPU's libraries. The tolerances are the CPU path's, except where a
// kernel calls exp, log, tanh, erf, sin, cos or pow: there the platform's
// functions (PoCL's here, CUDA's libdevice on a GPU) are not glibc's, and
// OpenCL 1.2 bounds them at 3-16 ulp (exp, log 3; sin, cos 4; tanh 5; erf,
// pow 16), so such cases get 16 (f32, f64; 1 for bf16 and f16, whose
// rounding hides it) where the CPU path's tolerance is smaller. Row
// reductions fold in a fixed tree (double partial sums), within the reordered
// bound the CPU suite already allows for sums.
bool calls_platform_math(const kir::Kernel& k) {
  for (const kir::Expr& e : k.exprs) {
    if (e.kind == kir::ExprKind::binary && e.op == OpCode::Pow) return true;
    if (e.kind != kir::ExprKind::unary) continue;
    switch (e.op) {
      case OpCode::Exp: case OpCode::Log: case OpCode::Tanh: case OpCode::Erf: case OpCode::Sin:
      case OpCode::Cos: case OpCode::Sigmoid: return true;
      default: break;
    }
  }
  return false;
}

class CompiledHostGpu : public ::testing::TestWithParam<Case> {};

// Case c lowered for `lo`'s GPU target against the interpreter, at the CPU
// path's tolerance widened where a kernel calls the platform's math (above).
void expect_gpu_case_matches(const Case& c, LowerOptions lo) {
  Module m = mlc::testing::one_op_module(c, "compiled_test");
  lo.compile_kernels = false;
  auto l = lower_function(*m.functions[0], lo);
  ASSERT_TRUE(l.ok()) << l.error().message;
  double ulps = c.ulps;
  for (const kir::Kernel& k : l->kernels)
    if (calls_platform_math(k)) ulps = std::max(ulps, is_half(m.functions[0]->results[0]->type.dtype) ? 1.0 : 16.0);
  std::mt19937_64 rng(42);
  std::vector<rt::Tensor> inputs;
  for (const Arg& a : c.args) inputs.push_back(random_tensor(a, rng));
  lo.compile_kernels = true;
  expect_compiled_matches(*m.functions[0], std::move(inputs), ulps, lo);
}

TEST_P(CompiledHostGpu, MatchesTheInterpreter) {
  if (!rt::find_target(rt::kHostGpuTarget)) GTEST_SKIP() << "this build has no host-gpu target (OpenCL was not found)";
  LowerOptions lo;
  lo.target = std::string(rt::kHostGpuTarget);
  expect_gpu_case_matches(GetParam(), lo);
}

INSTANTIATE_TEST_SUITE_P(AllOps, CompiledHostGpu, ::testing::ValuesIn(cases()), mlc::testing::case_name<Case>);

// The cuda target on this machine's GPU ($MLC_CUDA_DEVICE, default 0; ctest
// -L gpu): the same cases, kernels compiled by NVRTC for the GPU's
// architecture, GEMMs on cuBLASLt (f32 without TF32), each run copying its
// arguments to the GPU and its results back. Tolerances as the host device's:
// the kernel text is the same, and CUDA's libdevice is within OpenCL's
// bounds for exp, log, tanh, erf, sin, cos and pow; dots of every dtype,
// f64 too, within the reordered-sum bound. Skips without a GPU or NVRTC.
Expected<std::string> gpu_arch() {
  MLC_TRY(int ordinal, rt::cuda::cuda_device_ordinal());
  MLC_TRY(const rt::cuda::CudaDevice* gpu, rt::cuda::cuda_device(ordinal));
  if (!gpu::nvrtc_available()) return gpu::nvrtc_version().take_error();
  return gpu->arch();
}

class CompiledCuda : public ::testing::TestWithParam<Case> {};

TEST_P(CompiledCuda, MatchesTheInterpreter) {
  static const Expected<std::string> arch = gpu_arch();
  if (!arch.ok()) GTEST_SKIP() << arch.error().message;
  LowerOptions lo;
  lo.target = std::string(rt::kCudaTarget);
  lo.arch = *arch;
  expect_gpu_case_matches(GetParam(), lo);
}

INSTANTIATE_TEST_SUITE_P(AllOps, CompiledCuda, ::testing::ValuesIn(cases()), mlc::testing::case_name<Case>);

// bf16/f16 dots and convolutions accumulate in f32 and round once, as
// PyTorch's CPU bf16 matmul does: 1 + 256 terms of 2^-8 is 2, where a bf16
// running sum would stay at 1 (1 + 2^-8 rounds back to 1), and the same sum as
// a 1x1 convolution over 257 channels. Interpreter and compiled path alike.
TEST(CompiledHalf, DotAndConvAccumulateInF32) {
  for (DType t : {DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    std::vector<double> terms(257, 1.0 / 256);
    terms[0] = 1;
    const std::vector<double> ones(257, 1.0);
    for (OpCode code : {OpCode::Dot, OpCode::Conv2d}) {
      Module m;
      Function& f = m.add_function("f");
      const bool dot = code == OpCode::Dot;
      Value* a = f.add_arg("a", TensorType{t, dot ? Shape{1, 257} : Shape{1, 257, 1, 1}}, ArgKind::input);
      Value* b = f.add_arg("b", TensorType{t, dot ? Shape{257, 1} : Shape{1, 257, 1, 1}}, ArgKind::input);
      f.results.push_back(Builder(f).create(code, {a, b}));
      std::vector<rt::Tensor> in = {rt::testing::make_tensor(t, a->type.shape, terms),
                                    rt::testing::make_tensor(t, b->type.shape, ones)};
      auto interp = rt::Interpreter::create(f);
      ASSERT_TRUE(interp.ok()) << interp.error().message;
      auto want = interp->run(in);
      ASSERT_TRUE(want.ok()) << want.error().message;
      EXPECT_EQ(rt::testing::to_doubles((*want)[0]), std::vector<double>{2.0});
      expect_compiled_matches(f, std::move(in), 0);
    }
  }
}

// A bf16/f16 scatter_add sums in f32 and rounds once, as its reference
// kernel does: 1 + 256 updates of 2^-8 at one index is 2, where adding in the
// half dtype would stay at 1. Compiled as the f32 scatter_add loop kernel
// between casts (compiler/half_accumulation.h): no reference instruction, bit
// for bit the interpreter's.
TEST(CompiledHalf, ScatterAddAccumulatesInF32) {
  for (DType t : {DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Module m;
    Function& f = m.add_function("f");
    Value* operand = f.add_arg("operand", TensorType{t, {2, 3}}, ArgKind::input);
    Value* indices = f.add_arg("indices", TensorType{DType::i64, {256}}, ArgKind::input);
    Value* updates = f.add_arg("updates", TensorType{t, {256, 3}}, ArgKind::input);
    f.results.push_back(Builder(f).create(OpCode::ScatterAdd, {operand, indices, updates}, {{"axis", int64_t{0}}}));
    LowerOptions o;
    o.compile_kernels = false;
    auto l = lower_function(f, o);
    ASSERT_TRUE(l.ok()) << l.error().message;
    for (const rt::Instruction& ins : l->executable->instructions)
      EXPECT_NE(ins.kind, rt::InstrKind::reference) << ins.origin;
    std::vector<rt::Tensor> in = {rt::testing::make_tensor(t, {2, 3}, std::vector<double>(6, 1.0)),
                                  rt::testing::make_tensor(DType::i64, {256}, std::vector<double>(256, 1.0)),
                                  rt::testing::make_tensor(t, {256, 3}, std::vector<double>(768, 1.0 / 256))};
    auto interp = rt::Interpreter::create(f);
    ASSERT_TRUE(interp.ok()) << interp.error().message;
    auto want = interp->run(in);
    ASSERT_TRUE(want.ok()) << want.error().message;
    EXPECT_EQ(rt::testing::to_doubles((*want)[0]), (std::vector<double>{1, 1, 1, 2, 2, 2}));
    expect_compiled_matches(f, std::move(in), 0);
  }
}

// bf16 and f16 compile: a dot becomes a gemm instruction (oneDNN), the
// elementwise ops, a cast to f32 and a row reduction one loop kernel; no
// reference instruction.
TEST(CompiledHalf, LowersToKernelsAndGemms) {
  for (DType t : {DType::bf16, DType::f16}) {
    SCOPED_TRACE(std::string(dtype_name(t)));
    Module m;
    Function& f = m.add_function("f");
    Value* a = f.add_arg("a", TensorType{t, {4, 8}}, ArgKind::input);
    Value* w = f.add_arg("w", TensorType{t, {8, 16}}, ArgKind::input);
    Value* bias = f.add_arg("bias", TensorType{t, {16}}, ArgKind::input);
    Builder b(f);
    Value* y = b.unary(OpCode::Exp, b.add(b.create(OpCode::Dot, {a, w}), bias));
    f.results = {b.create(OpCode::ReduceSum, {b.create(OpCode::Cast, {y}, {}, TensorType{DType::f32, {4, 16}})},
                          {{"dims", Ints{1}}})};
    LowerOptions o;
    o.compile_kernels = false;
    auto l = lower_function(f, o);
    ASSERT_TRUE(l.ok()) << l.error().message;
    std::map<rt::InstrKind, int> kinds;
    for (const rt::Instruction& ins : l->executable->instructions) ++kinds[ins.kind];
    EXPECT_EQ(kinds, (std::map<rt::InstrKind, int>{{rt::InstrKind::kernel, 1}, {rt::InstrKind::gemm, 1}}));
    std::mt19937_64 rng(3);
    std::vector<rt::Tensor> inputs;
    for (const Value* v : f.args) inputs.push_back(random_tensor(A(t, v->type.shape), rng));
    // Each exp(y) within a bf16 rounding of the dot (its order) and one of
    // exp (libmvec): positive terms, so their f32 sum within 2 epsilon of the
    // dtype, relative.
    expect_compiled_matches(f, std::move(inputs), 2 * mlc::testing::epsilon(t) / mlc::testing::epsilon(DType::f32));
  }
}

TEST(CompiledCoverage, EveryOpHasACase) {
  std::set<OpCode> covered;
  for (const Case& c : cases()) covered.insert(c.code);
  for (const OpInfo& info : all_ops()) {
    if (uses_mesh_axis(info.code)) continue;  // on a mesh: tests/runtime/collective_run_test.cc
    if (info.code == OpCode::Call) continue;  // inlined before lowering (ir/inline_calls.h); tests/tools/custom_op_test.cc
    EXPECT_TRUE(covered.count(info.code)) << "no compiled-vs-interpreter case for " << info.name;
  }
}

// ---- pooling in loop kernels (compiler/fusion.h): the bias add and ReLU in
// front of max_pool2d join its kernel, an expensive producer joins only where
// windows do not overlap (it is then evaluated once per element), and the
// ReLU gradient takes max_pool2d_grad into its kernel. On small integers the
// fused arithmetic (add, max, compare, select, the max's selection, sums of a
// few integers) is exact in any order: tolerance 0.

Attrs pool_attrs(int64_t kernel, int64_t stride, int64_t padding) {
  return {{"kernel", Ints{kernel, kernel}}, {"stride", Ints{stride, stride}}, {"padding", Ints{padding, padding}}};
}

// Instructions of f's executable: {kernels, all others}.
std::pair<int, int> lowered_counts(const Function& f) {
  LowerOptions o;
  o.compile_kernels = false;
  auto l = lower_function(f, o);
  EXPECT_TRUE(l.ok()) << l.error().message;
  std::pair<int, int> c{0, 0};
  if (!l.ok()) return c;
  for (const rt::Instruction& ins : l->executable->instructions)
    ++(ins.kind == rt::InstrKind::kernel ? c.first : c.second);
  return c;
}

void expect_compiled_matches_on_integers(const Function& f) {
  std::mt19937_64 rng(7);
  std::vector<rt::Tensor> inputs;
  for (const Value* a : f.args) inputs.push_back(random_tensor(A(a->type.dtype, a->type.shape, Fill::small_ints), rng));
  expect_compiled_matches(f, std::move(inputs), 0);
}

// max_pool2d(producer(x + broadcast(b))) over f32[2,4,8,8].
Module pooled(OpCode producer, const Attrs& pool) {
  Module m;
  m.name = "compiled_test";
  Function& f = m.add_function("f");
  Value* x = f.add_arg("x", {kF32, {2, 4, 8, 8}}, ArgKind::input);
  Value* b = f.add_arg("b", {kF32, {4}}, ArgKind::input);
  Builder bld(f);
  Value* biased = bld.add(x, bld.create(OpCode::Broadcast, {b}, {{"dims", Ints{1}}}, TensorType{kF32, {2, 4, 8, 8}}));
  f.results = {bld.create(OpCode::MaxPool2d, {bld.unary(producer, biased)}, pool)};
  return m;
}

TEST(WindowFusion, BiasAndReluJoinMaxPool) {
  for (const Attrs& pool : {pool_attrs(2, 2, 0), pool_attrs(3, 1, 1), pool_attrs(3, 2, 1)}) {
    Module m = pooled(OpCode::Relu, pool);
    EXPECT_EQ(lowered_counts(*m.functions[0]), std::make_pair(1, 0));
    expect_compiled_matches_on_integers(*m.functions[0]);
  }
}

TEST(WindowFusion, AnExpensiveProducerJoinsOnlyWindowsApart) {
  Module apart = pooled(OpCode::Exp, pool_attrs(2, 2, 0));
  EXPECT_EQ(lowered_counts(*apart.functions[0]).first, 1);
  Module overlapping = pooled(OpCode::Exp, pool_attrs(3, 1, 1));
  EXPECT_EQ(lowered_counts(*overlapping.functions[0]).first, 2);
}

// relu's gradient through max_pool2d: select(r > 0, max_pool2d_grad(r, dy), 0).
TEST(WindowFusion, ReluGradTakesMaxPoolGrad) {
  for (const Attrs& pool : {pool_attrs(2, 2, 0), pool_attrs(3, 2, 1)}) {
    Module m;
    m.name = "compiled_test";
    Function& f = m.add_function("f");
    Value* r = f.add_arg("r", {kF32, {2, 3, 8, 8}}, ArgKind::input);
    Value* dy = f.add_arg("dy", {kF32, {2, 3, 4, 4}}, ArgKind::input);  // (8 + 2p - k) / s + 1 = 4 for both
    Builder b(f);
    Value* g = b.create(OpCode::MaxPool2dGrad, {r, dy}, pool);
    f.results = {b.select(b.compare(r, b.scalar(0.0, kF32), "gt"), g, b.scalar(0.0, kF32))};
    EXPECT_EQ(lowered_counts(f), std::make_pair(1, 0));
    expect_compiled_matches_on_integers(f);
  }
}

// What autodiff emits for max_pool2d: the forward's choices as indices and dy
// routed to them, which the ReLU gradient takes into its kernel (one kernel
// for the indices, one for the rest). On ties (small integers), all -inf
// windows and NaN it routes exactly as max_pool2d_grad, on either backend.
TEST(WindowFusion, ScatterRoutesTheForwardsChoices) {
  for (const Attrs& pool : {pool_attrs(2, 2, 0), pool_attrs(3, 2, 1), pool_attrs(3, 1, 1)}) {
    const int64_t out = pool.get_ints("stride")[0] == 1 ? 8 : 4;
    auto routed = [&](Builder& b, Value* r, Value* dy) {
      return b.create(OpCode::MaxPool2dScatter, {dy, b.create(OpCode::MaxPool2dIndices, {r}, pool)}, pool, r->type);
    };
    Module m;
    m.name = "compiled_test";
    Function& relu_grad = m.add_function("relu_grad");
    Value* r = relu_grad.add_arg("r", {kF32, {2, 3, 8, 8}}, ArgKind::input);
    Value* dy = relu_grad.add_arg("dy", {kF32, {2, 3, out, out}}, ArgKind::input);
    Builder b(relu_grad);
    relu_grad.results = {b.select(b.compare(r, b.scalar(0.0, kF32), "gt"), routed(b, r, dy), b.scalar(0.0, kF32))};
    EXPECT_EQ(lowered_counts(relu_grad), std::make_pair(2, 0));
    expect_compiled_matches_on_integers(relu_grad);

    Function& both = m.add_function("both");
    r = both.add_arg("r", {kF32, {2, 3, 8, 8}}, ArgKind::input);
    dy = both.add_arg("dy", {kF32, {2, 3, out, out}}, ArgKind::input);
    Builder bb(both);
    both.results = {routed(bb, r, dy), bb.create(OpCode::MaxPool2dGrad, {r, dy}, pool)};
    std::mt19937_64 rng(11);
    for (Fill fill : {Fill::small_ints, Fill::minus_inf, Fill::special}) {
      SCOPED_TRACE("fill " + std::to_string(static_cast<int>(fill)));
      std::vector<rt::Tensor> inputs = {random_tensor(A(kF32, r->type.shape, fill), rng),
                                        random_tensor(A(kF32, dy->type.shape, Fill::small_ints), rng)};
      auto interp = rt::Interpreter::create(both);
      ASSERT_TRUE(interp.ok()) << interp.error().message;
      auto got = interp->run(inputs);
      ASSERT_TRUE(got.ok()) << got.error().message;
      EXPECT_EQ(std::memcmp((*got)[0].bytes(), (*got)[1].bytes(), static_cast<size_t>((*got)[0].num_bytes())), 0);
      expect_compiled_matches(both, std::move(inputs), 0);
    }
  }
}

}  // namespace
}  // namespace mlc
