// A model file's "init" section and the default initializations against
// PyTorch 1.13 (tests/oracle/init_functions.py): torch.manual_seed(seed), the
// constructor's defaults, then torch.nn.init's functions in state_dict order.
// Every tensor is compared bit for bit, except orthogonal_'s, whose QR mlc
// computes in double and torch in float LAPACK: within a few f32 roundings of
// the unit-norm columns (times the gain).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include "frontends/model_file.h"
#include "runtime/parameters.h"
#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

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

// The rules travel in an artifact: `mlc run ART.mlcx` trains from the same
// initial parameters as the model file (one step of model_c on 4 examples:
// the same saved parameters, bit for bit).
TEST(InitOracle, AnArtifactCarriesTheRules) {
  const auto dir = testing::scratch_dir("mlc_init_artifact");
  rt::Tensor tokens(TensorType{DType::i64, {4, 4}}), y(TensorType{DType::i64, {4}});
  for (int64_t i = 0; i < 16; ++i) tokens.data<int64_t>()[i] = (i * 7) % 10;
  for (int64_t i = 0; i < 4; ++i) y.data<int64_t>()[i] = i % 3;
  const std::string data = (dir / "data.safetensors").string();
  ASSERT_TRUE(rt::write_safetensors(data, {{"tokens", &tokens}, {"y", &y}}).ok());
  std::string text = testing::slurp(kDir + "model_c.json");
  text.replace(text.find("\"loss\""), 0, "\"data\": {\"file\": \"" + data + "\", \"train\": {\"tokens\": \"tokens\", \"y\": \"y\"}},\n  ");
  const std::string model = (dir / "model.json").string(), artifact = (dir / "model.mlcx").string();
  std::ofstream(model) << text;
  auto compiled = testing::run_mlc("compile " + model + " -o " + artifact);
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  for (const std::string& from : {model, artifact}) {
    auto r = testing::run_mlc("run " + from + " --save " + from + ".saved.safetensors");
    ASSERT_EQ(r.status, 0) << r.err;
  }
  auto a = rt::read_safetensors(model + ".saved.safetensors"), b = rt::read_safetensors(artifact + ".saved.safetensors");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->entries.size(), 3u);
  for (const rt::SafetensorsEntry& e : a->entries) {
    const rt::SafetensorsEntry* f = b->find(e.name);
    ASSERT_NE(f, nullptr) << e.name;
    EXPECT_EQ(std::memcmp(e.tensor.bytes(), f->tensor.bytes(), e.tensor.num_bytes()), 0) << e.name;
  }
}

}  // namespace
}  // namespace mlc
