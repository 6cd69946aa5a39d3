// The spatial layers and functional forms against PyTorch
// (tests/oracle/spatial_layers.py, recorded in tests/data/oracle/spatial):
// Conv1d, ConvTranspose1d/2d, the adaptive pools, Upsample, PixelShuffle and
// PixelUnshuffle, the padding layers, GroupNorm, InstanceNorm2d and the
// functional interpolate / pad / pixel_shuffle / adaptive pools / group_norm,
// each trained 4 SGD steps from PyTorch's initial weights on the compiled path
// and the interpreter. Tolerances as tests/tools/losses_oracle_test.cc: losses
// 1e-5 relative, first-step gradients 1e-5 of each tensor's largest entry,
// final parameters 1e-4 (a few f32 roundings of reordered sums over 4 steps).
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/parameters.h"
#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

const char* const kCases[] = {"conv1d", "conv_transpose2d", "pools", "resize", "functional"};

struct SpatialCase {
  std::string name;
  Backend backend;
};

class SpatialOracle : public ::testing::TestWithParam<SpatialCase> {};

TEST_P(SpatialOracle, MatchesPyTorchStepForStep) {
  const SpatialCase& c = GetParam();
  const std::string base = "tests/data/oracle/spatial/" + c.name;
  const std::string dir = oracle::temp_dir("spatial_" + c.name + (c.backend == Backend::compiled ? "_compiled" : "_interp"));
  ModelFile model = oracle::load_model(base + ".json");
  TrainOptions o;
  o.backend = c.backend;
  o.init_path = base + ".init.safetensors";
  o.dump_grads_path = dir + "/grads.safetensors";
  oracle::expect_training_matches(model, o, dir, base + ".losses.json", base + ".final.safetensors", 1e-4);
  // resize's conv feeds InstanceNorm, which subtracts each channel's mean: the
  // true gradient of conv.bias is 0, and both sides hold f32 rounding noise.
  std::vector<std::string> noise_only;
  if (c.name == "resize") noise_only.push_back("conv.bias");
  oracle::expect_tensors(o.dump_grads_path, base + ".grads_step0.safetensors", 1e-5, true, noise_only);
}

std::vector<SpatialCase> cases() {
  std::vector<SpatialCase> c;
  for (const char* name : kCases)
    for (Backend b : {Backend::compiled, Backend::interp}) c.push_back({name, b});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Recorded, SpatialOracle, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.name + (info.param.backend == Backend::compiled ? "_compiled" : "_interp");
});

// Seeded initialization draws PyTorch's numbers for the new layers too
// (torch.manual_seed(0), default inits, registration order): ConvTranspose's
// fan_in is weight.size(1) * kernel, Conv1d's in/groups * kernel.
TEST(SpatialInit, SeedZeroIsPyTorchsInitBitForBit) {
  for (const char* name : kCases) {
    const std::string base = std::string("tests/data/oracle/spatial/") + name;
    ModelFile model = oracle::load_model(base + ".json");
    std::vector<rt::NamedTensor> mine = rt::init_parameters(model.config().params, 0);
    auto ref = rt::read_safetensors(base + ".init.safetensors");
    ASSERT_TRUE(ref.ok());
    ASSERT_EQ(mine.size(), ref->entries.size()) << name;
    for (size_t i = 0; i < mine.size(); ++i) {
      const rt::NamedTensor& p = mine[i];
      EXPECT_EQ(p.name, ref->entries[i].name) << name << ": registration order";
      auto t = ref->get(p.name);
      ASSERT_TRUE(t.ok()) << p.name;
      ASSERT_EQ(p.tensor.type(), (*t)->type()) << p.name;
      EXPECT_EQ(std::memcmp(p.tensor.bytes(), (*t)->bytes(), p.tensor.num_bytes()), 0) << name << " " << p.name;
    }
  }
}

}  // namespace
}  // namespace mlc
