// The interpreter against the PyTorch oracle: the loss of each example's first
// training batch with the oracle's initial weights equals the oracle's
// losses[0] within 1e-5 relative (f32 rounding differences only).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/safetensors.h"
#include "driver/evaluate.h"

namespace mlc {
namespace {

class FirstBatch : public ::testing::TestWithParam<std::string> {};

TEST_P(FirstBatch, LossEqualsOracleStep0) {
  const std::string name = GetParam();
  auto model = ModelFile::load("examples/" + name + ".json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  const ModelConfig& config = model->config();
  auto params = rt::load_parameters(config.params, "tests/data/oracle/" + name + "/init.safetensors");
  ASSERT_TRUE(params.ok()) << params.error().message;
  auto data = rt::read_safetensors(config.data.file);
  ASSERT_TRUE(data.ok()) << data.error().message;
  auto split = rt::Split::load(*data, config.data.train, config.inputs, "train");
  ASSERT_TRUE(split.ok()) << split.error().message;
  auto loss = batch_loss(*model, *split, *params, 0, config.train.batch_size);
  ASSERT_TRUE(loss.ok()) << loss.error().message;
  std::ifstream in("tests/data/oracle/" + name + "/losses.json");
  double expected = nlohmann::json::parse(in)["losses"][0];
  EXPECT_LT(std::fabs(*loss - expected) / expected, 1e-5) << *loss << " vs " << expected;
}

INSTANTIATE_TEST_SUITE_P(All, FirstBatch, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt"));

}  // namespace
}  // namespace mlc
