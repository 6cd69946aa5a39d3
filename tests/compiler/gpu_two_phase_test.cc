// The row schedule in two phases (compiler/gpu/gpu_schedule.h): which
// whole-tensor reductions take it, its partial blocks G and scratch words,
// the text of both phases; then the host device runs it against the
// interpreter (sizes that divide neither the block nor G, every accumulator
// type, reductions used afterwards: x / sum(x), sqrt(sum(x * x))), bit for
// bit from run to run. nvrtc_kernels_test.cc compiles such kernels for sm_80
// and sm_90; host_gpu_test.cc and cuda_target_test.cc launch hand-written
// two-phase kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "compiler/gpu/gpu_schedule.h"
#include "compiler/gpu/kernel_source.h"
#include "compiler/kernel_ir_verify.h"
#include "tests/compiler/host_gpu_runs.h"

namespace mlc {
namespace {

using testing::host_gpu_kernels_of;

std::string tensor_type(const std::string& dtype, int64_t n) { return dtype + "[" + std::to_string(n) + "]"; }

// OP(%x) over its only dim, to `result` (a scalar).
std::string whole_reduction(const std::string& op, const std::string& result) {
  if (op == "argmax") return "    %0 = argmax(%x) {axis = 0} : " + result + "\n    return %0\n";
  return "    %0 = " + op + "(%x) {dims = [0], keepdim = false} : " + result + "\n    return %0\n";
}

// Bodies whose reductions are used afterwards, over x of `type` (dtype
// `dtype`): x / sum(x) (x of rank 1), sqrt(sum(x * x)) (a grad norm, over
// every dim of x: `dims`), and sum(x) + max(x) (two reductions in one kernel).
std::string divided_by_sum(const std::string& type) {
  return "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[]\n    %1 = broadcast(%0) {dims = []} : " + type +
         "\n    %2 = div(%x, %1) : " + type + "\n    return %2\n";
}
std::string norm(const std::string& type, const std::string& dtype, const std::string& dims = "[0]") {
  return "    %0 = mul(%x, %x) : " + type + "\n    %1 = reduce_sum(%0) {dims = " + dims + ", keepdim = false} : " + dtype +
         "[]\n    %2 = sqrt(%1) : " + dtype + "[]\n    return %2\n";
}
constexpr char kSumPlusMax[] =
    "    %0 = reduce_sum(%x) {dims = [0], keepdim = false} : f32[]\n"
    "    %1 = reduce_max(%x) {dims = [0], keepdim = false} : f32[]\n"
    "    %2 = add(%0, %1) : f32[]\n    return %2\n";

// The one kernel of @f(%x: TYPE) -> RESULT and its schedule.
struct OneKernel {
  kir::Kernel kernel;
  gpu::Schedule schedule;
  std::string text;  // kernel_function
};
OneKernel one_kernel(const std::string& type, const std::string& body, const std::string& result) {
  std::vector<kir::Kernel> ks = host_gpu_kernels_of(type, body, result);
  EXPECT_EQ(ks.size(), 1u) << body;
  if (ks.empty()) return {};
  OneKernel k{ks[0], gpu::schedule_kernel(ks[0]), ""};
  k.text = gpu::kernel_function(k.kernel, k.schedule, "k");
  return k;
}

// The id of the kernel's reduction `op` (the first).
int reduction_id(const kir::Kernel& k, OpCode op) {
  for (size_t id = 0; id < k.exprs.size(); ++id)
    if (k.exprs[id].kind == kir::ExprKind::reduce && k.exprs[id].op == op) return static_cast<int>(id);
  ADD_FAILURE() << "no reduction " << op_name(op) << " in " << kir::print_kernel(k);
  return 0;
}

// G from the widest reduction's terms: none under kTwoPhaseMinTerms, then
// the most (a power of two from 2 to kBlockSize) that leave each thread
// kTwoPhaseTermsPerThread terms. One row: 1 combining block, a scratch word
// per partial sum.
TEST(GpuTwoPhaseSchedule, PartialBlocksFollowTheTermCount) {
  EXPECT_EQ(gpu::kTwoPhaseMinTerms, 4096);
  for (const auto& [n, partials] : {std::pair<int64_t, int64_t>{4095, 0}, {4096, 2}, {8191, 2}, {8192, 4},
                                    {65537, 32}, {524287, 128}, {524288, 256}, {(int64_t{1} << 20) + 3, 256}}) {
    SCOPED_TRACE(n);
    const OneKernel k = one_kernel(tensor_type("f32", n), whole_reduction("reduce_sum", "f32[]"), "f32[]");
    const gpu::Schedule& s = k.schedule;
    EXPECT_EQ(s.kind, gpu::ScheduleKind::row);
    EXPECT_EQ(s.rows, 1);
    EXPECT_EQ(s.launch.block, gpu::kBlockSize);
    EXPECT_EQ(s.launch.two_phase(), partials > 0);
    EXPECT_EQ(s.partials, partials);
    EXPECT_EQ(s.launch.grid, partials > 0 ? partials : 1);
    EXPECT_EQ(s.launch.combine_grid, partials > 0 ? 1 : 0);
    EXPECT_EQ(s.launch.scratch_bytes, 8 * partials);
    if (partials > 0) {
      EXPECT_EQ(s.scratch_word[static_cast<size_t>(reduction_id(k.kernel, OpCode::ReduceSum))], 0);
    }
  }
}

// Phase 0 folds partial g's terms g B + t, g B + t + G B, ... (grid-stride
// over the partials) and thread 0 stores the block's double; phase 1 reads
// G of them, combines them by the tree and stores the result.
TEST(GpuTwoPhaseSchedule, TheTextOfBothPhases) {
  const OneKernel k = one_kernel("f32[65537]", whole_reduction("reduce_sum", "f32[]"), "f32[]");
  ASSERT_EQ(k.schedule.partials, 32);
  const std::string& fn = k.text;
  for (const char* want :
       {"/* schedule: row in two phases (32 partial blocks, then 1 combining), block 256 */",
        "MLC_KERNEL(256) k(MLC_PARAM(float, p0), MLC_PARAM(float, p1), MLC_PARAM(u64, mlc_scratch), MLC_STATUS_PARAM, "
        "i64 mlc_phase) {",
        "MLC_BIND(u64, mlc_scratch);", "if (mlc_phase == 0) {",
        "for (i64 partial = MLC_BLOCK; partial < ((i64)32); partial += MLC_BLOCKS) {",
        "for (i64 rj = partial * 256 + tid; rj < ((i64)65537); rj += ((i64)8192)) {",
        "mlc_scratch[((i64)0) + partial] = MLC_F64_BITS(", "if (mlc_phase == 1) {", "if (tid < ((i64)32)) {",
        " = MLC_BITS_F64(mlc_scratch[((i64)0) + tid]);", "MLC_WARP_DOWN(mlc_sf64, "})
    EXPECT_NE(fn.find(want), std::string::npos) << want << "\n" << fn;
  const size_t combine = fn.find("if (mlc_phase == 1)");
  EXPECT_EQ(fn.find("rj", combine), std::string::npos) << "phase 1 folds no terms";
  EXPECT_EQ(fn.find("mlc_scratch[", combine), fn.find("mlc_scratch[((i64)0) + tid]", combine)) << "and stores no partials";
  // Both dialects' preludes cast the scratch words' bits.
  EXPECT_NE(gpu::prelude(gpu::Dialect::cuda).find("#define MLC_F64_BITS(x) ((u64)__double_as_longlong(x))"),
            std::string::npos);
  EXPECT_NE(gpu::prelude(gpu::Dialect::opencl).find("#define MLC_F64_BITS(x) as_ulong(x)"), std::string::npos);
}

// Max, min and argmax keep their element's index beside the value: 2 G
// words each, the values' bits as their accumulator holds them (f32 for f32
// and halves, f64, i64 for integers). A row of one dropped ([1, N] to [1])
// is one row too: two phases as well.
TEST(GpuTwoPhaseSchedule, MaxMinAndArgmaxCarryIndices) {
  struct Case {
    std::string type, op, result, stored;
  };
  for (const Case& c : {Case{"f32[65537]", "argmax", "i64[]", "(u64)MLC_F32_BITS("},
                        Case{"bf16[65537]", "reduce_max", "bf16[]", "(u64)MLC_F32_BITS("},
                        Case{"f64[65537]", "reduce_min", "f64[]", "MLC_F64_BITS("},
                        Case{"i32[65537]", "reduce_max", "i32[]", "(u64)m"}}) {
    SCOPED_TRACE(c.type + " " + c.op);
    const OneKernel k = one_kernel(c.type, whole_reduction(c.op, c.result), c.result);
    ASSERT_TRUE(k.schedule.launch.two_phase());
    EXPECT_EQ(k.schedule.launch.scratch_bytes, 8 * 2 * 32);
    EXPECT_NE(k.text.find("mlc_scratch[((i64)0) + partial] = " + c.stored), std::string::npos) << k.text;
    EXPECT_NE(k.text.find("mlc_scratch[((i64)32) + partial] = (u64)"), std::string::npos) << k.text;
    EXPECT_NE(k.text.find(" = (i64)mlc_scratch[((i64)32) + tid];"), std::string::npos) << k.text;
  }
  const OneKernel k = one_kernel("f32[1,65537]", "    %0 = argmax(%x) {axis = 1} : i64[1]\n    return %0\n", "i64[1]");
  EXPECT_EQ(k.schedule.kind, gpu::ScheduleKind::row);
  EXPECT_EQ(k.schedule.rows, 1);
  EXPECT_TRUE(k.schedule.launch.two_phase());
  EXPECT_EQ(k.schedule.launch.combine_grid, 1);
}

// What uses the reductions afterwards runs in phase 1: x / sum(x) on a
// block per 256 elements up to G; sqrt(sum(x * x)) (a grad norm) on one.
// Independent reductions share the scratch one after another.
TEST(GpuTwoPhaseSchedule, ReductionsUsedAfterwards) {
  OneKernel k = one_kernel("f32[100003]", divided_by_sum("f32[100003]"), "f32[100003]");
  ASSERT_TRUE(k.schedule.launch.two_phase());
  EXPECT_EQ(k.schedule.partials, 32);
  EXPECT_EQ(k.schedule.launch.combine_grid, 32) << "391 blocks of elements, at most G";
  EXPECT_NE(k.text.find("for (i64 inner = MLC_BLOCK * 256 + tid; inner < ((i64)100003); inner += MLC_BLOCKS * 256)"),
            std::string::npos)
      << k.text;
  k = one_kernel("f32[300,400]", norm("f32[300,400]", "f32", "[0, 1]"), "f32[]");
  EXPECT_TRUE(k.schedule.launch.two_phase());
  EXPECT_EQ(k.schedule.partials, 32);  // 120000 terms
  EXPECT_EQ(k.schedule.launch.combine_grid, 1);
  k = one_kernel("f32[65537]", kSumPlusMax, "f32[]");
  ASSERT_TRUE(k.schedule.launch.two_phase());
  EXPECT_EQ(k.schedule.launch.scratch_bytes, 8 * 3 * 32);
  EXPECT_EQ(k.schedule.scratch_word[static_cast<size_t>(reduction_id(k.kernel, OpCode::ReduceSum))] +
                k.schedule.scratch_word[static_cast<size_t>(reduction_id(k.kernel, OpCode::ReduceMax))],
            32) << "one at word 0, the other at word 32";
}

// The sum of x - max(x) over the whole of x: a block reduction whose terms
// read another's value (fusion keeps such pairs in two kernels: softmax's max
// and sum share one only per row; this is kernel IR written by hand). Phase
// 0 would need the max before any partial sum: one block, one launch.
TEST(GpuTwoPhaseSchedule, AReductionReadingAnotherKeepsOneBlock) {
  using K = kir::ExprKind;
  kir::Kernel k;
  k.name = "sum_below_max";
  k.params = {DType::f32, DType::f32};
  k.elementwise_input = {false};
  k.num_vars = 2;
  auto add = [&](kir::Expr e) {
    k.exprs.push_back(std::move(e));
    return static_cast<int>(k.exprs.size()) - 1;
  };
  auto reduce = [&](OpCode op, int term, int var0) {
    kir::Expr r{K::reduce, DType::f32, op};
    r.a = term;
    r.var0 = var0;
    r.extents = {65536};
    return add(std::move(r));
  };
  auto load = [&](int var) {
    kir::Expr v{K::var};
    v.i = var;
    kir::Expr l{K::load, DType::f32};
    l.a = add(std::move(v));
    return add(std::move(l));
  };
  const int max = reduce(OpCode::ReduceMax, load(0), 0);
  kir::Expr below{K::binary, DType::f32, OpCode::Sub};
  below.a = load(1);
  below.b = max;
  k.root = reduce(OpCode::ReduceSum, add(std::move(below)), 1);
  ASSERT_TRUE(kir::verify_kernel(k).ok()) << kir::verify_kernel(k).error().message << kir::print_kernel(k);
  const gpu::Schedule s = gpu::schedule_kernel(k);
  EXPECT_EQ(s.kind, gpu::ScheduleKind::row);
  EXPECT_EQ(std::count(s.block_reduce.begin(), s.block_reduce.end(), true), 2);
  EXPECT_FALSE(s.launch.two_phase());
  EXPECT_EQ(s.launch.grid, 1);
}

// ---- run by the host device against the interpreter

std::vector<double> wave(size_t n, double scale = 1, double offset = 0) {
  std::vector<double> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::sin(static_cast<double>(i) * 0.37) * scale + offset;
  return v;
}

// One element, a block and one more, kTwoPhaseMinTerms (G = 2), and sizes
// that divide neither the block nor G.
const std::vector<int64_t>& sizes() {
  static const std::vector<int64_t> n = {1, 257, 4096, 65537, (int64_t{1} << 20) + 3};
  return n;
}

// The host device's result against the interpreter's: NaN where it is NaN,
// else within `tolerance` of it (0: the same bits).
void expect_within(const testing::HostGpuRun& run, double tolerance) {
  for (size_t i = 0; i < run.want.size(); ++i) {
    const double w = run.want[i], g = run.got[i];
    if (std::isnan(w)) EXPECT_TRUE(std::isnan(g)) << "element " << i << ": " << g;
    else if (tolerance == 0) EXPECT_EQ(std::memcmp(&w, &g, sizeof w), 0) << "element " << i << ": " << w << " vs " << g;
    else EXPECT_LE(std::fabs(w - g), tolerance) << "element " << i << ": " << w << " vs " << g;
  }
}

// The header's bound on a float sum of x in another order of double
// additions, plus one rounding of the result to a type with `mantissa`
// bits (the two sums may round to neighbours).
double sum_tolerance(const std::vector<double>& x, double result, int mantissa) {
  double magnitude = 0;
  for (double v : x) magnitude += std::fabs(v);
  return 2 * static_cast<double>(x.size()) * 0x1p-53 * magnitude + std::ldexp(std::fabs(result), -mantissa);
}

bool expect_two_phase_where_large(const testing::HostGpuRun& run, int64_t terms) {
  bool two_phase = false;
  for (const rt::KernelInfo& k : run.executable->kernels) two_phase = two_phase || k.launch.two_phase();
  EXPECT_EQ(two_phase, terms >= gpu::kTwoPhaseMinTerms) << terms << " terms";
  EXPECT_EQ(run.executable->scratch_bytes > 0, two_phase);
  return two_phase;
}

#define SKIP_WITHOUT_HOST_GPU() \
  if (!testing::host_gpu_available()) GTEST_SKIP() << "this build has no host-gpu target"

// Sums of f32, f64, bf16 and f16 (double partials, one rounding) within the
// header's bound; i32 (wrapping) and i64 sums exactly.
TEST(GpuTwoPhaseHostGpu, SumsMatchTheInterpreter) {
  SKIP_WITHOUT_HOST_GPU();
  struct Case {
    const char* dtype;
    DType t;
    int mantissa;  // 0: an integer sum, exact
    double scale;
  };
  for (int64_t n : sizes())
    for (const Case& c : {Case{"f32", DType::f32, 24, 3}, Case{"f64", DType::f64, 53, 1e3}, Case{"bf16", DType::bf16, 8, 2},
                          Case{"f16", DType::f16, 11, 2}, Case{"i32", DType::i32, 0, 1e6}, Case{"i64", DType::i64, 0, 1e12}}) {
      SCOPED_TRACE(std::string(c.dtype) + "[" + std::to_string(n) + "]");
      std::vector<double> x = wave(static_cast<size_t>(n), c.scale);
      if (c.mantissa == 0)
        for (double& v : x) v = std::floor(v);
      const std::string result = std::string(c.dtype) + "[]";
      auto run = testing::run_interpreted_and_on_host_gpu(tensor_type(c.dtype, n), whole_reduction("reduce_sum", result),
                                                          result, x, c.t, {n});
      ASSERT_TRUE(run);
      expect_two_phase_where_large(*run, n);
      // The terms as the kernel reads them: the input rounded to its dtype.
      const std::vector<double> terms = rt::testing::to_doubles(run->input);
      expect_within(*run, c.mantissa == 0 ? 0 : sum_tolerance(terms, run->want[0], c.mantissa));
    }
}

// Max, min and argmax exactly: ties of the extreme value far apart (in
// different partial blocks: the first wins), NaNs (max and min: the last
// NaN; argmax: the first), zeros of both signs (the first extreme one), in
// f32, f64, bf16, f16 and i32.
TEST(GpuTwoPhaseHostGpu, MaxMinAndArgmaxAreExact) {
  SKIP_WITHOUT_HOST_GPU();
  for (int64_t n : {int64_t{257}, int64_t{65537}, (int64_t{1} << 20) + 3}) {
    const auto size = static_cast<size_t>(n);
    std::vector<double> ties = wave(size, 100), nans = ties, zeros(size);
    ties[size / 3] = ties[size - 1] = 500;
    ties[size / 2] = -500;
    ties[0] = -500;
    nans[size / 5] = NAN;
    nans[size - 1 - size / 7] = NAN;
    for (size_t i = 0; i < size; ++i) zeros[i] = (i % 3) ? 0.0 : -0.0;
    for (const char* dtype : {"f32", "f64", "bf16", "f16", "i32"}) {
      const DType t = *parse_dtype(dtype);
      for (const auto& [what, x] : {std::pair<const char*, const std::vector<double>*>{"ties", &ties}, {"NaNs", &nans},
                                    {"signed zeros", &zeros}}) {
        if (!is_float(t) && std::string(what) != "ties") continue;
        for (const char* op : {"reduce_max", "reduce_min", "argmax"}) {
          SCOPED_TRACE(std::string(op) + " of " + dtype + "[" + std::to_string(n) + "], " + what);
          const std::string result = std::string(op) == "argmax" ? "i64[]" : std::string(dtype) + "[]";
          auto run = testing::run_interpreted_and_on_host_gpu(tensor_type(dtype, n), whole_reduction(op, result), result,
                                                              *x, t, {n});
          ASSERT_TRUE(run);
          expect_two_phase_where_large(*run, n);
          expect_within(*run, 0);
        }
      }
    }
  }
}

// x / sum(x) (every element in phase 1, on several combining blocks),
// sqrt(sum(x * x)) of f32 and bf16 (a grad norm), and a sum and a max in one
// kernel: within two roundings of the result's type of the interpreter's
// (the sums within the header's bound, positive terms: no cancellation).
TEST(GpuTwoPhaseHostGpu, ReductionsUsedAfterwards) {
  SKIP_WITHOUT_HOST_GPU();
  for (int64_t n : sizes()) {
    const std::string f32 = tensor_type("f32", n);
    const std::vector<double> x = wave(static_cast<size_t>(n), 1, 1.5);
    SCOPED_TRACE(n);
    auto run = testing::run_interpreted_and_on_host_gpu(f32, divided_by_sum(f32), f32, x, DType::f32, {n});
    ASSERT_TRUE(run);
    expect_two_phase_where_large(*run, n);
    for (size_t i = 0; i < run->want.size(); ++i)
      ASSERT_LE(std::fabs(run->got[i] - run->want[i]), 0x1p-22 * std::fabs(run->want[i])) << "element " << i;
    for (const auto& [dtype, t, ulp] : {std::tuple<const char*, DType, double>{"f32", DType::f32, 0x1p-22},
                                        {"bf16", DType::bf16, 0x1p-7}}) {
      const std::string type = tensor_type(dtype, n), scalar = std::string(dtype) + "[]";
      run = testing::run_interpreted_and_on_host_gpu(type, norm(type, dtype), scalar, x, t, {n});
      ASSERT_TRUE(run);
      expect_two_phase_where_large(*run, n);
      expect_within(*run, ulp * run->want[0]);
    }
    run = testing::run_interpreted_and_on_host_gpu(f32, kSumPlusMax, "f32[]", x, DType::f32, {n});
    ASSERT_TRUE(run);
    expect_two_phase_where_large(*run, n);
    expect_within(*run, 0x1p-22 * run->want[0]);
  }
}

// The same executable, run again and created again: the same bits (a fixed
// tree, no atomics), for an f64 sum of values of every magnitude and x /
// sum(x).
TEST(GpuTwoPhaseHostGpu, RunsAreBitIdentical) {
  SKIP_WITHOUT_HOST_GPU();
  const int64_t n = (int64_t{1} << 20) + 3;
  std::vector<double> x = wave(static_cast<size_t>(n), 1);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::ldexp(x[i], static_cast<int>(i % 61) - 30);
  const std::string f32 = tensor_type("f32", n);
  for (const auto& [type, body, result, t] :
       {std::tuple<std::string, std::string, std::string, DType>{tensor_type("f64", n), whole_reduction("reduce_sum", "f64[]"),
                                                                 "f64[]", DType::f64},
        {f32, divided_by_sum(f32), f32, DType::f32}}) {
    SCOPED_TRACE(body);
    auto first = testing::run_interpreted_and_on_host_gpu(type, body, result, x, t, {n});
    ASSERT_TRUE(first);
    ASSERT_TRUE(expect_two_phase_where_large(*first, n));
    const rt::Tensor& r = first->executor->result(0);
    const std::vector<std::byte> bits(r.bytes(), r.bytes() + r.num_bytes());
    auto again = rt::Executor::create(first->executable);
    ASSERT_TRUE(again.ok()) << again.error().message;
    for (rt::Executor* exe : {first->executor.get(), &*again, first->executor.get()}) {
      rt::Tensor* args[] = {&first->input};
      ASSERT_TRUE(exe->run(args).ok());
      const rt::Tensor& rerun = exe->result(0);
      ASSERT_EQ(rerun.num_bytes(), r.num_bytes());
      EXPECT_EQ(std::memcmp(rerun.bytes(), bits.data(), bits.size()), 0);
    }
  }
}

}  // namespace
}  // namespace mlc
