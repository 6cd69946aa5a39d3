// The kernel IR verifier (compiler/kernel_ir_verify.h), which `mlc run
// --verify-code` applies to an artifact's kernel IR before compiling it: it
// accepts every kernel the compiler builds, on the buffers its instructions
// pass; it refuses, naming the expression, every breach of the contracts
// code generation relies on and every load outside its buffer; and kernel IR
// it accepts always compiles (mutated kernels, compiled when accepted).
#include "compiler/kernel_ir_verify.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "compiler/cpu/llvm_jit.h"
#include "compiler/kernel_ir_json.h"
#include "tests/compiler/lowered_kernels.h"

namespace mlc::kir {
namespace {

using Json = nlohmann::ordered_json;

TEST(KernelIrVerify, AcceptsEveryKernelTheCompilerBuilds) {
  const mlc::testing::LoweredKernels& l = mlc::testing::lowered_kernels();
  ASSERT_EQ(l.kernels.size(), l.buffers.size());
  ASSERT_GE(l.kernels.size(), 10u);
  for (size_t i = 0; i < l.kernels.size(); ++i) {
    SCOPED_TRACE(print_kernel(l.kernels[i]));
    Status s = verify_kernel(l.kernels[i]);
    EXPECT_TRUE(s.ok()) << s.error().message;
    s = verify_kernel_buffers(l.kernels[i], l.buffers[i]);
    EXPECT_TRUE(s.ok()) << s.error().message;
  }
}

// The kernel of op `op` ("%6 pad" in its origin) and its buffers.
std::pair<Kernel, std::vector<TensorType>> kernel_of(const std::string& op) {
  const mlc::testing::LoweredKernels& l = mlc::testing::lowered_kernels();
  for (size_t i = 0; i < l.kernels.size(); ++i)
    if (l.kernels[i].origin.find(" " + op) != std::string::npos) return {l.kernels[i], l.buffers[i]};
  std::string origins;
  for (const Kernel& k : l.kernels) origins += "\n" + k.origin;
  ADD_FAILURE() << "no kernel of " << op << " among" << origins;
  return {};
}

std::string buffers_error(const Kernel& k, const std::vector<TensorType>& buffers) {
  Status s = verify_kernel_buffers(k, buffers);
  return s.ok() ? "<accepted>" : s.error().message;
}

// A load outside its buffer: pad's input given as smaller than it is, and a
// strided slice's start moved past its input's end.
TEST(KernelIrVerify, RefusesLoadsOutsideTheirBuffers) {
  auto [pad, pad_buffers] = kernel_of("pad");
  ASSERT_EQ(pad_buffers.size(), 2u);
  ASSERT_EQ(pad_buffers[0], (TensorType{DType::f32, {6, 5}}));
  int load = -1;
  for (size_t id = 0; id < pad.exprs.size(); ++id)
    if (pad.exprs[id].kind == ExprKind::load) load = static_cast<int>(id);
  ASSERT_GE(load, 0);
  const std::string at = "kernel IR e" + std::to_string(load) + " (load): reads input 0 (";
  const std::string index = ") at e" + std::to_string(pad.exprs[static_cast<size_t>(load)].a) + ", which takes values in [0, 29]";
  pad_buffers[0] = {DType::f32, {5, 5}};
  EXPECT_EQ(buffers_error(pad, pad_buffers), at + "f32[5,5], 25 elements" + index);
  pad_buffers[0] = {DType::f32, {30}};
  EXPECT_EQ(buffers_error(pad, pad_buffers), "<accepted>");

  auto [slice, slice_buffers] = kernel_of("slice");
  for (Expr& e : slice.exprs)
    if (e.kind == ExprKind::iconst && e.i == 5) e.i = 6;  // start [1, 0]: row 1 is at 5
  const std::string text = buffers_error(slice, slice_buffers);
  EXPECT_NE(text.find("(load): reads input 0 (f32[6,5], 30 elements) at e"), std::string::npos) << text;
  EXPECT_NE(text.find(", which takes values in [6, 34]"), std::string::npos) << text;
}

TEST(KernelIrVerify, RefusesBuffersOfOtherTypes) {
  auto [k, buffers] = kernel_of("pad");
  std::vector<TensorType> fewer(buffers.begin(), buffers.begin() + 1);
  EXPECT_EQ(buffers_error(k, fewer), "the kernel IR has 2 params, the kernel runs on 1 buffers");
  std::vector<TensorType> f64 = buffers;
  f64[0].dtype = DType::f64;
  EXPECT_EQ(buffers_error(k, f64), "the kernel IR's input 0 is f32, its buffer f64[6,5]");
  std::vector<TensorType> shape = buffers;
  shape[1] = {DType::f32, {49}};
  EXPECT_EQ(buffers_error(k, shape), "the kernel IR's output 0 has the domain's shape [7,7], its buffer is f32[49]");
  // An output written into an input of fewer elements.
  auto [update, update_buffers] = kernel_of("mul");
  ASSERT_GE(update.output_alias, 0);
  update_buffers[static_cast<size_t>(update.output_alias)] = {DType::f64, {5, 5}};
  EXPECT_EQ(buffers_error(update, update_buffers),
            "the kernel IR's output 0 is written into input " + std::to_string(update.output_alias) +
                ", whose buffer f64[5,5] does not hold its 30 elements");
}

// Hand-written kernels over the domain [4]: inputs f32[4] (or as given), one output.
std::string verify_error(const std::string& exprs, const std::string& params = R"(["f32", "f32"])",
                         const std::string& rest = R"("root": 2, "num_vars": 1, "domain": [4])") {
  const Json p = Json::parse(params);
  Json j = Json::parse("{" + rest + "}");
  j["params"] = p;
  j["exprs"] = Json::parse(exprs);
  if (!j.contains("more_roots")) j["more_roots"] = Json::array();
  if (!j.contains("more_alias")) j["more_alias"] = Json::array();
  if (!j.contains("output_alias")) j["output_alias"] = -1;
  if (!j.contains("elementwise_input")) j["elementwise_input"] = std::vector<bool>(p.size() - 1, true);
  auto k = kernel_from_json(j.dump());
  if (!k) return "json: " + k.error().message;
  Status s = verify_kernel(*k);
  return s.ok() ? "<accepted>" : s.error().message;
}

constexpr char kVar[] = R"({"kind": "var"})";
constexpr char kLoad[] = R"({"kind": "load", "dtype": "f32", "a": 0})";

std::string exprs(std::initializer_list<std::string> list) {
  std::string s = "[";
  for (const std::string& e : list) s += (s.size() > 1 ? ", " : "") + e;
  return s + "]";
}

TEST(KernelIrVerify, RefusesKindsAndDtypesCodeGenerationDoesNotHandle) {
  EXPECT_EQ(verify_error(exprs({kVar, kLoad, R"({"kind": "unary", "dtype": "f32", "op": "exp", "a": 1})"})), "<accepted>");
  const std::pair<std::string, std::string> cases[] = {
      {exprs({kVar, R"({"kind": "load", "dtype": "f32", "i": 1, "a": 0})", kLoad}),
       "kernel IR e1 (load): reads param 1, expected an input in [0, 1)"},
      {exprs({kVar, R"({"kind": "load", "dtype": "f64", "a": 0})", kLoad}),
       "kernel IR e1 (load): is f64, but its param 0 is f32"},
      {exprs({kVar, R"({"kind": "load", "dtype": "f32", "a": 0, "b": 0})", kLoad}),
       "kernel IR e1 (load): operand b is e0, expected none (-1)"},
      {exprs({kVar, R"({"kind": "unary", "dtype": "f32", "op": "exp"})", kLoad}), "kernel IR e1 (unary): has no operand a"},
      {exprs({kVar, kLoad, R"({"kind": "unary", "dtype": "f32", "op": "exp", "a": 0})"}),
       "kernel IR e2 (unary): is f32, but its operand e0 is i64"},
      {exprs({kVar, kLoad, R"({"kind": "unary", "dtype": "f32", "op": "transpose", "a": 1})"}),
       "kernel IR e2 (unary): op transpose is not a unary op of ir/scalar_math.h"},
      {exprs({kVar, kLoad, R"({"kind": "binary", "dtype": "f32", "op": "add", "a": 1, "b": 0})"}),
       "kernel IR e2 (binary): is f32, but its operand e0 is i64"},
      {exprs({kVar, kLoad, R"({"kind": "cast", "dtype": "i32", "a": 1})"}),
       "kernel IR e2 (cast): converts e1 (f32) to i32: float to integer is never fused"},
      {exprs({kVar, kLoad, R"({"kind": "cmp", "dtype": "bool", "a": 1, "b": 0})"}),
       "kernel IR e2 (cmp): compares operands of two dtypes: e1 is f32, e0 is i64"},
      {exprs({kVar, kLoad, R"({"kind": "select", "dtype": "f32", "a": 1, "b": 1, "c": 1})"}),
       "kernel IR e2 (select): its condition e1 is f32, expected bool"},
      {exprs({kVar, kLoad, R"({"kind": "iadd", "a": 0, "b": 1})"}),
       "kernel IR e2 (iadd): operand e1 (load) is not an index expression"},
      {exprs({kVar, R"({"kind": "iconst", "dtype": "f32", "i": 1})", kLoad}), "kernel IR e1 (iconst): is f32, expected i64"},
      {exprs({kVar, kLoad, R"({"kind": "index_value", "dtype": "f32", "a": 1})"}),
       "kernel IR e2 (index_value): operand e1 (load) is not an index expression"},
      {exprs({kVar, kLoad, R"({"kind": "unary", "dtype": "f32", "op": "neg", "a": 1})", R"({"kind": "var", "i": 1})"}),
       "kernel IR e3 (var): variable 1 is not in [0, num_vars 1)"},
  };
  for (const auto& [e, message] : cases) EXPECT_EQ(verify_error(e), message) << e;
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "load", "dtype": "i32", "a": 0})",
                                R"({"kind": "unary", "dtype": "i32", "op": "exp", "a": 1})"}),
                         R"(["i32", "i32"])"),
            "kernel IR e2 (unary): exp on i32, expected a float");
  // Half precision is fused (compiler/cpu/llvm_half.h): an f16 load cast to f32, and an exp on bf16.
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "load", "dtype": "f16", "a": 0})",
                                R"({"kind": "cast", "dtype": "f32", "a": 1})"}), R"(["f16", "f32"])"),
            "<accepted>");
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "load", "dtype": "bf16", "a": 0})",
                                R"({"kind": "unary", "dtype": "bf16", "op": "exp", "a": 1})"}), R"(["bf16", "bf16"])"),
            "<accepted>");
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "load", "dtype": "bf16", "a": 0})",
                                R"({"kind": "unary", "dtype": "f16", "op": "exp", "a": 1})"}), R"(["bf16", "f16"])"),
            "kernel IR e2 (unary): is f16, but its operand e1 is bf16");
  EXPECT_EQ(verify_error(exprs({kVar, kLoad, R"({"kind": "cast", "dtype": "f64", "a": 1})"})),
            "kernel IR root: e2 is f64, its output param f32");
  EXPECT_EQ(verify_error(exprs({kVar, kLoad, R"({"kind": "reduce", "dtype": "i64", "op": "reduce_sum", "a": 1, "var0": 1})"}),
                         R"(["f32", "i64"])"),
            "kernel IR e2 (reduce): is i64, but its operand e1 is f32");
}

// Index arithmetic: never a division by zero, never out of i64.
TEST(KernelIrVerify, RefusesIndexArithmeticThatMayFail) {
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "idiv", "a": 0, "b": 0})",
                                R"({"kind": "load", "dtype": "f32", "a": 1})"})),
            "kernel IR e1 (idiv): divides by e0, which may be 0 (it takes values in [0, 3])");
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "iconst", "i": 4611686018427387904})", R"({"kind": "imul", "a": 0, "b": 1})",
                                R"({"kind": "load", "dtype": "f32", "a": 2})"}),
                         R"(["f32", "f32"])", R"("root": 3, "num_vars": 1, "domain": [4])"),
            "kernel IR e2 (imul): may overflow i64: e0 in [0, 3], e1 in [4611686018427387904, 4611686018427387904]");
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "iconst", "i": -9223372036854775808})",
                                R"({"kind": "iconst", "i": -1})", R"({"kind": "irem", "a": 1, "b": 2})",
                                R"({"kind": "load", "dtype": "f32", "a": 3})"}),
                         R"(["f32", "f32"])", R"("root": 4, "num_vars": 1, "domain": [4])"),
            "kernel IR e3 (irem): may compute INT64_MIN % -1");
  // A division by a variable that is never 0 is fine (the intervals are checked by load, below).
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "iconst", "i": 1})", R"({"kind": "iadd", "a": 0, "b": 1})",
                                R"({"kind": "idiv", "a": 1, "b": 2})", R"({"kind": "load", "dtype": "f32", "a": 3})"}),
                         R"(["f32", "f32"])", R"("root": 4, "num_vars": 1, "domain": [4])"),
            "<accepted>");
}

// A data-dependent index only behind the kernel's own check: gather's
// checked index lies below its bound (the table's rows), so a table of fewer
// rows is a load outside its buffer; the loaded index without its check is
// no index expression, and a check of an index expression is refused.
TEST(KernelIrVerify, AcceptsADataDependentIndexOnlyBehindItsCheck) {
  auto [g, buffers] = kernel_of("gather");
  ASSERT_EQ(buffers.size(), 3u);
  EXPECT_EQ(buffers_error(g, buffers), "<accepted>");
  int check = -1, table_load = -1;
  const int table = buffers[0].dtype == DType::f32 ? 0 : 1;
  for (size_t id = 0; id < g.exprs.size(); ++id) {
    if (g.exprs[id].kind == ExprKind::checked_index) check = static_cast<int>(id);
    if (g.exprs[id].kind == ExprKind::load && g.exprs[id].i == table) table_load = static_cast<int>(id);
  }
  ASSERT_GE(check, 0);
  ASSERT_GE(table_load, 0);
  std::vector<TensorType> fewer_rows = buffers;
  fewer_rows[static_cast<size_t>(table)] = TensorType{DType::f32, {4, 64}};
  EXPECT_EQ(buffers_error(g, fewer_rows),
            "kernel IR e" + std::to_string(table_load) + " (load): reads input " + std::to_string(table) +
                " (f32[4,64], 256 elements) at e" + std::to_string(g.exprs[static_cast<size_t>(table_load)].a) +
                ", which takes values in [0, 511]");
  Kernel unchecked = g;
  unchecked.exprs[static_cast<size_t>(check)].kind = ExprKind::cast;
  int user = -1;
  for (size_t id = static_cast<size_t>(check) + 1; id < g.exprs.size() && user < 0; ++id)
    for (int x : {g.exprs[id].a, g.exprs[id].b, g.exprs[id].c})
      if (x == check) user = static_cast<int>(id);
  ASSERT_GE(user, 0);
  Status s = verify_kernel(unchecked);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "kernel IR e" + std::to_string(user) + " (" +
                                   std::string(kind_name(g.exprs[static_cast<size_t>(user)].kind)) + "): operand e" +
                                   std::to_string(check) + " (cast) is not an index expression");
  Kernel of_index = g;
  of_index.exprs[static_cast<size_t>(check)].a = 0;  // e0: a variable
  s = verify_kernel(of_index);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message, "kernel IR e" + std::to_string(check) +
                                   " (checked_index): checks e0 (var), an index expression, expected a value");
}

// Variables: each bound once, and used only where bound.
TEST(KernelIrVerify, RefusesVariablesOutsideTheirLoops) {
  const std::string reduce = R"({"kind": "reduce", "dtype": "f32", "op": "reduce_sum", "a": 3, "var0": 1, "extents": [4]})";
  const std::string load_v1 = R"({"kind": "load", "dtype": "f32", "a": 1})";
  // sum over j of x[j]: valid; then the same load of variable 1 as the root.
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "var", "i": 1})", R"({"kind": "iconst"})", load_v1, reduce}),
                         R"(["f32", "f32"])", R"("root": 4, "num_vars": 2, "domain": [4])"),
            "<accepted>");
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "var", "i": 1})", R"({"kind": "iconst"})", load_v1, reduce}),
                         R"(["f32", "f32"])", R"("root": 3, "num_vars": 2, "domain": [4])"),
            "kernel IR root: e3 depends on variable 1, which only a reduction binds, outside that reduction");
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "var", "i": 1})", R"({"kind": "iconst"})", load_v1}),
                         R"(["f32", "f32"])", R"("root": 3, "num_vars": 2, "domain": [4])"),
            "kernel IR num_vars: variable 1 is bound by nothing");
  const std::string reduce0 = R"({"kind": "reduce", "dtype": "f32", "op": "reduce_sum", "a": 3, "var0": 0, "extents": [4]})";
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "var", "i": 1})", R"({"kind": "iconst"})", load_v1, reduce0}),
                         R"(["f32", "f32"])", R"("root": 4, "num_vars": 2, "domain": [4])"),
            "kernel IR e4 (reduce): binds variables [0, 1), expected a range within [1, num_vars 2)");
  const std::string again = R"({"kind": "reduce", "dtype": "f32", "op": "reduce_sum", "a": 4, "var0": 1, "extents": [4]})";
  EXPECT_EQ(verify_error(exprs({kVar, R"({"kind": "var", "i": 1})", R"({"kind": "iconst"})", load_v1, reduce, again}),
                         R"(["f32", "f32"])", R"("root": 5, "num_vars": 2, "domain": [4])"),
            "kernel IR e5 (reduce): binds variable 1, which e4 binds");
}

TEST(KernelIrVerify, RefusesOperandChainsDeeperThanCodeGenerationRecurses) {
  std::string chain = std::string("[") + kVar + ", " + kLoad;
  for (int i = 2; i < 2100; ++i)
    chain += R"(, {"kind": "unary", "dtype": "f32", "op": "neg", "a": )" + std::to_string(i - 1) + "}";
  chain += "]";
  EXPECT_EQ(verify_error(chain, R"(["f32", "f32"])", R"("root": 2099, "num_vars": 1, "domain": [4])"),
            "kernel IR e2049 (unary): is 2049 operands deep, more than 2048");
}

TEST(KernelIrVerify, RefusesAnOutputWrittenIntoAnInputItIsNotElementwiseIn) {
  EXPECT_EQ(verify_error(exprs({kVar, kLoad, R"({"kind": "unary", "dtype": "f32", "op": "neg", "a": 1})"}),
                         R"(["f32", "f32"])",
                         R"("root": 2, "num_vars": 1, "domain": [4], "output_alias": 0, "elementwise_input": [false])"),
            "kernel IR output_alias: output 0 is written into input 0, which is not an elementwise input");
}

// In-memory kernels (what kernel_from_json cannot express): operands after
// their user.
TEST(KernelIrVerify, RefusesOperandsThatDoNotPrecedeTheirUser) {
  auto [k, buffers] = kernel_of("pad");
  k.exprs[static_cast<size_t>(k.root)].a = static_cast<int>(k.exprs.size()) + 3;
  const std::string want = "kernel IR e" + std::to_string(k.root) + " (" +
                           std::string(kind_name(k.exprs[static_cast<size_t>(k.root)].kind)) + "): operand a is e" +
                           std::to_string(k.exprs.size() + 3) + ", expected an earlier expression";
  EXPECT_EQ(verify_kernel(k).error().message, want);
}

// Random damage to the kernels of kVariedKernels: whatever the verifier
// accepts, code generation compiles (an assertion or invalid LLVM IR there
// would be a gap in the verifier), and the buffer check never crashes.
TEST(KernelIrVerify, KernelIrItAcceptsAlwaysCompiles) {
  const mlc::testing::LoweredKernels& l = mlc::testing::lowered_kernels();
  std::mt19937 rng(7);
  static const char* const kKinds[] = {"var", "iconst", "iadd", "imul", "idiv", "irem", "imin", "imax", "ilt",
                                       "constant", "load", "unary", "binary", "cmp", "select", "cast",
                                       "index_value", "reduce"};
  static const char* const kDtypes[] = {"f32", "f64", "i32", "i64", "bool"};
  static const char* const kOps[] = {"add", "sub", "mul", "div", "max", "min", "pow", "neg", "abs", "exp", "log",
                                     "sqrt", "tanh", "reduce_sum", "reduce_max", "argmax"};
  std::vector<Kernel> accepted;
  int mutants = 0, refused = 0;
  for (int round = 0; round < 600; ++round) {
    const size_t which = rng() % l.kernels.size();
    Json j = Json::parse(kernel_to_json(l.kernels[which]));
    Json& exprs_json = j["exprs"];
    const int n = static_cast<int>(exprs_json.size());
    for (int edits = 1 + static_cast<int>(rng() % 3); edits-- > 0;) {
      Json& e = exprs_json[rng() % exprs_json.size()];
      const int id = static_cast<int>(&e - &exprs_json[0]);
      switch (rng() % 7) {
        case 0: e["kind"] = kKinds[rng() % std::size(kKinds)]; break;
        case 1: e["dtype"] = kDtypes[rng() % std::size(kDtypes)]; break;
        case 2: e["op"] = kOps[rng() % std::size(kOps)]; break;
        case 3: e[std::string(1, "abc"[rng() % 3])] = static_cast<int>(rng() % (id + 1)) - 1; break;
        case 4: e["i"] = static_cast<int>(rng() % 8) - 2; break;
        case 5: j["root"] = static_cast<int>(rng() % n); break;
        default: e.erase(std::string(1, "abc"[rng() % 3])); break;
      }
    }
    ++mutants;
    auto k = kernel_from_json(j.dump());
    if (!k || !verify_kernel(*k)) {
      ++refused;
      continue;
    }
    (void)verify_kernel_buffers(*k, l.buffers[which]);
    if (accepted.size() < 40) {
      k->name = "mlc_kernel_mutant_" + std::to_string(accepted.size());
      accepted.push_back(std::move(*k));
    }
  }
  EXPECT_GT(refused, mutants / 4);
  EXPECT_GE(accepted.size(), 20u);
  auto objects = compile_named_kernels(accepted);
  ASSERT_TRUE(objects.ok()) << objects.error().message;
  for (const std::string& o : *objects) EXPECT_GT(o.size(), 100u);
}

}  // namespace
}  // namespace mlc::kir
