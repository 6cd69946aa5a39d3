// The lowered form as text (print_lowered, `mlc ir --after lower`): a golden
// file pins the format, kernel bodies and op ids; and each example lowers to
// the instruction and kernel counts recorded here, so that a fusion change
// that splits or merges kernels shows up as a test diff.
#include <gtest/gtest.h>

#include <array>
#include <set>
#include <fstream>
#include <sstream>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/parser.h"

namespace mlc {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(LoweredText, SmallFunctionMatchesItsGoldenFile) {
  const std::string dir = std::string(MLC_SOURCE_DIR) + "/tests/compiler/data/";
  auto m = parse_module_file(dir + "lowered_small.mlir");
  ASSERT_TRUE(m.ok()) << m.error().message;
  LowerOptions o;
  o.compile_kernels = false;
  auto l = lower_function(*m->find("step"), o);
  ASSERT_TRUE(l.ok()) << l.error().message;
  EXPECT_EQ(print_lowered(*l), read(dir + "lowered_small.expected"));
}

struct Counts {
  const char* example;
  int instructions, kernel, gemm, reference, copy, distinct_kernels;
};

class ExampleCounts : public ::testing::TestWithParam<Counts> {};

TEST_P(ExampleCounts, TrainStepLowersToTheRecordedInstructions) {
  const Counts& want = GetParam();
  auto model = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + want.example + ".json");
  ASSERT_TRUE(model.ok());
  auto m = model->build(model->config().train.batch_size);
  ASSERT_TRUE(m.ok());
  PassPipelineOptions p;
  p.optimizer = model->config().train.optimizer;
  ASSERT_TRUE(run_pass_pipeline(*m, p).ok());
  LowerOptions o;
  o.compile_kernels = false;
  auto l = lower_function(*m->find("train_step"), o);
  ASSERT_TRUE(l.ok());
  std::array<int, rt::kInstrKinds> by_kind{};
  for (const rt::Instruction& ins : l->executable->instructions) ++by_kind[static_cast<size_t>(ins.kind)];
  EXPECT_EQ(static_cast<int>(l->executable->instructions.size()), want.instructions);
  EXPECT_EQ(by_kind[static_cast<size_t>(rt::InstrKind::kernel)], want.kernel);
  EXPECT_EQ(by_kind[static_cast<size_t>(rt::InstrKind::gemm)], want.gemm);
  EXPECT_EQ(by_kind[static_cast<size_t>(rt::InstrKind::reference)], want.reference);
  EXPECT_EQ(by_kind[static_cast<size_t>(rt::InstrKind::copy)], want.copy);
  std::set<std::string> distinct;
  for (const kir::Kernel& k : l->kernels) distinct.insert(kir::signature(k));
  EXPECT_EQ(static_cast<int>(distinct.size()), want.distinct_kernels);
  // Every instruction says which ops it computes (or why a copy exists).
  const std::vector<rt::Instruction>& list = l->executable->instructions;
  for (size_t i = 0; i < list.size(); ++i) EXPECT_FALSE(list[i].origin.empty()) << "instruction " << i;
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleCounts,
                         ::testing::Values(Counts{"digits_mlp", 15, 10, 5, 0, 0, 10},
                                           Counts{"digits_cnn", 31, 23, 8, 0, 0, 23},
                                           Counts{"tiny_gpt", 148, 91, 57, 0, 0, 33}),
                         [](const auto& info) { return std::string(info.param.example); });

}  // namespace
}  // namespace mlc
