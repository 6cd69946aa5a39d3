// Outlining (compiler/outline_fusions.h): loop kernels become fusion ops with
// bodies that print, parse back and verify, and the outlined function computes
// bit for bit what the original computes, on the interpreter (which inlines
// the bodies) and lowered (to the same instructions).
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/fusion.h"
#include "compiler/lower.h"
#include "compiler/outline_fusions.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "runtime/interpreter.h"
#include "tests/compiler/step_arguments.h"

namespace mlc {
namespace {

Module parse_ok(const std::string& text) {
  auto m = parse_module(text, "t.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  return m.ok() ? std::move(*m) : Module{};
}

// A chain fuses into one kernel whose body keeps each op's location and
// scope; the dot stays outside; the splat constant moves into the body.
TEST(OutlineFusions, SmallFunction) {
  Module m = parse_ok(R"(module @m {
  func @f(%x: f32[4,8] {input}, %w: f32[3,8] {param}, %b: f32[3] {param}) -> (f32[4,3]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,3] loc("m.json":2:3)
    %1 = broadcast(%b) {dims = [1]} : f32[4,3] meta {scope = "fc"} loc("m.json":2:3)
    %2 = add(%0, %1) : f32[4,3] meta {scope = "fc"} loc("m.json":2:3)
    %3 = constant() {value = 0.0} : f32[]
    %4 = max(%2, %3) : f32[4,3] meta {scope = "act"} loc("m.json":3:3)
    return %4
  }
}
)");
  EXPECT_EQ(outline_fusions(*m.functions[0]), 1);
  EXPECT_TRUE(verify_module(m).ok());
  EXPECT_EQ(print_module(m), R"(module @m {
  func @f(%x: f32[4,8] {input}, %w: f32[3,8] {param}, %b: f32[3] {param}) -> (f32[4,3]) {
    %0 = dot(%x, %w) {transpose_a = false, transpose_b = true} : f32[4,3] loc("m.json":2:3)
    %1 = fusion(%b, %0) : f32[4,3] meta {scope = "act"} loc("m.json":3:3) body(%in0: f32[3], %in1: f32[4,3]) {
      %0 = broadcast(%in0) {dims = [1]} : f32[4,3] meta {scope = "fc"} loc("m.json":2:3)
      %1 = add(%in1, %0) : f32[4,3] meta {scope = "fc"} loc("m.json":2:3)
      %2 = constant() {value = 0.0} : f32[]
      %3 = max(%1, %2) : f32[4,3] meta {scope = "act"} loc("m.json":3:3)
      return %3
    }
    return %1
  }
}
)");
}

// A splat constant that two ops of one kernel read (ReLU's gradient:
// select(x > 0, g, 0)) is computed inside that kernel and gets no kernel of
// its own; before, only one of its two reads was counted as absorbed.
TEST(Fusion, SourceReadTwiceInOneKernelHasNoGroupOfItsOwn) {
  Module m = parse_ok(R"(module @m {
  func @f(%x: f32[8] {input}, %g: f32[8] {input}) -> (f32[8]) {
    %0 = constant() {value = 0.0} : f32[]
    %1 = compare(%x, %0) {direction = "gt"} : bool[8]
    %2 = select(%1, %g, %0) : f32[8]
    return %2
  }
}
)");
  FusionPlan plan = plan_fusion(*m.functions[0]);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].kind, GroupKind::loop);
  EXPECT_EQ(plan.groups[0].ops.size(), 3u);
}


std::vector<int> instructions_by_kind(const Function& f) {
  LowerOptions options;
  options.compile_kernels = false;
  auto lowered = lower_function(f, options);
  EXPECT_TRUE(lowered.ok()) << lowered.error().message;
  std::vector<int> counts(4, 0);
  if (lowered.ok())
    for (const rt::Instruction& ins : lowered->executable->instructions) ++counts.at(static_cast<size_t>(ins.kind));
  return counts;
}

class OutlinedExample : public ::testing::TestWithParam<std::string> {};

TEST_P(OutlinedExample, RoundTripsAndComputesTheSame) {
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + GetParam() + ".json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto built = model->build(model->config().train.batch_size);
  ASSERT_TRUE(built.ok()) << built.error().message;
  Module m = std::move(*built);
  PassPipelineOptions o;
  o.optimizer = model->config().train.optimizer;
  ASSERT_TRUE(run_pass_pipeline(m, o).ok());
  const Function& original = *m.find("train_step");
  std::unique_ptr<Function> outlined = original.clone();
  const int fusions = outline_fusions(*outlined);
  EXPECT_GT(fusions, 0);
  EXPECT_TRUE(verify_function(*outlined).ok());
  int fusion_ops = 0;
  for (const auto& op : outlined->ops) fusion_ops += op->code == OpCode::Fusion;
  EXPECT_EQ(fusion_ops, fusions);

  // Print, parse, print: the same text.
  Module text;
  text.name = "outlined";
  text.functions.push_back(outlined->clone());
  const std::string printed = print_module(text);
  Module reparsed = parse_ok(printed);
  EXPECT_EQ(print_module(reparsed), printed);

  // Lowered: the same instructions as the original (lowering inlines the
  // bodies and fuses them back into the same kernels).
  EXPECT_EQ(instructions_by_kind(*outlined), instructions_by_kind(original));

  // Interpreted: the same bits.
  auto want_interp = rt::Interpreter::create(original);
  auto got_interp = rt::Interpreter::create(*reparsed.functions[0]);
  ASSERT_TRUE(want_interp.ok() && got_interp.ok());
  std::vector<rt::Tensor> want_args = testing::step_arguments(original), got_args = testing::step_arguments(original);
  auto want = want_interp->run(want_args);
  auto got = got_interp->run(got_args);
  ASSERT_TRUE(want.ok() && got.ok());
  ASSERT_EQ(want->size(), got->size());
  for (size_t k = 0; k < want->size(); ++k) {
    ASSERT_EQ((*want)[k].type(), (*got)[k].type());
    EXPECT_EQ(std::memcmp((*want)[k].bytes(), (*got)[k].bytes(), static_cast<size_t>((*want)[k].num_bytes())), 0)
        << "result " << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, OutlinedExample, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt"));

}  // namespace
}  // namespace mlc
