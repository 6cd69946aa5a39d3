// Gemm epilogues (compiler/fusion.h, runtime/executable.h GemmEpilogue): a
// dot with its bias add and relu or tanh GELU, with the tanh GELU's backward
// (and the bias gradient before it), or with its bias gradient, becomes one
// gemm instruction with cuBLASLt's epilogue when lowering for a GPU target,
// and never for the CPU. Checked: which epilogue each pattern forms, where
// it must not form (an intermediate read elsewhere, a bias that is not a row
// broadcast, the erf GELU, a backward with a term missing, an aux whose
// leading dimension cuBLASLt refuses, the CPU target), the lowered text for
// cuda (a golden file), the values on host-gpu (the CPU's GEMM and the host
// epilogue, runtime/gemm_epilogue.h) against the interpreter: the inputs are
// multiples of 1/8 small enough that every product is exact in f32, so each
// epilogue must give the interpreter's ops' values bit for bit; and that the
// host's dgelu is autodiff's backward of the tanh GELU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "compiler/fusion.h"
#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "ir/decompose.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "runtime/executor.h"
#include "runtime/gemm_epilogue.h"
#include "runtime/interpreter.h"
#include "runtime/target.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc {
namespace {

using rt::GemmEpilogue;

std::unique_ptr<Module> parse(const std::string& text) {
  auto m = parse_module(text, "epilogue.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? std::make_unique<Module>(std::move(*m)) : nullptr;
}

// A function of x [4, 8] and w [8, 8] (the dot x w^T, [4, 8], all of dtype
// t) and the given further arguments, with `body` after `%0 = dot(%x, %w)`,
// returning `ret`.
std::string func(const std::string& args, const std::string& results, const std::string& body,
                 const std::string& ret, const std::string& t = "f32") {
  return "module @m {\n  func @f(%x: " + t + "[4,8] {input}, %w: " + t + "[8,8] {param}" + args + ") -> (" + results +
         ") {\n    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : " + t + "[4,8]\n" + body +
         "    return " + ret + "\n  }\n}\n";
}
const std::string kBias = ", %b: f32[8] {param}";
const std::string kBf16Bias = ", %b: bf16[8] {param}";

LoweredFunction lower(const Function& f, std::string_view target, bool compile = false, bool gemm_epilogues = true) {
  LowerOptions o;
  o.compile_kernels = compile;
  o.gemm_epilogues = gemm_epilogues;
  o.target = std::string(target);
  if (target == rt::kCudaTarget) o.arch = "sm_90";
  auto l = lower_function(f, o);
  EXPECT_TRUE(l.ok()) << l.error().message;
  return l.ok() ? std::move(*l) : LoweredFunction{};
}

// The epilogues of the lowered function's gemms, in order.
std::vector<GemmEpilogue> epilogues(const Function& f, std::string_view target, bool gemm_epilogues = true) {
  std::vector<GemmEpilogue> out;
  LoweredFunction l = lower(f, target, false, gemm_epilogues);
  if (!l.executable) return out;
  for (const rt::Instruction& ins : l.executable->instructions)
    if (ins.kind == rt::InstrKind::gemm) out.push_back(ins.gemm.epilogue);
  return out;
}

// The tanh GELU's backward at y of the gradient %g as autodiff writes it
// after canonicalize (the forward's intermediates recomputed from y, as
// recompute_gelu_for_epilogues leaves them), each value of type `t`, the
// last %dx (rt::kGeluGradSteps).
std::string gelu_backward(const std::string& y, const std::string& t) {
  static const char* const kSteps[][2] = {
      {"h", "mul(Y, %c5)"},     {"s", "mul(Y, Y)"},        {"q", "mul(%s, Y)"},       {"p", "mul(%q, %ck)"},
      {"u", "add(Y, %p)"},      {"v", "mul(%u, %cr)"},     {"t", "tanh(%v)"},         {"e", "add(%c1, %t)"},
      {"ga", "mul(%g, %h)"},    {"gb", "mul(%g, %e)"},     {"tt", "mul(%t, %t)"},     {"w1", "sub(%c1, %tt)"},
      {"dv", "mul(%ga, %w1)"},  {"du", "mul(%dv, %cr)"},   {"dq", "mul(%du, %ck)"},   {"m1", "mul(%dq, %s)"},
      {"ds", "mul(%dq, Y)"},    {"s1", "add(%du, %m1)"},   {"m2", "mul(%ds, Y)"},     {"s2", "add(%s1, %m2)"},
      {"s3", "add(%s2, %m2)"},  {"hb", "mul(%gb, %c5)"},   {"dx", "add(%s3, %hb)"}};
  std::string s =
      "    %c5 = constant() {value = 0.5} : f32[]\n    %ck = constant() {value = 0.044715} : f32[]\n"
      "    %cr = constant() {value = 0.7978845608028654} : f32[]\n    %c1 = constant() {value = 1.0} : f32[]\n";
  for (const auto& [v, op] : kSteps) {
    std::string rhs = op;
    for (size_t at = rhs.find('Y'); at != std::string::npos; at = rhs.find('Y', at + y.size())) rhs.replace(at, 1, y);
    s += "    %" + std::string(v) + " = " + rhs + " : " + t + "\n";
  }
  return s;
}

// A function of dz [4, 3], w [3, n] and y [4, n] with %g = dot(dz, w) and
// the GELU's backward of %g at y (gelu_backward; `edit` may change its text),
// then `body`, returning `ret`. With `half` (bf16, f16), as autocast writes
// it: dz, w, y and the dot %gh of that dtype, %g and %yf their casts to f32,
// and the result's cast back %dxh.
std::string dgelu_func(const std::string& results, const std::string& body, const std::string& ret, int n = 8,
                       const std::function<void(std::string&)>& edit = {}, const std::string& half = "") {
  const std::string shape = "[4," + std::to_string(n) + "]", t = "f32" + shape, in = half.empty() ? "f32" : half;
  std::string chain = gelu_backward(half.empty() ? "%y" : "%yf", t);
  if (edit) edit(chain);
  const std::string dot = "dot(%dz, %w) {transpose_a = false, transpose_b = false} : ";
  const std::string head = half.empty() ? "    %g = " + dot + t + "\n"
                                        : "    %gh = " + dot + half + shape + "\n    %g = cast(%gh) : " + t +
                                              "\n    %yf = cast(%y) : " + t + "\n";
  const std::string tail = half.empty() ? "" : "    %dxh = cast(%dx) : " + half + shape + "\n";
  return "module @m {\n  func @f(%dz: " + in + "[4,3] {input}, %w: " + in + "[3," + std::to_string(n) +
         "] {param}, %y: " + in + shape + " {input}) -> (" + results + ") {\n" + head + chain + tail + body +
         "    return " + ret + "\n  }\n}\n";
}

// Replaces the first `from` in s by `to`.
void replace(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  ASSERT_NE(at, std::string::npos) << from;
  s.replace(at, from.size(), to);
}

struct Case {
  const char* name;
  std::string text;
  std::vector<GemmEpilogue> gpu;  // the gemms' epilogues on a GPU target (the CPU: none)
};

std::vector<Case> cases() {
  using E = GemmEpilogue;
  const std::string gelu_tanh = "    %2 = gelu(%1) {approximate = \"tanh\"} : f32[4,8]\n";
  return {
      {"bias", func(kBias, "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n", "%1"), {E::bias}},
      {"bias_first_operand", func(kBias, "f32[4,8]", "    %1 = add(%b, %0) : f32[4,8]\n", "%1"), {E::bias}},
      {"bias_relu",
       func(kBias, "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n    %2 = relu(%1) : f32[4,8]\n", "%2"),
       {E::bias_relu}},
      {"relu", func("", "f32[4,8]", "    %1 = relu(%0) : f32[4,8]\n", "%1"), {E::relu}},
      {"bias_gelu", func(kBias, "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n" + gelu_tanh, "%2"), {E::bias_gelu}},
      {"gelu", func("", "f32[4,8]", "    %2 = gelu(%0) {approximate = \"tanh\"} : f32[4,8]\n", "%2"), {E::gelu}},
      // The pre-activation returned too: the GEMM stores it as the aux.
      {"bias_gelu_aux",
       func(kBias, "f32[4,8], f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n" + gelu_tanh, "%2, %1"),
       {E::bias_gelu_aux}},
      // A backward reading the tanh (as autodiff of the decomposition does):
      // recomputed from the pre-activation, which the GEMM stores.
      {"gelu_intermediate_read_later",
       func(kBias, "f32[4,8], f32[4,8]",
            "    %1 = add(%0, %b) : f32[4,8]\n    %c = constant() {value = 0.5} : f32[]\n"
            "    %h = mul(%1, %c) : f32[4,8]\n    %s = mul(%1, %1) : f32[4,8]\n    %q = mul(%s, %1) : f32[4,8]\n"
            "    %k = constant() {value = 0.044715} : f32[]\n    %p = mul(%q, %k) : f32[4,8]\n"
            "    %u = add(%1, %p) : f32[4,8]\n    %r = constant() {value = 0.7978845608028654} : f32[]\n"
            "    %v = mul(%u, %r) : f32[4,8]\n    %t = tanh(%v) : f32[4,8]\n"
            "    %o = constant() {value = 1.0} : f32[]\n    %e = add(%o, %t) : f32[4,8]\n"
            "    %g = mul(%h, %e) : f32[4,8]\n    %d = mul(%t, %t) : f32[4,8]\n",
            "%g, %d"),
       {E::bias_gelu_aux}},
      // PyTorch's default GELU (erf) has no cuBLASLt form: the bias alone.
      {"erf_gelu_keeps_its_kernel",
       func(kBias, "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n    %2 = gelu(%1) {approximate = \"none\"} : f32[4,8]\n",
            "%2"),
       {E::bias}},
      // relu's input read elsewhere (no relu aux here): the bias alone.
      {"relu_input_returned",
       func(kBias, "f32[4,8], f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n    %2 = relu(%1) : f32[4,8]\n", "%2, %1"),
       {E::bias}},
      // The product read elsewhere: no epilogue.
      {"product_returned",
       func(kBias, "f32[4,8], f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n", "%1, %0"), {E::none}},
      // A column bias [4, 1] and a full [4, 8] addend are no row broadcast.
      {"column_bias", func(", %b: f32[4,1] {param}", "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n", "%1"), {E::none}},
      {"full_addend", func(", %b: f32[4,8] {input}", "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n", "%1"), {E::none}},
      // relu written max(0, y): not the decomposition's max(y, 0) (its ties differ).
      {"max_zero_first",
       func(kBias, "f32[4,8]",
            "    %1 = add(%0, %b) : f32[4,8]\n    %z = constant() {value = 0.0} : f32[]\n    %2 = max(%z, %1) : f32[4,8]\n",
            "%2"),
       {E::bias}},
      // n = 6: cuBLASLt's aux needs a leading dimension (n) divisible by 8,
      // so a GELU whose pre-activation is read later keeps its kernel.
      {"aux_ld_not_a_multiple_of_8",
       "module @m {\n  func @f(%x: f32[4,8] {input}, %w: f32[6,8] {param}, %b: f32[6] {param}) -> (f32[4,6], f32[4,6]) {\n"
       "    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,6]\n    %1 = add(%0, %b) : f32[4,6]\n"
       "    %2 = gelu(%1) {approximate = \"tanh\"} : f32[4,6]\n    return %2, %1\n  }\n}\n",
       {E::bias}},
      // The GELU's backward of a gemm's value at y, the aux: dgelu; with the
      // sum of its result over the rows (the first linear's bias gradient):
      // dgelu_bgrad.
      {"dgelu", dgelu_func("f32[4,8]", "", "%dx"), {E::dgelu}},
      {"dgelu_bgrad",
       dgelu_func("f32[4,8], f32[8]", "    %db = reduce_sum(%dx) {dims = [0], keepdim = false} : f32[8]\n", "%dx, %db"),
       {E::dgelu_bgrad}},
      // A sum over the other axis is no bias gradient: dgelu alone.
      {"dgelu_row_sum_is_no_bias_gradient",
       dgelu_func("f32[4,8], f32[4]", "    %db = reduce_sum(%dx) {dims = [1], keepdim = false} : f32[4]\n", "%dx, %db"),
       {E::dgelu}},
      // The result read before the bias gradient is summed: dgelu alone.
      {"dgelu_result_read_before_its_sum",
       dgelu_func("f32[4,8], f32[8]",
                  "    %z = mul(%dx, %dx) : f32[4,8]\n    %zs = reduce_sum(%z) {dims = [0], keepdim = false} : f32[8]\n"
                  "    %db = reduce_sum(%dx) {dims = [0], keepdim = false} : f32[8]\n    %db2 = add(%db, %zs) : f32[8]\n",
                  "%dx, %db2"),
       {E::dgelu}},
      // An intermediate read elsewhere (the tanh, as where the forward's
      // intermediates are read and not recomputed), the product read
      // elsewhere, a term missing, n = 6: no epilogue.
      {"dgelu_intermediate_returned", dgelu_func("f32[4,8], f32[4,8]", "", "%dx, %t"), {E::none}},
      {"dgelu_product_returned", dgelu_func("f32[4,8], f32[4,8]", "", "%dx, %g"), {E::none}},
      {"dgelu_term_missing",
       dgelu_func("f32[4,8]", "", "%dx", 8, [](std::string& c) { replace(c, "add(%s2, %m2)", "add(%s1, %m2)"); }),
       {E::none}},
      {"dgelu_aux_ld_not_a_multiple_of_8", dgelu_func("f32[4,6]", "", "%dx", 6), {E::none}},
      // The other order of an add or a mul is the same function, rounding for
      // rounding; a sub's is not.
      {"dgelu_operands_swapped",
       dgelu_func("f32[4,8]", "", "%dx", 8,
                  [](std::string& c) {
                    replace(c, "add(%s3, %hb)", "add(%hb, %s3)");
                    replace(c, "mul(%g, %h)", "mul(%h, %g)");
                  }),
       {E::dgelu}},
      {"dgelu_sub_swapped",
       dgelu_func("f32[4,8]", "", "%dx", 8, [](std::string& c) { replace(c, "sub(%c1, %tt)", "sub(%tt, %c1)"); }),
       {E::none}},
      // bf16 and f16 as autocast writes them: the dot and the bias add in the
      // half dtype, relu and the GELU in f32 between a cast of the
      // pre-activation and a cast of their result back (the epilogue computes
      // in f32 and rounds once); the GELU's backward likewise.
      {"bf16_bias", func(kBf16Bias, "bf16[4,8]", "    %1 = add(%0, %b) : bf16[4,8]\n", "%1", "bf16"), {E::bias}},
      {"bf16_bias_relu",
       func(kBf16Bias, "bf16[4,8]",
            "    %1 = add(%0, %b) : bf16[4,8]\n    %c = cast(%1) : f32[4,8]\n    %r = relu(%c) : f32[4,8]\n"
            "    %2 = cast(%r) : bf16[4,8]\n",
            "%2", "bf16"),
       {E::bias_relu}},
      {"bf16_bias_gelu_aux",
       func(kBf16Bias, "bf16[4,8], bf16[4,8]",
            "    %1 = add(%0, %b) : bf16[4,8]\n    %c = cast(%1) : f32[4,8]\n"
            "    %r = gelu(%c) {approximate = \"tanh\"} : f32[4,8]\n    %2 = cast(%r) : bf16[4,8]\n",
            "%2, %1", "bf16"),
       {E::bias_gelu_aux}},
      {"f16_gelu",
       func("", "f16[4,8]",
            "    %c = cast(%0) : f32[4,8]\n    %r = gelu(%c) {approximate = \"tanh\"} : f32[4,8]\n"
            "    %2 = cast(%r) : f16[4,8]\n",
            "%2", "f16"),
       {E::gelu}},
      // The GELU in bf16 itself (bf16 constants, each op rounded), or its f32
      // result read too: the bias alone.
      {"bf16_gelu_in_bf16",
       func(kBf16Bias, "bf16[4,8]",
            "    %1 = add(%0, %b) : bf16[4,8]\n    %2 = gelu(%1) {approximate = \"tanh\"} : bf16[4,8]\n", "%2", "bf16"),
       {E::bias}},
      {"bf16_gelu_result_read_in_f32",
       func(kBf16Bias, "bf16[4,8], f32[4,8]",
            "    %1 = add(%0, %b) : bf16[4,8]\n    %c = cast(%1) : f32[4,8]\n"
            "    %r = gelu(%c) {approximate = \"tanh\"} : f32[4,8]\n    %2 = cast(%r) : bf16[4,8]\n",
            "%2, %r", "bf16"),
       {E::bias}},
      {"bf16_dgelu_bgrad",
       dgelu_func("bf16[4,8], bf16[8]", "    %db = reduce_sum(%dxh) {dims = [0], keepdim = false} : bf16[8]\n",
                  "%dxh, %db", 8, {}, "bf16"),
       {E::dgelu_bgrad}},
      {"f16_dgelu", dgelu_func("f16[4,8]", "", "%dxh", 8, {}, "f16"), {E::dgelu}},
      {"bf16_bgradb",
       "module @m {\n  func @f(%dy: bf16[4,6] {input}, %x: bf16[4,8] {input}) -> (bf16[6,8], bf16[6]) {\n"
       "    %0 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : bf16[6,8]\n"
       "    %1 = reduce_sum(%dy) {dims = [0], keepdim = false} : bf16[6]\n    return %0, %1\n  }\n}\n",
       {E::bgradb}},
      // autocast's cast of the half bias gradient to f32, right after the sum
      // and before the weight gradient's dot: moved after the dot
      // (defer_bias_gradient_readers), then bgradb; not where the dot reads
      // what reads the sum.
      {"bf16_bgradb_sum_cast_before_the_dot",
       "module @m {\n  func @f(%dy: bf16[4,6] {input}, %x: bf16[4,8] {input}) -> (bf16[6,8], f32[6]) {\n"
       "    %1 = reduce_sum(%dy) {dims = [0], keepdim = false} : bf16[6]\n    %2 = cast(%1) : f32[6]\n"
       "    %0 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : bf16[6,8]\n    return %0, %2\n  }\n}\n",
       {E::bgradb}},
      {"bgradb_dot_reads_what_reads_the_sum",
       "module @m {\n  func @f(%dy: f32[4,6] {input}, %x: f32[4,8] {input}) -> (f32[6,8], f32[6]) {\n"
       "    %1 = reduce_sum(%dy) {dims = [0], keepdim = false} : f32[6]\n"
       "    %2 = reduce_sum(%1) {dims = [0], keepdim = false} : f32[]\n    %3 = mul(%x, %2) : f32[4,8]\n"
       "    %0 = dot(%dy, %3) {transpose_a = true, transpose_b = false} : f32[6,8]\n    return %0, %1\n  }\n}\n",
       {E::none}},
      // f64: cuBLASLt's epilogues are not known to take it (docs/architecture.md).
      {"f64_bias", func(", %b: f64[8] {param}", "f64[4,8]", "    %1 = add(%0, %b) : f64[4,8]\n", "%1", "f64"), {E::none}},
      // The weight gradient and the bias gradient of one dy: bgradb.
      {"bgradb",
       "module @m {\n  func @f(%dy: f32[4,6] {input}, %x: f32[4,8] {input}) -> (f32[6,8], f32[6]) {\n"
       "    %0 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : f32[6,8]\n"
       "    %1 = reduce_sum(%dy) {dims = [0], keepdim = false} : f32[6]\n    return %0, %1\n  }\n}\n",
       {E::bgradb}},
      // dy [2, 2, 6] summed over its leading dims, the dot over its rows.
      {"bgradb_through_reshape",
       "module @m {\n  func @f(%dy: f32[2,2,6] {input}, %x: f32[4,8] {input}) -> (f32[6,8], f32[6]) {\n"
       "    %r = reshape(%dy) : f32[4,6]\n"
       "    %0 = dot(%r, %x) {transpose_a = true, transpose_b = false} : f32[6,8]\n"
       "    %1 = reduce_sum(%dy) {dims = [0, 1], keepdim = false} : f32[6]\n    return %0, %1\n  }\n}\n",
       {E::bgradb}},
      // A sum over the other axis is no bias gradient of this dot.
      {"row_sum_is_no_bias_gradient",
       "module @m {\n  func @f(%dy: f32[4,6] {input}, %x: f32[4,8] {input}) -> (f32[6,8], f32[4]) {\n"
       "    %0 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : f32[6,8]\n"
       "    %1 = reduce_sum(%dy) {dims = [1], keepdim = false} : f32[4]\n    return %0, %1\n  }\n}\n",
       {E::none}},
  };
}

TEST(GemmEpilogue, FormedOnGpuTargetsOnly) {
  for (const Case& c : cases()) {
    auto m = parse(c.text);
    ASSERT_TRUE(m) << c.name;
    const Function& f = *m->find("f");
    EXPECT_EQ(epilogues(f, rt::kCudaTarget), c.gpu) << c.name;
    EXPECT_EQ(epilogues(f, rt::kHostGpuTarget), c.gpu) << c.name;
    const std::vector<GemmEpilogue> cpu = epilogues(f, rt::kCpuTarget);
    EXPECT_EQ(cpu, std::vector<GemmEpilogue>(cpu.size(), GemmEpilogue::none)) << c.name;
    EXPECT_EQ(cpu.size(), c.gpu.size()) << c.name;
    // `mlc run --no-gemm-epilogues`: a GPU target lowers as the CPU does.
    EXPECT_EQ(epilogues(f, rt::kCudaTarget, false), cpu) << c.name;
  }
}

TEST(GemmEpilogue, FusionPlansThemOnlyWhenAsked) {
  auto m = parse(func(kBias, "f32[4,8]", "    %1 = add(%0, %b) : f32[4,8]\n    %2 = relu(%1) : f32[4,8]\n", "%2"));
  ASSERT_TRUE(m);
  Function& f = *m->find("f");
  decompose_composites(f);  // relu is max(y, 0) by then, as lowering sees it
  auto count = [&](bool gpu) {
    FusionOptions o;
    o.gemm_epilogues = gpu;
    int n = 0;
    for (const FusionGroup& g : plan_fusion(f, o).groups) n += g.kind == GroupKind::gemm_epilogue;
    return n;
  };
  EXPECT_EQ(count(false), 0);
  EXPECT_EQ(count(true), 1);
  std::optional<GemmEpilogueMatch> match = match_gemm_epilogue(f, *f.ops.front());
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->epilogue, GemmEpilogue::bias_relu);
  EXPECT_EQ(match->operand, f.args[2]);
  EXPECT_EQ(match->product->code, OpCode::Max);
}

TEST(GemmEpilogue, LoweredTextForCudaMatchesItsGoldenFile) {
  const std::string dir = std::string(MLC_SOURCE_DIR) + "/tests/compiler/data/";
  auto m = parse_module_file(dir + "lowered_epilogue.mlir");
  ASSERT_TRUE(m.ok()) << m.error().message;
  LoweredFunction l = lower(*m->find("step"), rt::kCudaTarget);
  ASSERT_TRUE(l.executable);
  std::ifstream in(dir + "lowered_epilogue.expected");
  std::stringstream want;
  want << in.rdbuf();
  EXPECT_EQ(print_lowered(l), want.str());
}

// Every case's function on host-gpu against the interpreter, bit for bit.
TEST(GemmEpilogue, HostGpuGivesTheInterpretersValues) {
  if (!rt::find_target(rt::kHostGpuTarget)) GTEST_SKIP() << "this build has no host-gpu target";
  for (const Case& c : cases()) {
    auto m = parse(c.text);
    ASSERT_TRUE(m) << c.name;
    const Function& f = *m->find("f");
    LoweredFunction l = lower(f, rt::kHostGpuTarget, /*compile=*/true);
    ASSERT_TRUE(l.executable) << c.name;
    std::vector<rt::Tensor> inputs;
    DType half = DType::f32;  // the case's bf16 or f16, if any
    for (const Value* v : f.args) {
      if (is_half(v->type.dtype)) half = v->type.dtype;
      std::vector<double> x(static_cast<size_t>(num_elements(v->type.shape)));
      // bf16, f16: times 1 + 2^-6, so that products need more bits than the
      // dtype has and the one rounding against several shows.
      const double scale = is_half(v->type.dtype) ? 1.015625 : 1;
      for (size_t i = 0; i < x.size(); ++i)
        x[i] = static_cast<double>(static_cast<int>((i * 7 + x.size()) % 17) - 8) / 8 * scale;
      inputs.push_back(rt::testing::make_tensor(v->type.dtype, v->type.shape, x));
    }
    auto interp = rt::Interpreter::create(f);
    ASSERT_TRUE(interp.ok()) << c.name;
    auto want = interp->run(inputs);
    ASSERT_TRUE(want.ok()) << c.name << ": " << want.error().message;
    auto exe = rt::Executor::create(l.executable);
    ASSERT_TRUE(exe.ok()) << c.name << ": " << exe.error().message;
    std::vector<rt::Tensor*> args;
    for (rt::Tensor& t : inputs) args.push_back(&t);
    ASSERT_TRUE(exe->run(args).ok()) << c.name;
    for (size_t r = 0; r < want->size(); ++r) {
      const rt::Tensor& w = (*want)[r];
      const rt::Tensor& g = exe->result(r);
      ASSERT_EQ(w.num_bytes(), g.num_bytes()) << c.name;
      // A gemm's results are bit for bit the interpreter's; a kernel's within
      // a few ulps (OpenCL's tanh and erf are not glibc's). bf16 and f16: the
      // epilogue rounds once where the interpreter rounds the product, the
      // bias add and the result each, half a unit in the last place (2^-8
      // relative in bf16, 2^-11 in f16) at a time, through slopes of at most
      // about 1.1 (the GELU's and its derivative's), and a bias gradient sums
      // 4 rows of such results: within 4 units of the larger of the result
      // and 1 (the pre-activation's scale), for every result of such a case
      // (measured: 1.1 units in bf16, 1 in f16).
      const int slot = l.executable->results[r].slot;
      bool by_gemm = false;
      for (const rt::Instruction& ins : l.executable->instructions)
        by_gemm |= ins.kind == rt::InstrKind::gemm &&
                   (ins.result == slot || std::find(ins.more_results.begin(), ins.more_results.end(), slot) !=
                                              ins.more_results.end());
      const double tolerance = half == DType::bf16 ? 4.0 / 256 : half == DType::f16 ? 4.0 / 2048 : 1e-6;
      if (by_gemm && half == DType::f32) {
        EXPECT_EQ(std::memcmp(w.bytes(), g.bytes(), static_cast<size_t>(w.num_bytes())), 0)
            << c.name << " result " << r << ": " << ::testing::PrintToString(rt::testing::to_doubles(g)) << " vs "
            << ::testing::PrintToString(rt::testing::to_doubles(w));
        continue;
      }
      const std::vector<double> wd = rt::testing::to_doubles(w), gd = rt::testing::to_doubles(g);
      for (size_t i = 0; i < wd.size(); ++i)
        EXPECT_NEAR(gd[i], wd[i], tolerance * (1 + std::fabs(wd[i]))) << c.name << " result " << r << " element " << i;
    }
  }
}

// defer_bias_gradient_readers moves the readers of a bias gradient's sum
// between it and the weight gradient's dot to after the dot, in their order;
// what the dot reads stays.
TEST(GemmEpilogue, DeferBiasGradientReadersMovesThemAfterTheDot) {
  auto m = parse(
      "module @m {\n  func @f(%dy: bf16[4,6] {input}, %x: bf16[4,8] {input}) -> (bf16[6,8], f32[6], f32[4,8]) {\n"
      "    %1 = reduce_sum(%dy) {dims = [0], keepdim = false} : bf16[6]\n    %2 = cast(%1) : f32[6]\n"
      "    %3 = cast(%x) : f32[4,8]\n    %4 = neg(%2) : f32[6]\n"
      "    %0 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : bf16[6,8]\n    return %0, %4, %3\n  }\n}\n");
  ASSERT_TRUE(m);
  Function& f = *m->find("f");
  EXPECT_EQ(defer_bias_gradient_readers(f), 1);
  EXPECT_EQ(print_function(f),
            "func @f(%dy: bf16[4,6] {input}, %x: bf16[4,8] {input}) -> (bf16[6,8], f32[6], f32[4,8]) {\n"
            "  %0 = reduce_sum(%dy) {dims = [0], keepdim = false} : bf16[6]\n  %1 = cast(%x) : f32[4,8]\n"
            "  %2 = dot(%dy, %x) {transpose_a = true, transpose_b = false} : bf16[6,8]\n  %3 = cast(%0) : f32[6]\n"
            "  %4 = neg(%3) : f32[6]\n  return %2, %4, %1\n}\n");
  EXPECT_EQ(defer_bias_gradient_readers(f), 0);
}

// dgelu's steps (runtime/gemm_epilogue.h kGeluGradSteps) are the ops autodiff
// writes for the tanh GELU's backward: @loss_grad of sum(gelu(y) * g) after
// the pipeline (autodiff, decompose, canonicalize) gives, on the
// interpreter, dgelu_tanh_f32(g, y) bit for bit (the gradient reaching the
// GELU is 1 * g, exactly g).
TEST(GemmEpilogue, DgeluStepsAreAutodiffsBackwardOfTheTanhGelu) {
  auto m = parse(
      "module @m {\n  func @loss(%y: f32[512] {param}, %g: f32[512] {input}) -> (f32[]) {\n"
      "    %0 = gelu(%y) {approximate = \"tanh\"} : f32[512]\n    %1 = mul(%0, %g) : f32[512]\n"
      "    %2 = reduce_sum(%1) {dims = [0], keepdim = false} : f32[]\n    return %2\n  }\n}\n");
  ASSERT_TRUE(m);
  ASSERT_TRUE(run_pass_pipeline(*m, PassPipelineOptions{}, "canonicalize").ok());
  const Function* grad = m->find("loss_grad");
  ASSERT_TRUE(grad);
  std::vector<double> y(512), g(512);
  for (size_t i = 0; i < y.size(); ++i) {
    y[i] = (static_cast<double>(i) - 256) / 29.0;  // -8.8 to 8.8, few of them dyadic
    g[i] = std::cos(static_cast<double>(i)) * 3;
  }
  std::vector<rt::Tensor> inputs = {rt::testing::make_tensor(DType::f32, {512}, y),
                                    rt::testing::make_tensor(DType::f32, {512}, g)};
  auto interp = rt::Interpreter::create(*grad);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  auto out = interp->run(inputs);
  ASSERT_TRUE(out.ok()) << out.error().message;
  const float* dy = (*out)[1].data<float>();
  for (size_t i = 0; i < y.size(); ++i) {
    const float want = rt::dgelu_tanh_f32(inputs[1].data<float>()[i], inputs[0].data<float>()[i]);
    EXPECT_EQ(std::memcmp(&dy[i], &want, sizeof want), 0) << "y " << y[i] << ": " << dy[i] << " vs " << want;
  }
  // And the closed form, to f32 rounding: g (0.5 (1 + t) + 0.5 y (1 - t^2) r (1 + 3 k y^2)).
  for (size_t i = 0; i < y.size(); ++i) {
    const double r = std::sqrt(2.0 / M_PI), t = std::tanh(r * (y[i] + 0.044715 * y[i] * y[i] * y[i]));
    const double want = g[i] * (0.5 * (1 + t) + 0.5 * y[i] * (1 - t * t) * r * (1 + 3 * 0.044715 * y[i] * y[i]));
    EXPECT_NEAR(dy[i], want, 1e-5 * (1 + std::fabs(want))) << "y " << y[i];
  }
}

}  // namespace
}  // namespace mlc
