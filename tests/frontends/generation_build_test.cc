// ModelFile::build_generation (frontends/decode_state.h): @prefill and
// @decode of a causal language model, their caches and in-place updates, and
// the models that cannot be decoded.
#include <gtest/gtest.h>

#include "frontends/model_file.h"
#include "ir/verifier.h"

namespace mlc {
namespace {

ModelFile load(const std::string& path) {
  auto m = ModelFile::load(path);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(*m);
}

TEST(GenerationBuild, DecodeReadsAndUpdatesOneKeyAndValueCachePerAttentionCall) {
  const ModelFile m = load("examples/tiny_gpt.json");
  for (bool step : {false, true}) {
    auto module = m.build_generation(step);
    ASSERT_TRUE(module.ok()) << module.error().message;
    ASSERT_TRUE(verify_module(*module).ok());
    const Function& f = *module->functions.at(0);
    EXPECT_EQ(f.name, step ? "decode" : "prefill");
    EXPECT_EQ(f.args[0]->name, "tokens");
    EXPECT_EQ(f.args[0]->type.str(), step ? "i64[1,1]" : "i64[1,32]");
    if (step) {
      EXPECT_EQ(f.args[1]->name + " " + f.args[1]->type.str(), "position i64[]");
    }
    std::vector<std::string> caches;
    for (size_t i = 0; i < f.args.size(); ++i)
      if (f.arg_kinds[i] == ArgKind::state) caches.push_back(f.args[i]->name + " " + f.args[i]->type.str());
    EXPECT_EQ(caches, (std::vector<std::string>{
                          "layers.0.attn.k_cache f32[1,4,32,16]", "layers.0.attn.v_cache f32[1,4,32,16]",
                          "layers.1.attn.k_cache f32[1,4,32,16]", "layers.1.attn.v_cache f32[1,4,32,16]"}));
    ASSERT_EQ(f.results.size(), 5u);
    EXPECT_EQ(f.results[0]->type.str(), step ? "f32[1,1,64]" : "f32[1,32,64]");
    for (size_t k = 1; k < 5; ++k)
      EXPECT_EQ(f.args[static_cast<size_t>(f.updated_arg(k))]->name + " " + f.results[k]->type.str(), caches[k - 1]);
    EXPECT_EQ(f.updated_arg(0), -1);
  }
}

TEST(GenerationBuild, HandWrittenAttentionBuildsWithoutCaches) {
  const ModelFile m = load("examples/gpt2_tied.mlc");
  auto module = m.build_generation(true);
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_TRUE(module->functions.at(0)->result_updates.empty());
  EXPECT_EQ(module->functions.at(0)->results.size(), 1u);
}

TEST(GenerationBuild, ModelsThatAreNotCausalLanguageModelsAreRefusedWithTheReason) {
  auto mlp = load("examples/digits_mlp.json").build_generation(false);
  ASSERT_FALSE(mlp.ok());
  EXPECT_EQ(mlp.error().message,
            "examples/digits_mlp.json: error: mlc generate needs a causal language model: a forward of one token "
            "input i64[batch, T] returning logits [batch, T, vocabulary]; its input 'x' is f32[batch,1,8,8]");
  // arange(n) other than the window's positions.
  const std::string text =
      "name = m\ninputs:\n    tokens: i64[batch, 8]\n    targets: i64[batch, 8]\n"
      "model(tokens):\n    emb = Embedding(16, 4)\n    pos = Embedding(9, 4)\n    head = Linear(4, 16)\n"
      "    forward:\n        return head(emb(tokens) + pos(arange(9)[:8]))\n"
      "loss = cross_entropy(targets=targets)\n";
  auto m = ModelFile::parse(text, "m.mlc");
  ASSERT_TRUE(m.ok()) << m.error().message;
  ASSERT_TRUE(m->build_generation(false).ok());
  auto step = m->build_generation(true);
  ASSERT_FALSE(step.ok());
  EXPECT_NE(step.error().message.find("m.mlc:10:"), std::string::npos) << step.error().message;
  EXPECT_NE(step.error().message.find("arange(9): decoding one token at a time reads arange(n) as the tokens' "
                                      "positions, so n must be the window 8 or tokens.size(1)"),
            std::string::npos)
      << step.error().message;
}

}  // namespace
}  // namespace mlc
