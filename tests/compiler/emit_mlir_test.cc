// `emit_mlir` (compiler/emit_mlir.h) against LLVM 19's MLIR tools: a one-op
// module for every op of the table, for the dtypes it accepts, with
// broadcasting, rank-0 and empty shapes, negative axes and NaN/inf/-0 inputs.
// Each case's MLIR must pass `mlir-opt-19 --verify-each`, and then, lowered
// to LLVM and run by mlir-cpu-runner-19 on the case's inputs, give the
// reference interpreter's result (bit for bit unless the case says otherwise;
// see `ulps`). A coverage test fails if an op of the table has no case; a
// golden test pins the text. The tools' paths come from CMake (find_program);
// without them these tests fail, saying to install mlir-19-tools.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include "compiler/emit_mlir.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/builder.h"
#include "ir/collectives.h"
#include "ir/op_table.h"
#include "runtime/interpreter.h"
#include "tests/compiler/op_case_util.h"
#include "tests/runtime/kernel_test_util.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using Ints = std::vector<int64_t>;

// ---- running the tools

struct ToolRun {
  int status = -1;
  std::string out, err;
};

std::filesystem::path scratch() { return mlc::testing::scratch_dir("mlc_emit_mlir"); }

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

ToolRun run(const std::string& cmd) {
  auto dir = scratch();
  std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  int raw = std::system((cmd + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, mlc::testing::slurp(out), mlc::testing::slurp(err)};
}

// "" if the tool is there, else what to do about it.
std::string missing(const char* path, const char* tool) {
  if (::access(path, X_OK) == 0) return "";
  return std::string(tool) + " not found (CMake found '" + path + "'): install mlir-19-tools (scripts/setup.sh does)";
}

// ---- cases

enum class Fill { uniform, positive, special, pairs, minus_inf, indices, small_ints, nonzero_ints, predicate, unit, signs };

using Arg = mlc::testing::OpArg<Fill>;
// ulps: 0 is bit-exact (NaN matches any NaN); otherwise the tolerance in
// units of the dtype's epsilon times the largest finite magnitude of the
// result, for results that a BLAS kernel (dot, convolutions) or a different
// order of f64 sums (the pooling and conv gradients) computes with other roundings.
using Case = mlc::testing::OpCase<Fill>;

Arg A(DType t, Shape s, Fill f = Fill::uniform) { return {{t, std::move(s)}, f, 0}; }
Arg I(DType t, Shape s, int64_t bound) { return {{t, std::move(s)}, Fill::indices, bound}; }

const DType kF32 = DType::f32, kF64 = DType::f64, kBF16 = DType::bf16, kF16 = DType::f16, kI32 = DType::i32,
            kI64 = DType::i64, kBool = DType::boolean;
const DType kFloats[] = {kF32, kF64, kBF16, kF16};

std::string dname(DType t) { return std::string(dtype_name(t)); }

std::vector<Case> cases() {
  std::vector<Case> c;
  auto add = [&](std::string label, OpCode code, std::vector<Arg> args, Attrs attrs = {},
                 std::optional<TensorType> declared = std::nullopt, double ulps = 0) {
    c.push_back({std::move(label), code, std::move(args), std::move(attrs), std::move(declared), ulps});
  };
  Attrs pool = {{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}};
  Attrs pool_exclude = pool;
  pool_exclude.set("count_include_pad", false);
  Attrs conv = {{"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}, {"groups", int64_t{2}}};
  for (DType t : kFloats) {
    const std::string n = dname(t);
    for (OpCode u : {OpCode::Neg, OpCode::Abs, OpCode::Exp, OpCode::Log, OpCode::Sqrt, OpCode::Rsqrt, OpCode::Tanh,
                     OpCode::Sigmoid, OpCode::Erf, OpCode::Sin, OpCode::Cos})
      add(n + "_special", u, {A(t, {3, 7}, Fill::special)});
    for (OpCode b : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Div, OpCode::Max, OpCode::Min, OpCode::Pow})
      add(n + "_pairs", b, {A(t, {25}, Fill::pairs), A(t, {25}, Fill::pairs)});
    add(n + "_broadcast", OpCode::Add, {A(t, {2, 1, 5}), A(t, {4, 1})});
    add(n + "_ge", OpCode::Compare, {A(t, {25}, Fill::pairs), A(t, {25}, Fill::pairs)}, {{"direction", std::string("ge")}});
    add(n, OpCode::Select, {A(kBool, {3, 1}, Fill::predicate), A(t, {3, 4}), A(t, {4}, Fill::special)});
    add(n + "_keepdim", OpCode::ReduceSum, {A(t, {3, 5, 2})}, {{"dims", Ints{1}}, {"keepdim", true}});
    add(n + "_special", OpCode::ReduceMax, {A(t, {4, 6}, Fill::special)}, {{"dims", Ints{-1}}});
    add(n + "_special", OpCode::ReduceMin, {A(t, {6, 4}, Fill::special)}, {{"dims", Ints{0}}});
    add(n + "_special", OpCode::Argmax, {A(t, {4, 6}, Fill::special)}, {{"axis", int64_t{1}}});
    add(n, OpCode::Dot, {A(t, {3, 4}), A(t, {4, 5})}, {}, {}, 4);
    add(n, OpCode::Conv2d, {A(t, {2, 4, 7, 7}), A(t, {6, 2, 3, 3})}, conv, {}, 4);
    add(n, OpCode::MaxPool2d, {A(t, {1, 2, 5, 5}, Fill::special)}, pool);
    add(n, OpCode::MaxPool2dIndices, {A(t, {1, 2, 5, 5}, Fill::special)}, pool);
    add(n, OpCode::AvgPool2d, {A(t, {1, 2, 5, 5})}, pool);
    add(n, OpCode::ScatterAdd, {A(t, {5, 3}), I(kI64, {4}, 5), A(t, {4, 3})}, {{"axis", int64_t{0}}});
    add(n, OpCode::Softmax, {A(t, {3, 6})}, {{"axis", int64_t{-1}}});
    add(n, OpCode::LayerNorm, {A(t, {4, 8}), A(t, {8}), A(t, {8})});
  }
  for (const char* d : {"eq", "ne", "lt", "le", "gt"})
    add(std::string("f32_") + d, OpCode::Compare, {A(kF32, {25}, Fill::pairs), A(kF32, {25}, Fill::pairs)},
        {{"direction", std::string(d)}});
  add("f32_scalar", OpCode::Exp, {A(kF32, {})});
  add("f32_empty", OpCode::Mul, {A(kF32, {0, 3}), A(kF32, {3})});
  add("f32_all", OpCode::ReduceSum, {A(kF32, {4, 6})}, {{"dims", Ints{0, 1}}});
  add("f32_all_keepdim", OpCode::ReduceMax, {A(kF32, {4, 6})}, {{"dims", Ints{1, 0}}, {"keepdim", true}});
  add("f32_empty", OpCode::ReduceSum, {A(kF32, {0, 6})}, {{"dims", Ints{0}}});
  add("f32_outer", OpCode::Argmax, {A(kF32, {6, 3})}, {{"axis", int64_t{0}}});
  add("f32_transpose_a", OpCode::Dot, {A(kF32, {4, 3}), A(kF32, {4, 5})}, {{"transpose_a", true}}, {}, 4);
  add("f32_transpose_b", OpCode::Dot, {A(kF32, {3, 4}), A(kF32, {5, 4})}, {{"transpose_b", true}}, {}, 4);
  add("f32_both", OpCode::Dot, {A(kF32, {4, 3}), A(kF32, {5, 4})}, {{"transpose_a", true}, {"transpose_b", true}}, {}, 4);
  add("f32_batched", OpCode::Dot, {A(kF32, {2, 3, 4}), A(kF32, {2, 4, 5})}, {}, {}, 4);
  add("f64_batched_transposed", OpCode::Dot, {A(kF64, {2, 4, 3}), A(kF64, {2, 5, 4})},
      {{"transpose_a", true}, {"transpose_b", true}}, {}, 4);
  add("f32_shared", OpCode::Dot, {A(kF32, {2, 3, 4}), A(kF32, {4, 5})}, {}, {}, 4);
  add("f32_rank4", OpCode::Dot, {A(kF32, {2, 2, 3, 4}), A(kF32, {2, 2, 5, 4})}, {{"transpose_b", true}}, {}, 4);
  add("f32_plain", OpCode::Conv2d, {A(kF32, {2, 3, 6, 6}), A(kF32, {4, 3, 3, 3})}, {}, {}, 4);
  for (DType t : {kF32, kF64, kBF16}) {
    add(dname(t), OpCode::Conv2dInputGrad, {A(t, {2, 6, 4, 5}), A(t, {6, 2, 3, 3})}, conv, TensorType{t, {2, 4, 7, 7}}, 4);
    add(dname(t), OpCode::Conv2dWeightGrad, {A(t, {2, 4, 7, 7}), A(t, {2, 6, 4, 5})}, conv, TensorType{t, {6, 2, 3, 3}}, 4);
    add(dname(t), OpCode::MaxPool2dGrad, {A(t, {1, 2, 5, 5}, Fill::special), A(t, {1, 2, 3, 3})}, pool, {}, 1);
    add(dname(t), OpCode::MaxPool2dScatter, {A(t, {1, 2, 3, 3}), I(kI64, {1, 2, 3, 3}, 25)}, pool,
        TensorType{t, {1, 2, 5, 5}}, 1);
    add(dname(t), OpCode::AvgPool2dGrad, {A(t, {1, 2, 3, 3})}, pool, TensorType{t, {1, 2, 5, 5}}, 1);
  }
  add("f32_unit_stride", OpCode::Conv2dInputGrad, {A(kF32, {1, 3, 5, 5}), A(kF32, {3, 2, 3, 3})},
      {{"padding", Ints{1, 1}}}, TensorType{kF32, {1, 2, 5, 5}}, 4);
  add("f32_ties", OpCode::MaxPool2dGrad, {A(kF32, {1, 1, 4, 4}, Fill::small_ints), A(kF32, {1, 1, 3, 3})},
      {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}, {}, 1);
  add("f32_all_minus_inf", OpCode::MaxPool2dGrad, {A(kF32, {1, 1, 4, 4}, Fill::minus_inf), A(kF32, {1, 1, 2, 2})},
      {{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}}, {}, 1);
  add("f32_nan_first", OpCode::MaxPool2dGrad, {A(kF32, {1, 2, 5, 5}, Fill::pairs), A(kF32, {1, 2, 3, 3})}, pool, {}, 1);
  add("f32_ties", OpCode::MaxPool2dIndices, {A(kF32, {1, 1, 4, 4}, Fill::small_ints)},
      {{"kernel", Ints{2, 2}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}});
  add("f32_all_minus_inf", OpCode::MaxPool2dIndices, {A(kF32, {1, 1, 4, 4}, Fill::minus_inf)},
      {{"kernel", Ints{3, 3}}, {"stride", Ints{2, 2}}, {"padding", Ints{1, 1}}});
  add("f32_nan_first", OpCode::MaxPool2dIndices, {A(kF32, {1, 2, 5, 5}, Fill::pairs)}, pool);
  add("f32_overlapping", OpCode::MaxPool2dScatter, {A(kF32, {1, 2, 5, 5}), I(kI64, {1, 2, 5, 5}, 25)},
      {{"kernel", Ints{3, 3}}, {"stride", Ints{1, 1}}, {"padding", Ints{1, 1}}}, TensorType{kF32, {1, 2, 5, 5}}, 1);
  for (DType t : {kF32, kBF16}) {
    add(dname(t) + "_nan_and_zeros", OpCode::Argmax, {A(t, {5, 6}, Fill::pairs)}, {{"axis", int64_t{1}}});
    add(dname(t) + "_nan_and_zeros", OpCode::ReduceMax, {A(t, {5, 6}, Fill::pairs)}, {{"dims", Ints{1}}});
    add(dname(t) + "_nan_and_zeros", OpCode::ReduceMin, {A(t, {6, 5}, Fill::pairs)}, {{"dims", Ints{0}}});
  }
  add("f32_exclude_pad", OpCode::AvgPool2d, {A(kF32, {1, 2, 5, 5})}, pool_exclude);
  add("f32_exclude_pad", OpCode::AvgPool2dGrad, {A(kF32, {1, 2, 3, 3})}, pool_exclude, TensorType{kF32, {1, 2, 5, 5}}, 1);
  const Attrs window = {{"kernel", Ints{3, 2}}, {"stride", Ints{2, 1}}, {"padding", Ints{1, 1}}, {"dilation", Ints{1, 2}}};
  Attrs fold_window = window;
  fold_window.set("output_size", Ints{6, 5});
  for (DType t : {kF32, kF64, kBF16}) {
    add(dname(t), OpCode::Unfold, {A(t, {2, 3, 6, 5}, Fill::special)}, window);
    add(dname(t), OpCode::Fold, {A(t, {2, 18, 15})}, fold_window);
  }
  add("f32_unit_stride", OpCode::Unfold, {A(kF32, {1, 2, 4, 4})}, {{"kernel", Ints{3, 3}}, {"padding", Ints{1, 1}}});
  add("f32_unit_stride", OpCode::Fold, {A(kF32, {1, 18, 16})},
      {{"output_size", Ints{4, 4}}, {"kernel", Ints{3, 3}}, {"padding", Ints{1, 1}}});
  add("f32", OpCode::Gather, {A(kF32, {5, 3}), I(kI64, {2, 2}, 5)}, {{"axis", int64_t{0}}});
  add("philox", OpCode::RandomUniform, {I(kI64, {3, 5}, 100000), I(kI64, {}, 1000)},
      {{"seed", int64_t{-3}}, {"stream", int64_t{4000000000}}});
  add("i64_axis1_i32_indices", OpCode::Gather, {A(kI64, {2, 4, 3}, Fill::small_ints), I(kI32, {3}, 4)}, {{"axis", int64_t{-2}}});
  add("bf16_scalar_index", OpCode::Gather, {A(kBF16, {4, 3}), I(kI64, {}, 3)}, {{"axis", int64_t{1}}});
  add("i32_axis1", OpCode::ScatterAdd, {A(kI32, {2, 4}, Fill::small_ints), I(kI32, {2, 3}, 4), A(kI32, {2, 2, 3}, Fill::small_ints)},
      {{"axis", int64_t{1}}});
  for (DType t : {kI32, kI64}) {
    const std::string n = dname(t);
    for (OpCode b : {OpCode::Add, OpCode::Sub, OpCode::Mul, OpCode::Max, OpCode::Min})
      add(n + "_broadcast", b, {A(t, {3, 4}, Fill::small_ints), A(t, {4}, Fill::small_ints)});
    add(n, OpCode::Div, {A(t, {3, 4}, Fill::small_ints), A(t, {4}, Fill::nonzero_ints)});
    add(n, OpCode::Neg, {A(t, {7}, Fill::small_ints)});
    add(n, OpCode::Abs, {A(t, {7}, Fill::small_ints)});
    add(n + "_lt", OpCode::Compare, {A(t, {3, 4}, Fill::small_ints), A(t, {1}, Fill::small_ints)}, {{"direction", std::string("lt")}});
    add(n, OpCode::ReduceSum, {A(t, {3, 4}, Fill::small_ints)}, {{"dims", Ints{1}}});
    add(n, OpCode::ReduceMax, {A(t, {3, 4}, Fill::small_ints)}, {{"dims", Ints{0}}});
    add(n, OpCode::ReduceMin, {A(t, {3, 4}, Fill::small_ints)}, {{"dims", Ints{0}}});
    add(n, OpCode::Argmax, {A(t, {3, 4}, Fill::small_ints)}, {{"axis", int64_t{1}}});
    add(n, OpCode::Select, {A(kBool, {3, 4}, Fill::predicate), A(t, {3, 4}, Fill::small_ints), A(t, {}, Fill::small_ints)});
  }
  add("i32_min_over_minus_one", OpCode::Div, {A(kI32, {2}, Fill::small_ints), A(kI32, {2}, Fill::nonzero_ints)});
  for (const char* d : {"lt", "ge", "eq"})
    add(std::string("bool_") + d, OpCode::Compare, {A(kBool, {6}, Fill::predicate), A(kBool, {6}, Fill::predicate)},
        {{"direction", std::string(d)}});
  add("bool", OpCode::Select, {A(kBool, {6}, Fill::predicate), A(kBool, {6}, Fill::predicate), A(kBool, {}, Fill::predicate)});
  const DType all[] = {kF32, kF64, kBF16, kF16, kI32, kI64, kBool};
  for (DType from : all)
    for (DType to : all) {
      Fill f = from == kBool ? Fill::predicate : !is_float(from) || (!is_float(to) && to != kBool) ? Fill::small_ints
                                                                                                 : Fill::special;
      add(dname(from) + "_to_" + dname(to), OpCode::Cast, {A(from, {2, 5}, f)}, {}, TensorType{to, {2, 5}});
    }
  add("f32", OpCode::Broadcast, {A(kF32, {3, 1})}, {{"dims", Ints{0, 2}}}, TensorType{kF32, {3, 4, 5}});
  add("i64_scalar", OpCode::Broadcast, {A(kI64, {}, Fill::small_ints)}, {{"dims", Ints{}}}, TensorType{kI64, {2, 3}});
  add("bool_keep_unit", OpCode::Broadcast, {A(kBool, {1, 3}, Fill::predicate)}, {{"dims", Ints{0, 2}}}, TensorType{kBool, {1, 2, 3}});
  add("split", OpCode::Reshape, {A(kF32, {4, 6})}, {}, TensorType{kF32, {2, 2, 3, 2}});
  add("merge", OpCode::Reshape, {A(kBF16, {2, 3, 4})}, {}, TensorType{kBF16, {6, 4}});
  add("regroup", OpCode::Reshape, {A(kI32, {4, 6}, Fill::small_ints)}, {}, TensorType{kI32, {3, 8}});
  add("to_scalar", OpCode::Reshape, {A(kF64, {1, 1})}, {}, TensorType{kF64, {}});
  add("from_scalar", OpCode::Reshape, {A(kF32, {})}, {}, TensorType{kF32, {1, 1, 1}});
  add("empty", OpCode::Reshape, {A(kF32, {0, 3})}, {}, TensorType{kF32, {3, 0}});
  add("f64", OpCode::Transpose, {A(kF64, {2, 3, 4})}, {{"perm", Ints{2, 0, 1}}});
  add("bool_identity", OpCode::Transpose, {A(kBool, {2, 3}, Fill::predicate)}, {{"perm", Ints{0, 1}}});
  add("strided", OpCode::Slice, {A(kF32, {7, 9})}, {{"start", Ints{1, 2}}, {"limit", Ints{7, 9}}, {"stride", Ints{2, 3}}});
  add("f16_empty", OpCode::Slice, {A(kF16, {4, 3})}, {{"start", Ints{2, 0}}, {"limit", Ints{2, 3}}, {"stride", Ints{1, 1}}});
  add("f32", OpCode::Concat, {A(kF32, {2, 3}), A(kF32, {2, 0}), A(kF32, {2, 2})}, {{"axis", int64_t{-1}}});
  add("i64_axis0", OpCode::Concat, {A(kI64, {1, 2}, Fill::small_ints), A(kI64, {3, 2}, Fill::small_ints)}, {{"axis", int64_t{0}}});
  add("f32", OpCode::Fusion, {A(kF32, {4, 5}), A(kF32, {5})});
  add("f32", OpCode::Split, {A(kF32, {3, 7})}, {{"axis", int64_t{-1}}, {"sizes", Ints{2, 0, 5}}});
  add("i64_axis0", OpCode::Split, {A(kI64, {4, 2}, Fill::small_ints)}, {{"axis", int64_t{0}}, {"sizes", Ints{1, 3}}});
  add("f32", OpCode::Pad, {A(kF32, {2, 3})}, {{"low", Ints{1, 0}}, {"high", Ints{2, 3}}, {"value", -1.5}});
  add("i32", OpCode::Pad, {A(kI32, {3}, Fill::small_ints)}, {{"low", Ints{2}}, {"high", Ints{1}}, {"value", 7.0}});
  add("bf16_inf", OpCode::Pad, {A(kBF16, {2, 2})}, {{"low", Ints{1, 1}}, {"high", Ints{0, 1}},
                                                     {"value", -std::numeric_limits<double>::infinity()}});
  add("f32", OpCode::Iota, {}, {{"dim", int64_t{1}}}, TensorType{kF32, {3, 5}});
  add("i32", OpCode::Iota, {}, {{"dim", int64_t{0}}}, TensorType{kI32, {4, 2}});
  add("bf16", OpCode::Iota, {}, {{"dim", int64_t{0}}}, TensorType{kBF16, {300}});
  add("f32_splat", OpCode::Constant, {}, {{"value", 0.1}}, TensorType{kF32, {3, 2}});
  add("f64_dense", OpCode::Constant, {}, {{"value", std::vector<double>{1, 2.5, -0.0, 1e300, 5e-324, -7}}}, TensorType{kF64, {2, 3}});
  add("bf16_dense", OpCode::Constant, {}, {{"value", std::vector<double>{0.1, 1e39, std::nan(""), -1e-40}}}, TensorType{kBF16, {2, 2}});
  add("f16_splat", OpCode::Constant, {}, {{"value", 65520.0}}, TensorType{kF16, {2}});
  add("i32_wrap", OpCode::Constant, {}, {{"value", std::vector<int64_t>{int64_t{1} << 32, -1, 3}}}, TensorType{kI32, {3}});
  add("bool_ints", OpCode::Constant, {}, {{"value", std::vector<int64_t>{0, 2}}}, TensorType{kBool, {2}});
  add("f32_int_scalar", OpCode::Constant, {}, {{"value", int64_t{16777217}}}, TensorType{kF32, {}});
  add("f32_empty", OpCode::Constant, {}, {{"value", std::vector<double>{}}}, TensorType{kF32, {0, 2}});
  add("f32", OpCode::Relu, {A(kF32, {3, 9}, Fill::special)});
  add("f32", OpCode::Silu, {A(kF32, {3, 9})});
  add("f32_none", OpCode::Gelu, {A(kF32, {3, 9})});
  add("f64_tanh", OpCode::Gelu, {A(kF64, {3, 9})}, {{"approximate", std::string("tanh")}});
  add("f32", OpCode::LogSoftmax, {A(kF32, {5, 7})}, {{"axis", int64_t{0}}});
  add("f32", OpCode::RmsNorm, {A(kF32, {4, 8}), A(kF32, {8})});
  add("f32_mean", OpCode::CrossEntropy, {A(kF32, {2, 3, 10}), I(kI64, {2, 3}, 10)});
  add("bf16_sum", OpCode::CrossEntropy, {A(kBF16, {4, 5}), I(kI32, {4}, 5)}, {{"reduction", std::string("sum")}});
  add("f32_sum", OpCode::Mse, {A(kF32, {6, 5}), A(kF32, {6, 5})}, {{"reduction", std::string("sum")}});
  add("f32", OpCode::Log1p, {A(kF32, {3, 9}, Fill::positive)});
  add("f32", OpCode::LeakyRelu, {A(kF32, {3, 9}, Fill::special)});
  add("f64", OpCode::Elu, {A(kF64, {3, 9})}, {{"alpha", 0.5}});
  add("f32", OpCode::Softplus, {A(kF32, {3, 9})}, {{"beta", 2.0}, {"threshold", 1.0}});
  add("f32", OpCode::Hardswish, {A(kF32, {3, 9})});
  add("f32", OpCode::Mish, {A(kF32, {3, 9})});
  add("f32", OpCode::Cumsum, {A(kF32, {3, 7})}, {{"axis", int64_t{1}}});
  add("f32_weighted", OpCode::NllLoss, {A(kF32, {6, 5}), I(kI64, {6}, 5), A(kF32, {5}, Fill::positive)});
  add("f32", OpCode::L1Loss, {A(kF32, {6, 5}), A(kF32, {6, 5})});
  add("f32", OpCode::SmoothL1Loss, {A(kF32, {6, 5}), A(kF32, {6, 5})}, {{"beta", 0.5}});
  add("f32", OpCode::HuberLoss, {A(kF32, {6, 5}), A(kF32, {6, 5})}, {{"reduction", std::string("none")}});
  add("f32", OpCode::BinaryCrossEntropy, {A(kF32, {6, 5}, Fill::unit), A(kF32, {6, 5}, Fill::unit)});
  add("f32", OpCode::BinaryCrossEntropyWithLogits, {A(kF32, {6, 5}), A(kF32, {6, 5}, Fill::unit)});
  add("f32", OpCode::KlDiv, {A(kF32, {6, 5}), A(kF32, {6, 5}, Fill::unit)}, {{"reduction", std::string("batchmean")}});
  add("f32", OpCode::CosineEmbeddingLoss, {A(kF32, {6, 5}), A(kF32, {6, 5}), A(kI64, {6}, Fill::signs)});
  return c;
}

rt::Tensor input(const Arg& a, size_t arg_index, std::mt19937_64& rng) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double special[] = {0.0, -0.0, inf, -inf, nan, 1.0, -1.0, 1e-30, 0.5, 2.0};
  const double pair_values[] = {0.0, -0.0, nan, 1.5, -inf};  // every pair of these, for ties and NaN order
  std::uniform_real_distribution<double> u(-2, 2), p(0.25, 3);
  std::vector<double> v(static_cast<size_t>(std::max<int64_t>(1, num_elements(a.type.shape))));
  for (size_t i = 0; i < v.size(); ++i) {
    switch (a.fill) {
      case Fill::uniform: v[i] = u(rng); break;
      case Fill::positive: v[i] = p(rng); break;
      case Fill::unit: v[i] = 0.05 + 0.225 * (u(rng) + 2); break;  // (0.05, 0.95): probabilities
      case Fill::signs: v[i] = std::array{1.0, -1.0, 1.0, 0.0}[rng() % 4]; break;
      case Fill::special: v[i] = i % 2 == 0 ? special[rng() % 10] : u(rng); break;
      case Fill::pairs: v[i] = pair_values[(arg_index == 0 ? i : i / 5) % 5]; break;
      case Fill::minus_inf: v[i] = -inf; break;
      case Fill::indices: v[i] = static_cast<double>(rng() % static_cast<uint64_t>(a.bound)); break;
      case Fill::small_ints: v[i] = static_cast<double>(static_cast<int64_t>(rng() % 11) - 5); break;
      case Fill::nonzero_ints: v[i] = static_cast<double>(static_cast<int64_t>(rng() % 5) - 2); if (v[i] == 0) v[i] = -1; break;
      case Fill::predicate: v[i] = static_cast<double>(rng() % 2); break;
    }
  }
  rt::Tensor t = rt::testing::make_tensor(a.type.dtype, a.type.shape, v);
  if (a.type.dtype == kI32 && a.fill == Fill::small_ints && a.type.num_elements() >= 1)
    t.data<int32_t>()[0] = std::numeric_limits<int32_t>::min();  // INT_MIN / -1 and friends wrap
  return t;
}

// ---- the harness: @main calls @f on the inputs and counts the elements that
// differ from the interpreter's result

std::string bits_hex(uint64_t bits, int bytes) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%0*llX", bytes * 2, static_cast<unsigned long long>(bits));
  return buf;
}

// dense<...> of the tensor's exact elements (floats as bit patterns).
std::string dense(const rt::Tensor& t) {
  if (t.num_elements() == 0) return "dense<>";
  std::vector<std::string> elems;
  const int size = dtype_size(t.dtype());
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, t.bytes() + i * size, static_cast<size_t>(size));
    switch (t.dtype()) {
      case DType::boolean: elems.push_back(bits ? "true" : "false"); break;
      case DType::i32: elems.push_back(std::to_string(t.data<int32_t>()[i])); break;
      case DType::i64: elems.push_back(std::to_string(t.data<int64_t>()[i])); break;
      default: elems.push_back(bits_hex(bits, size)); break;
    }
  }
  size_t next = 0;
  std::function<std::string(size_t)> nest = [&](size_t d) -> std::string {
    if (d == t.shape().size()) return elems[next++];
    std::string s = "[";
    for (int64_t i = 0; i < t.shape()[d]; ++i) s += (i ? ", " : "") + nest(d + 1);
    return s + "]";
  };
  return "dense<" + nest(0) + ">";
}

// The body of a linalg.generic that counts the elements of %got that differ
// from %want: bitwise (NaN matching any NaN), or within `tol` when tol > 0.
std::string count_mismatches(const TensorType& rt, double tol) {
  const std::string elem = mlir_type(rt.dtype);
  std::string s = "    ^bb0(%g: " + elem + ", %w: " + elem + ", %c: i64):\n";
  if (is_float(rt.dtype)) {
    const std::string ibits = "i" + std::to_string(dtype_size(rt.dtype) * 8);
    s += "      %gn = arith.cmpf uno, %g, %g : " + elem + "\n      %wn = arith.cmpf uno, %w, %w : " + elem + "\n";
    s += "      %nans = arith.andi %gn, %wn : i1\n";
    s += "      %gb = arith.bitcast %g : " + elem + " to " + ibits + "\n      %wb = arith.bitcast %w : " + elem + " to " + ibits + "\n";
    s += "      %same = arith.cmpi eq, %gb, %wb : " + ibits + "\n      %exact = arith.ori %nans, %same : i1\n";
    if (tol > 0) {
      if (rt.dtype != kF64)
        s += "      %gd = arith.extf %g : " + elem + " to f64\n      %wd = arith.extf %w : " + elem + " to f64\n";
      const std::string g = rt.dtype == kF64 ? "%g" : "%gd", w = rt.dtype == kF64 ? "%w" : "%wd";
      char lit[64];
      std::snprintf(lit, sizeof lit, "%.17e", tol);
      s += "      %diff = arith.subf " + g + ", " + w + " : f64\n      %ad = math.absf %diff : f64\n";
      s += std::string("      %tol = arith.constant ") + lit + " : f64\n";
      s += "      %close = arith.cmpf ole, %ad, %tol : f64\n      %ok = arith.ori %exact, %close : i1\n";
    } else {
      s += "      %ok = arith.ori %exact, %exact : i1\n";
    }
  } else {
    s += "      %ok = arith.cmpi eq, %g, %w : " + elem + "\n";
  }
  s += "      %true = arith.constant true\n      %bad = arith.xori %ok, %true : i1\n";
  s += "      %b = arith.extui %bad : i1 to i64\n      %sum = arith.addi %c, %b : i64\n      linalg.yield %sum : i64\n";
  return s;
}

// One call of the harness: @f on `inputs` should give `wants`.
struct Call {
  std::string f;
  std::vector<rt::Tensor> inputs, wants;
};

// @main: makes each call and returns how many elements of the results differ
// from the wanted ones, in all (see Case::ulps for `ulps`).
std::string harness_main(const std::vector<Call>& calls, double ulps) {
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
    return out;
  };
  std::string s = "  func.func @main() -> i64 {\n";
  s += "    %zero = arith.constant 0 : i64\n    %e = tensor.empty() : tensor<i64>\n";
  std::string total = "%zero";
  for (size_t j = 0; j < calls.size(); ++j) {
    const Call& call = calls[j];
    const std::string p = "%c" + std::to_string(j) + "_";
    std::vector<std::string> names, types, result_types;
    for (size_t i = 0; i < call.inputs.size(); ++i) {
      names.push_back(p + "in" + std::to_string(i));
      types.push_back(mlir_type(call.inputs[i].type()));
      s += "    " + names.back() + " = arith.constant " + dense(call.inputs[i]) + " : " + types.back() + "\n";
    }
    for (const rt::Tensor& w : call.wants) result_types.push_back(mlir_type(w.type()));
    s += "    " + p + "got:" + std::to_string(call.wants.size()) + " = func.call @" + call.f + "(" + join(names) +
         ") : (" + join(types) + ") -> (" + join(result_types) + ")\n";
    for (size_t k = 0; k < call.wants.size(); ++k) {
      const TensorType& rt = call.wants[k].type();
      const std::string n = p + std::to_string(k), rtype = result_types[k];
      double tol = 0;
      if (ulps > 0) {
        double scale = 0;
        for (double x : rt::testing::to_doubles(call.wants[k]))
          if (std::isfinite(x)) scale = std::max(scale, std::fabs(x));
        tol = ulps * mlc::testing::epsilon(rt.dtype) * scale;
      }
      std::string dims, iters;
      for (size_t d = 0; d < rt.shape.size(); ++d) {
        dims += (d ? ", d" : "d") + std::to_string(d);
        iters += std::string(d ? ", " : "") + "\"reduction\"";
      }
      const std::string id = "affine_map<(" + dims + ") -> (" + dims + ")>", to0 = "affine_map<(" + dims + ") -> ()>";
      s += "    " + n + "want = arith.constant " + dense(call.wants[k]) + " : " + rtype + "\n";
      s += "    " + n + "init = linalg.fill ins(%zero : i64) outs(%e : tensor<i64>) -> tensor<i64>\n";
      s += "    " + n + "bad = linalg.generic {indexing_maps = [" + id + ", " + id + ", " + to0 + "], iterator_types = [" +
           iters + "]} ins(" + p + "got#" + std::to_string(k) + ", " + n + "want : " + rtype + ", " + rtype + ") outs(" +
           n + "init : tensor<i64>) {\n" + count_mismatches(rt, tol) + "    } -> tensor<i64>\n";
      s += "    " + n + "count = tensor.extract " + n + "bad[] : tensor<i64>\n";
      s += "    " + n + "total = arith.addi " + total + ", " + n + "count : i64\n";
      total = n + "total";
    }
  }
  return s + "    return " + total + " : i64\n  }\n";
}

const char* kLowering =
    "--one-shot-bufferize=bufferize-function-boundaries --convert-linalg-to-loops --convert-scf-to-cf "
    "--expand-strided-metadata --lower-affine --finalize-memref-to-llvm --convert-math-to-llvm "
    "--convert-math-to-libm --convert-arith-to-llvm --convert-func-to-llvm --convert-cf-to-llvm "
    "--reconcile-unrealized-casts";

// Appends @main (harness_main) to the emitted module, lowers it to LLVM,
// runs it and returns mlir-cpu-runner's output: the number of elements that
// differ, "0\n" when all agree.
std::string run_against(const std::string& mlir, const std::vector<Call>& calls, double ulps) {
  std::string harness = mlir;
  harness.erase(harness.rfind("}\n"));  // the module's closing brace
  harness += "\n" + harness_main(calls, ulps) + "}\n";
  auto dir = scratch();
  write(dir / "harness.mlir", harness);
  ToolRun lower = run(std::string(MLC_MLIR_OPT) + " " + kLowering + " " + (dir / "harness.mlir").string() + " -o " +
                      (dir / "lowered.mlir").string());
  if (lower.status != 0) return "lowering failed: " + lower.err;
  ToolRun exec = run(std::string(MLC_MLIR_CPU_RUNNER) + " -e main -entry-point-result=i64 --shared-libs=" +
                     MLC_MLIR_RUNNER_STUBS + " " + (dir / "lowered.mlir").string());
  if (exec.status != 0) return "mlir-cpu-runner failed: " + exec.err;
  return exec.out;
}

// The MLIR of `m` passes mlir-opt --verify-each; returns it.
std::string verified_mlir(const Module& m) {
  auto text = emit_mlir(m);
  if (!text.ok()) {
    ADD_FAILURE() << text.error().message;
    return "";
  }
  auto dir = scratch();
  write(dir / "module.mlir", *text);
  ToolRun verify = run(std::string(MLC_MLIR_OPT) + " --verify-each " + (dir / "module.mlir").string());
  EXPECT_EQ(verify.status, 0) << verify.err << "\n" << *text;
  return *text;
}

class EmitMlir : public ::testing::TestWithParam<Case> {};

TEST_P(EmitMlir, VerifiesAndMatchesTheInterpreter) {
  ASSERT_EQ(missing(MLC_MLIR_OPT, "mlir-opt-19"), "");
  ASSERT_EQ(missing(MLC_MLIR_CPU_RUNNER, "mlir-cpu-runner-19"), "");
  const Case& c = GetParam();
  Module m = mlc::testing::one_op_module(c, "emit_mlir_test");
  std::string mlir = verified_mlir(m);
  ASSERT_FALSE(HasFailure());

  std::mt19937_64 rng(7);
  std::vector<rt::Tensor> inputs;
  for (size_t i = 0; i < c.args.size(); ++i) inputs.push_back(input(c.args[i], i, rng));
  auto interp = rt::Interpreter::create(*m.functions[0]);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  auto want = interp->run(inputs);
  ASSERT_TRUE(want.ok()) << want.error().message;
  EXPECT_EQ(run_against(mlir, {{"f", inputs, *want}}, c.ulps), "0\n")
      << "elements that differ from the interpreter's, of " << (*want)[0].num_elements();
}

INSTANTIATE_TEST_SUITE_P(AllOps, EmitMlir, ::testing::ValuesIn(cases()), mlc::testing::case_name<Case>);

// Whole functions of the examples after the pipeline, at batch 2, on random
// inputs: the loss, the evaluation, the gradients and the train step (every
// result: loss, updated parameters and optimizer state). Tolerance: 2^10 f32
// epsilons of each result's magnitude; only the contractions' summation
// order (BLAS against loops) differs.
class EmitMlirExample : public ::testing::TestWithParam<std::string> {};

TEST_P(EmitMlirExample, FunctionsMatchTheInterpreter) {
  ASSERT_EQ(missing(MLC_MLIR_OPT, "mlir-opt-19"), "");
  ASSERT_EQ(missing(MLC_MLIR_CPU_RUNNER, "mlir-cpu-runner-19"), "");
  auto model = ModelFile::load("examples/" + GetParam() + ".json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto module = model->build(2);
  ASSERT_TRUE(module.ok()) << module.error().message;
  PassPipelineOptions options;
  options.optimizer = model->config().train.optimizer;
  ASSERT_TRUE(run_pass_pipeline(*module, options).ok());
  std::string mlir = verified_mlir(*module);
  ASSERT_FALSE(HasFailure());
  std::vector<Call> calls;
  std::string names;
  for (const auto& f : module->functions) {
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> u(-0.3, 0.3), positive(0.01, 0.5);
    Call call{f->name, {}, {}};
    for (size_t i = 0; i < f->args.size(); ++i) {
      const TensorType& t = f->args[i]->type;
      std::vector<double> v(static_cast<size_t>(std::max<int64_t>(1, t.num_elements())));
      for (double& x : v) {
        if (!is_float(t.dtype)) x = static_cast<double>(rng() % 10);  // classes, tokens, the step
        else x = f->arg_kinds[i] == ArgKind::state ? positive(rng) : u(rng);  // Adam's second moments are >= 0
      }
      call.inputs.push_back(rt::testing::make_tensor(t.dtype, t.shape, v));
    }
    auto interp = rt::Interpreter::create(*f);
    ASSERT_TRUE(interp.ok()) << interp.error().message;
    auto want = interp->run(call.inputs);
    ASSERT_TRUE(want.ok()) << want.error().message;
    call.wants = std::move(*want);
    calls.push_back(std::move(call));
    names += " @" + f->name;
  }
  EXPECT_EQ(run_against(mlir, calls, 1024), "0\n") << "elements that differ, over" << names;
}

INSTANTIATE_TEST_SUITE_P(Examples, EmitMlirExample, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt"));

TEST(EmitMlirCoverage, EveryOpHasACase) {
  std::set<OpCode> covered;
  for (const Case& c : cases()) covered.insert(c.code);
  for (const OpInfo& info : all_ops()) {
    if (uses_mesh_axis(info.code)) continue;  // EmitMlirText.CollectivesHaveNoUpstreamForm
    if (info.code == OpCode::Call) continue;  // inlined before lowering (ir/inline_calls.h); tests/tools/custom_op_test.cc
    EXPECT_TRUE(covered.count(info.code)) << "no emit_mlir case for " << info.name;
  }
}

TEST(EmitMlirText, CollectivesHaveNoUpstreamForm) {
  Module m;
  m.name = "sharded";
  m.set_mesh(*Mesh::parse("dp=2"));
  Function& f = m.add_function("f");
  Value* x = f.add_arg("x", {DType::f32, {4}}, ArgKind::input);
  Builder b(f);
  f.results.push_back(b.create(OpCode::AllReduce, {x}, {{"mesh_axis", std::string("dp")}}));
  auto text = emit_mlir(m);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message, "error: emit mlir: @f op #0: all_reduce has no MLIR form");
}

// ---- the text itself

TEST(EmitMlirText, GoldenModule) {
  Module m;
  m.name = "tiny";
  m.attrs.set("target", std::string("cpu"));
  Function& f = m.add_function("step");
  Value* x = f.add_arg("x", {kBF16, {2, 3}}, ArgKind::input);
  Value* w = f.add_arg("w.bias", {kBF16, {3}}, ArgKind::param);
  Builder b(f);
  b.set_loc({"model.json", 4, 7});
  Value* sum = b.add(x, w);
  b.set_loc({});
  Value* red = b.create(OpCode::ReduceMax, {sum}, {{"dims", Ints{1}}, {"keepdim", true}});
  Value* t = b.transpose(sum, {1, 0});
  f.results = {red, t, w};
  f.result_updates = {-1, -1, 1};
  auto text = emit_mlir(m);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_EQ(*text, R"(#map0 = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (d0)>
#map3 = affine_map<(d0) -> (d0)>
module @tiny attributes {mlc.target = "cpu"} {
  func.func @step(%x: tensor<2x3xbf16> {mlc.arg = "input"}, %w.bias: tensor<3xbf16> {mlc.arg = "param"}) -> (tensor<2x1xbf16>, tensor<3x2xbf16>, tensor<3xbf16> {mlc.updates = "w.bias"}) {
    %0 = tensor.empty() : tensor<2x3xbf16> loc("model.json":4:7)
    %1 = linalg.generic {indexing_maps = [#map0, #map1, #map0], iterator_types = ["parallel", "parallel"]} ins(%x, %w.bias : tensor<2x3xbf16>, tensor<3xbf16>) outs(%0 : tensor<2x3xbf16>) {
    ^bb0(%2: bf16, %3: bf16, %4: bf16):
      %5 = arith.extf %2 : bf16 to f32
      %6 = arith.extf %3 : bf16 to f32
      %7 = arith.addf %5, %6 : f32
      %8 = arith.truncf %7 : f32 to bf16
      linalg.yield %8 : bf16
    } -> tensor<2x3xbf16> loc("model.json":4:7)
    %9 = arith.constant 0xFF800000 : f32
    %10 = tensor.empty() : tensor<2xf32>
    %11 = linalg.fill ins(%9 : f32) outs(%10 : tensor<2xf32>) -> tensor<2xf32>
    %12 = linalg.generic {indexing_maps = [#map0, #map2], iterator_types = ["parallel", "reduction"]} ins(%1 : tensor<2x3xbf16>) outs(%11 : tensor<2xf32>) {
    ^bb0(%13: bf16, %14: f32):
      %15 = arith.extf %13 : bf16 to f32
      %16 = arith.cmpf ogt, %15, %14 : f32
      %17 = arith.select %16, %15, %14 : f32
      %18 = arith.cmpf uno, %15, %15 : f32
      %19 = arith.select %18, %15, %17 : f32
      linalg.yield %19 : f32
    } -> tensor<2xf32>
    %20 = tensor.empty() : tensor<2xbf16>
    %21 = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel"]} ins(%12 : tensor<2xf32>) outs(%20 : tensor<2xbf16>) {
    ^bb0(%22: f32, %23: bf16):
      %24 = arith.truncf %22 : f32 to bf16
      linalg.yield %24 : bf16
    } -> tensor<2xbf16>
    %25 = tensor.expand_shape %21 [[0, 1]] output_shape [2, 1] : tensor<2xbf16> into tensor<2x1xbf16>
    %26 = tensor.empty() : tensor<3x2xbf16>
    %27 = linalg.transpose ins(%1 : tensor<2x3xbf16>) outs(%26 : tensor<3x2xbf16>) permutation = [1, 0]
    return %25, %27, %w.bias : tensor<2x1xbf16>, tensor<3x2xbf16>, tensor<3xbf16>
  }
}
)");
}

TEST(EmitMlirText, LiteralsAreExactAndParse) {
  // Constants print the value the reference kernels store: the shortest
  // decimal that reads back exactly, NaN and infinities as bit patterns.
  Module m;
  m.name = "literals";
  Function& f = m.add_function("f");
  Builder b(f);
  f.results = {b.create(OpCode::Constant, {}, {{"value", std::vector<double>{0.1, 1e-5, -0.0, 1e39}}}, TensorType{kF32, {4}}),
               b.create(OpCode::Constant, {}, {{"value", std::vector<double>{0.1, std::nan("")}}}, TensorType{kBF16, {2}}),
               b.create(OpCode::Constant, {}, {{"value", -std::numeric_limits<double>::infinity()}}, TensorType{kF64, {}}),
               b.create(OpCode::Constant, {}, {{"value", std::vector<int64_t>{int64_t{1} << 32, 5}}}, TensorType{kI32, {2}})};
  auto text = emit_mlir(m);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text->find("arith.constant dense<[0.1, 1.0e-05, -0.0, 0x7F800000]> : tensor<4xf32>"), std::string::npos) << *text;
  EXPECT_NE(text->find("arith.constant dense<[0.1, 0x7FC0]> : tensor<2xbf16>"), std::string::npos) << *text;
  EXPECT_NE(text->find("arith.constant dense<0xFFF0000000000000> : tensor<f64>"), std::string::npos) << *text;
  EXPECT_NE(text->find("arith.constant dense<[0, 5]> : tensor<2xi32>"), std::string::npos) << *text;
  ASSERT_EQ(missing(MLC_MLIR_OPT, "mlir-opt-19"), "");
  verified_mlir(m);
}

TEST(EmitMlirText, InvalidModuleIsTheVerifiersError) {
  Module m;
  m.name = "bad";
  Function& f = m.add_function("f");
  Value* x = f.add_arg("x", {kF32, {3}}, ArgKind::input);
  Op* op = f.insert_op(0, OpCode::Exp, {x}, {}, TensorType{kF32, {4}}, Loc{"m.json", 2, 5});
  f.results = {op->result()};
  auto text = emit_mlir(m);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.error().message.rfind("m.json:2:5: error: verifier: exp (op #0)", 0), 0u) << text.error().message;
}

TEST(EmitMlirText, FunctionsWithoutResultsAndAllDtypesInSignatures) {
  Module m;
  m.name = "sig";
  m.add_function("init");
  Function& f = m.add_function("all_types");
  for (DType t : {kF32, kF64, kBF16, kF16, kI32, kI64, kBool})
    f.results.push_back(f.add_arg("x_" + dname(t), {t, {2}}, ArgKind::input));
  auto text = emit_mlir(m);
  ASSERT_TRUE(text.ok()) << text.error().message;
  EXPECT_NE(text->find("  func.func @init() -> () {\n    return\n  }\n"), std::string::npos) << *text;
  EXPECT_NE(text->find("%x_bool: tensor<2xi1> {mlc.arg = \"input\"}"), std::string::npos) << *text;
  EXPECT_NE(text->find("return %x_f32, %x_f64, %x_bf16, %x_f16, %x_i32, %x_i64, %x_bool : tensor<2xf32>, tensor<2xf64>, "
                       "tensor<2xbf16>, tensor<2xf16>, tensor<2xi32>, tensor<2xi64>, tensor<2xi1>"),
            std::string::npos)
      << *text;
  ASSERT_EQ(missing(MLC_MLIR_OPT, "mlir-opt-19"), "");
  verified_mlir(m);
}

}  // namespace
}  // namespace mlc
