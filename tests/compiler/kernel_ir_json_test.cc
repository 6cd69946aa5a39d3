// Kernel IR as JSON (compiler/kernel_ir_json.h), what artifacts carry beside
// each kernel object: every kernel of a function with every kind of
// expression reads back with the same signature (hence the same object), and
// every malformed field is an Error naming it, what was expected and what was
// found.
#include "compiler/kernel_ir_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/compiler/lowered_kernels.h"

namespace mlc::kir {
namespace {

using Json = nlohmann::ordered_json;

TEST(KernelIrJson, EveryKernelReadsBackAsWritten) {
  const mlc::testing::LoweredKernels& l = mlc::testing::lowered_kernels();
  ASSERT_GE(l.kernels.size(), 10u);
  std::set<ExprKind> kinds;
  bool minus_inf = false, nan = false, alias = false;
  for (const Kernel& k : l.kernels) {
    SCOPED_TRACE(print_kernel(k));
    const std::string text = kernel_to_json(k);
    auto back = kernel_from_json(text);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(signature(*back), signature(k));
    EXPECT_EQ(back->elementwise_input, k.elementwise_input);
    EXPECT_EQ(back->name, "");
    back->name = k.name;
    EXPECT_EQ(print_kernel(*back), print_kernel(k));
    EXPECT_EQ(kernel_to_json(*back), text);
    for (const Expr& e : k.exprs) {
      kinds.insert(e.kind);
      minus_inf |= e.kind == ExprKind::constant && std::isinf(e.f) && e.f < 0;
      nan |= e.kind == ExprKind::constant && std::isnan(e.f);
    }
    alias |= k.output_alias >= 0;
  }
  EXPECT_EQ(kinds.size(), static_cast<size_t>(kLastExprKind) + 1) << "a kind of expression is not covered";
  EXPECT_TRUE(minus_inf && nan && alias);
}

// A kernel computing exp(x) over f32[4], as JSON.
Json exp_kernel() {
  return Json::parse(R"({"domain": [4], "root": 2, "more_roots": [], "params": ["f32", "f32"], "num_vars": 1,
    "elementwise_input": [true], "output_alias": -1, "more_alias": [],
    "exprs": [{"kind": "var"}, {"kind": "load", "dtype": "f32", "a": 0}, {"kind": "unary", "dtype": "f32", "op": "exp", "a": 1}]})");
}

std::string error_of(const std::function<void(Json&)>& edit) {
  Json j = exp_kernel();
  edit(j);
  auto k = kernel_from_json(j.dump());
  return k.ok() ? "<accepted>" : k.error().message;
}

TEST(KernelIrJson, TheBaseKernelIsValid) { EXPECT_EQ(error_of([](Json&) {}), "<accepted>"); }

TEST(KernelIrJson, MalformedFieldsAreNamed) {
  const std::pair<std::function<void(Json&)>, std::string> cases[] = {
      {[](Json& j) { j["exprs"][2]["a"] = 5; }, "kernel IR field 'exprs[2].a': expected an integer in [-1, 1], found 5"},
      {[](Json& j) { j["exprs"][0]["a"] = 0; }, "kernel IR field 'exprs[0].a': expected an integer in [-1, -1], found 0"},
      {[](Json& j) { j["exprs"][1]["kind"] = "load2"; },
       "kernel IR field 'exprs[1].kind': expected an expression kind (var, iconst, iadd, ..., load, ..., reduce), "
       "found \"load2\""},
      {[](Json& j) { j["exprs"][1]["kind"] = std::string(100, 'x'); },
       "kernel IR field 'exprs[1].kind': expected an expression kind (var, iconst, iadd, ..., load, ..., reduce), "
       "found \"" + std::string(36, 'x') + "..."},
      {[](Json& j) { j["exprs"][1]["dtype"] = "f31"; },
       "kernel IR field 'exprs[1].dtype': expected a dtype (f32, f64, bf16, f16, i32, i64, bool), found \"f31\""},
      {[](Json& j) { j["exprs"][2]["op"] = "exq"; }, "kernel IR field 'exprs[2].op': expected an op of the op table, found \"exq\""},
      {[](Json& j) { j["exprs"][2]["dir"] = "lte"; },
       "kernel IR field 'exprs[2].dir': expected a comparison direction (eq, ne, lt, le, gt, ge), found \"lte\""},
      {[](Json& j) { j["exprs"][2]["f"] = "0x3ff0000000000000"; },
       "kernel IR field 'exprs[2].f': expected a finite number, or a non-finite one's bits as \"0x\" and 16 lowercase "
       "hex digits, found \"0x3ff0000000000000\""},
      {[](Json& j) { j["exprs"][2]["i"] = 1.5; }, "kernel IR field 'exprs[2].i': expected an integer in "
                                                  "[-9223372036854775808, 9223372036854775807], found 1.5"},
      {[](Json& j) { j["exprs"][2]["extents"] = {3, -1}; },
       "kernel IR field 'exprs[2].extents[1]': expected an integer in [0, 9223372036854775807], found -1"},
      {[](Json& j) { j["exprs"][0]["zz"] = 1; }, "kernel IR field 'exprs[0]': unknown field \"zz\""},
      {[](Json& j) { j["exprs"][0] = 3; }, "kernel IR field 'exprs[0]': expected an object, found 3"},
      {[](Json& j) { j["exprs"] = Json::array(); }, "kernel IR field 'exprs': a kernel has at least one expression"},
      {[](Json& j) { j["zz"] = 1; }, "kernel IR: unknown field \"zz\""},
      {[](Json& j) { j.erase("root"); }, "kernel IR field 'root': expected an integer in [0, 2], found nothing"},
      {[](Json& j) { j["root"] = 3; }, "kernel IR field 'root': expected an integer in [0, 2], found 3"},
      {[](Json& j) { j["more_roots"] = {7}; }, "kernel IR field 'more_roots[0]': expected an integer in [0, 2], found 7"},
      {[](Json& j) { j["domain"] = {4, -4}; },
       "kernel IR field 'domain[1]': expected an integer in [0, 9223372036854775807], found -4"},
      {[](Json& j) { j["params"] = Json::array(); },
       "kernel IR field 'params': expected a dtype per input and per output (1 outputs), found 0 entries"},
      {[](Json& j) { j["elementwise_input"] = {true, false}; },
       "kernel IR field 'elementwise_input': expected one entry per input (1), found 2"},
      {[](Json& j) { j["elementwise_input"] = {1}; }, "kernel IR field 'elementwise_input[0]': expected true or false, found 1"},
      {[](Json& j) { j["output_alias"] = 1; }, "kernel IR field 'output_alias': expected an integer in [-1, 0], found 1"},
      {[](Json& j) { j["more_alias"] = {0}; }, "kernel IR field 'more_alias': expected one entry per further output (0), found 1"},
      {[](Json& j) { j["num_vars"] = -1; }, "kernel IR field 'num_vars': expected an integer in [0, 1048576], found -1"},
  };
  for (const auto& [edit, message] : cases) EXPECT_EQ(error_of(edit), message);
}

TEST(KernelIrJson, TextThatIsNotAKernel) {
  EXPECT_EQ(kernel_from_json("[1]").error().message, "kernel IR: expected an object, found [1]");
  const std::string truncated = kernel_from_json("{\"domain\": [4").error().message;
  EXPECT_EQ(truncated.rfind("kernel IR: not valid JSON at byte ", 0), 0u) << truncated;
  const std::string deep = kernel_from_json(std::string(20, '[') + std::string(20, ']')).error().message;
  EXPECT_EQ(deep, "kernel IR: not valid JSON at byte 8: nesting deeper than 8 levels");
  EXPECT_EQ(kernel_from_json("{\"root\": 1, \"root\": 2}").error().message.rfind("kernel IR: not valid JSON at byte ", 0),
            0u);
}

}  // namespace
}  // namespace mlc::kir
