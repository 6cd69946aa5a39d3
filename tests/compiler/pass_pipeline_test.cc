// The pass pipeline: the verifier after every pass, per-stage hooks, timings.
#include "compiler/pass_pipeline.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "ir/builder.h"
#include "ir/parser.h"

namespace mlc {
namespace {

Module small_loss() {
  auto m = parse_module(R"(module @m {
  func @loss(%x: f32[2] {input}, %w: f32[2] {param}) -> (f32[]) {
    %0 = mul(%x, %w) : f32[2]
    %1 = reduce_sum(%0) {dims = [0], keepdim = false} : f32[]
    return %1
  }
}
)",
                        "m.mlir");
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

// A pass that breaks the IR: it makes the function return a value of another
// function.
class BreakingPass : public Pass {
 public:
  std::string_view name() const override { return "breaking"; }
  Expected<bool> run(Module& module) override {
    Function& other = module.add_function("other");
    Value* stray = other.add_arg("y", TensorType{DType::f32, {}}, ArgKind::input);
    module.functions.front()->results[0] = stray;
    return true;
  }
};

TEST(PassPipeline, VerifiesAfterEveryPass) {
  Module m = small_loss();
  BreakingPass pass;
  PassPipelineOptions options;
  options.verify_each = true;
  Status s = run_pass_pipeline_stage(pass, m, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message.rfind("mlc internal error: the IR after pass 'breaking' does not verify: ", 0),
            0u)
      << s.error().message;
}

// Verification is on in debug builds and with MLC_VERIFY_PASSES=1, which ctest
// sets for every test (tests/CMakeLists.txt).
TEST(PassPipeline, VerifiesByDefaultInDebugBuildsAndUnderCtest) {
  const char* env = std::getenv("MLC_VERIFY_PASSES");
#ifdef NDEBUG
  const bool debug = false;
#else
  const bool debug = true;
#endif
  EXPECT_EQ(PassPipelineOptions{}.verify_each, debug || (env && std::string(env) == "1"));
}

TEST(PassPipeline, ReportsEveryStageAndItsTime) {
  Module m = small_loss();
  std::vector<std::string> stages;
  std::vector<PassTiming> timings;
  PassPipelineOptions options;
  options.optimizer = OptimizerConfig{};
  options.optimizer->type = "sgd";
  options.optimizer->lr = 0.1;
  options.after_each = [&](const std::string& pass, const Module& after) {
    stages.push_back(pass);
    EXPECT_NE(after.find("loss"), nullptr);
  };
  options.timings = &timings;
  ASSERT_TRUE(run_pass_pipeline(m, options).ok());
  // Every stage but autocast, which runs only with a mixed-precision policy,
  // and sharding, which runs only with a mesh.
  std::vector<std::string> expected(pass_pipeline_names().begin() + 1, pass_pipeline_names().end() - 1);
  EXPECT_EQ(pass_pipeline_names().front(), "autocast");
  EXPECT_EQ(expected.back(), "canonicalize");
  EXPECT_EQ(stages, expected);
  ASSERT_EQ(timings.size(), stages.size());
  for (size_t i = 0; i < timings.size(); ++i) {
    EXPECT_EQ(timings[i].pass, stages[i]);
    EXPECT_GE(timings[i].ms, 0.0);
  }
}

// The plan is validated before any pass runs: a mesh axis or pipeline stages
// without an implementation are an error, and the module is left as it was.
TEST(PassPipeline, RefusesAParallelPlanThatIsNotImplemented) {
  Module m = small_loss();
  PassPipelineOptions options;
  options.optimizer = OptimizerConfig{};
  options.optimizer->type = "sgd";
  options.optimizer->lr = 0.1;
  options.parallel.mesh = Mesh::parse("pp=2").value();
  Status s = run_pass_pipeline(m, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "error: parallel plan: mesh pp=2: the pass pipeline partitions one program, and a pipeline's stages are "
            "programs of their own (driver/program.h builds them for mlc run and mlc compile); mlc ir does not take "
            "a pp axis yet");
  EXPECT_EQ(m.functions.size(), 1u);
  options.parallel.mesh = Mesh::parse("tp=2,pp=2").value();
  s = run_pass_pipeline(m, options);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().message,
            "error: parallel plan: mesh tp=2,pp=2: the pass pipeline partitions one program, and a pipeline's stages "
            "are programs of their own (driver/program.h builds them for mlc run and mlc compile); mlc ir does not "
            "take a pp axis yet");
  EXPECT_EQ(m.functions.size(), 1u);
}

}  // namespace
}  // namespace mlc
