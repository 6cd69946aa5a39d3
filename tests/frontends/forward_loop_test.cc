// Loops of the forward language (frontends/forward_loop.h): a loop builds the
// IR its unrolled statements build, names assigned in the body stay defined,
// lists concatenate, the work budget counts the body N times, and mistakes are
// located in the statement.
#include <gtest/gtest.h>

#include <string>

#include "frontends/model_file.h"
#include "ir/printer.h"

namespace mlc {
namespace {

std::string cell_model(const std::string& forward) {
  return R"x({"name": "t", "inputs": {"x": {"dtype": "f32", "shape": ["batch", 3, 2]}, "t": {"dtype": "f32", "shape": ["batch", 12]}},
  "model": {"layers": {"cell": {"type": "GRUCell", "input_size": 2, "hidden_size": 4}}, "forward": [)x" +
         forward + R"x(]}, "loss": {"type": "mse", "targets": "t"}})x";
}

Expected<std::string> ir_of(const std::string& text) {
  auto mf = ModelFile::parse(text, "t.json");
  if (!mf.ok()) return mf.take_error();
  auto m = mf->build(2);
  if (!m.ok()) return m.take_error();
  std::string ir = print_module(*m);
  // Locations differ between the forms; the ops must not.
  std::string out;
  for (size_t i = 0; i < ir.size();) {
    size_t at = ir.find(" loc(", i);
    if (at == std::string::npos) {
      out += ir.substr(i);
      break;
    }
    out += ir.substr(i, at - i);
    i = ir.find(')', at) + 1;
  }
  return out;
}

std::string error_of(const std::string& forward) {
  auto r = ir_of(cell_model(forward));
  return r.ok() ? "" : r.error().message;
}

TEST(ForwardLoop, BuildsTheUnrolledStatements) {
  auto loop = ir_of(cell_model(
      R"x("h = zeros(x.size(0), 4)", "outs = []", "for t in range(3): h = cell(x[:, t], h); outs = outs + [h]", "return cat(outs, dim=1)")x"));
  auto augmented = ir_of(cell_model(
      R"x("h = zeros(x.size(0), 4)", "outs = []", "for t in range(3): h = cell(x[:, t], h); outs += [h]", "return cat(outs, dim=1)")x"));
  auto unrolled = ir_of(cell_model(
      R"x("h = zeros(x.size(0), 4)", "h = cell(x[:, 0], h)", "o0 = h", "h = cell(x[:, 1], h)", "o1 = h",
          "h = cell(x[:, 2], h)", "return cat([o0, o1, h], dim=1)")x"));
  ASSERT_TRUE(loop.ok()) << loop.error().message;
  ASSERT_TRUE(unrolled.ok()) << unrolled.error().message;
  EXPECT_EQ(*loop, *unrolled);
  ASSERT_TRUE(augmented.ok()) << augmented.error().message;
  EXPECT_EQ(*augmented, *unrolled);
}

TEST(ForwardLoop, MistakesAreLocated) {
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for t in range(0): h = cell(x[:, t], h)", "return h")x"),
            "t.json:2:132: error: forward: a loop runs over range(N), N an integer literal from 1 to 65536 (the model's shapes are static)");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for t in range(x.size(1)): h = cell(x[:, t], h)", "return h")x"),
            "t.json:2:132: error: forward: a loop runs over range(N), N an integer literal from 1 to 65536 (the model's shapes are static)");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for t in range(3) h = cell(x[:, t], h)", "return h")x"),
            "t.json:2:135: error: forward: expected ':' in 'for NAME in range(N): statements'");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for t in range(3): return h", "return h")x"),
            "t.json:2:136: error: forward: a loop's body cannot return");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for t in range(3): for u in range(2): h = h", "return h")x"),
            "t.json:2:136: error: forward: loops do not nest");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for t in range(3): h = cell(x[:, t], h);", "return h")x"),
            "t.json:2:157: error: forward: expected a statement in the loop's body");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "outs += [h]", "return h")x"),
            "t.json:2:117: error: forward: 'outs' is not defined before '+='");
  EXPECT_EQ(error_of(R"x("h = x[:, 0]", "for cell in range(3): h = h", "return h")x"),
            "t.json:2:121: error: forward: cannot assign to 'cell': it is a layer");
  EXPECT_EQ(error_of(R"x("h = zeros(x.size(0), 4)", "for t in range(3): h = cell(x[:, t], h)")x"),
            "t.json:2:128: error: forward: the last statement is a loop; return a value after it");
}

// The budget counts the body N times: 65536 cell calls are too many IR ops.
TEST(ForwardLoop, WorkBudgetCountsEveryIteration) {
  std::string err = error_of(R"x("h = zeros(x.size(0), 4)", "for t in range(65536): h = cell(x[:, 0], h)", "return h")x");
  EXPECT_NE(err.find("over budget"), std::string::npos) << err;
}

}  // namespace
}  // namespace mlc
