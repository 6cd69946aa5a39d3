// A model file's "init" section and the default initializations against
// PyTorch 1.13 (tests/oracle/init_functions.py): torch.manual_seed(seed), the
// constructor's defaults, then torch.nn.init's functions in state_dict order.
// Every tensor is compared bit for bit, except orthogonal_'s, whose QR mlc
// computes in double and torch in float LAPACK: within a few f32 roundings of
// the unit-norm columns (times the gain).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "frontends/model_file.h"
#include "runtime/parameters.h"
#include "runtime/safetensors.h"

namespace mlc {
namespace {

const std::string kDir = std::string(MLC_SOURCE_DIR) + "/tests/data/oracle/init/";

void expect_init_matches(const std::string& model, const std::vector<std::string>& orthogonal = {}) {
  auto mf = ModelFile::load(kDir + model);
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  const ModelConfig& c = mf->config();
  auto ours = rt::init_parameters(c.params, c.train.seed);
  auto ref = rt::read_safetensors(kDir + model.substr(0, model.find('.')) + ".safetensors");
  ASSERT_TRUE(ref.ok()) << ref.error().message;
  ASSERT_EQ(ours.size(), ref->entries.size());
  for (const rt::NamedTensor& p : ours) {
    SCOPED_TRACE(model + ": " + p.name);
    const rt::SafetensorsEntry* e = ref->find(p.name);
    ASSERT_NE(e, nullptr);
    ASSERT_EQ(e->tensor.type(), p.tensor.type());
    auto a = p.tensor.span<float>();
    auto b = e->tensor.span<float>();
    const bool exact = std::find(orthogonal.begin(), orthogonal.end(), p.name) == orthogonal.end();
    int differing = 0;
    for (size_t i = 0; i < a.size(); ++i) {
      if (exact) {
        differing += std::memcmp(&a[i], &b[i], sizeof(float)) != 0;
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 && differing <= 3)
          ADD_FAILURE() << "element " << i << ": mlc " << a[i] << ", torch " << b[i];
      } else {
        // |q| <= 1 times gain <= 2: 8 roundings of 2^-24 relative to the gain.
        EXPECT_NEAR(a[i], b[i], 2 * 8 * 0x1p-24) << "element " << i;
      }
    }
    EXPECT_EQ(differing, 0);
  }
}

TEST(InitOracle, ConvAndLinearRules) { expect_init_matches("model_a.json", {"fc2.weight"}); }
TEST(InitOracle, EveryFunctionInTheModelLanguage) { expect_init_matches("model_b.mlc", {"l2.weight"}); }
TEST(InitOracle, EmbeddingDefaultAndTruncNormal) { expect_init_matches("model_c.json"); }

}  // namespace
}  // namespace mlc
