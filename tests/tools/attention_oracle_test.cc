// Attention against PyTorch (tests/oracle/attention.py, recorded in
// tests/data/oracle/attention): nn.MultiheadAttention (self- and
// cross-attention, kdim/vdim, bool and float masks, key padding, need_weights),
// F.scaled_dot_product_attention (bool mask, is_causal, scale),
// TransformerEncoderLayer and TransformerDecoderLayer (post-norm and
// norm_first, relu and gelu, causal and padding masks) and the stacks
// TransformerEncoder / TransformerDecoder with a final norm, each trained 4 SGD
// steps from PyTorch's initial weights on the compiled path and the
// interpreter. Tolerances as tests/tools/losses_oracle_test.cc: losses 1e-5
// relative, first-step gradients 1e-5 of each tensor's largest entry, final
// parameters 1e-4 (a few f32 roundings of reordered sums, 4 steps); and the
// seeded initialization equals PyTorch's.
#include <gtest/gtest.h>

#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

struct AttentionCase {
  std::string name;
  Backend backend;
};

class AttentionOracle : public ::testing::TestWithParam<AttentionCase> {};

TEST_P(AttentionOracle, MatchesPyTorchStepForStep) {
  const AttentionCase& c = GetParam();
  const std::string base = "tests/data/oracle/attention/" + c.name;
  const std::string dir =
      oracle::temp_dir("attention_" + c.name + (c.backend == Backend::compiled ? "_compiled" : "_interp"));
  ModelFile model = oracle::load_model(base + ".json");
  TrainOptions o;
  o.backend = c.backend;
  o.init_path = base + ".init.safetensors";
  o.dump_grads_path = dir + "/grads.safetensors";
  oracle::expect_training_matches(model, o, dir, base + ".losses.json", base + ".final.safetensors", 1e-4);
  oracle::expect_tensors(o.dump_grads_path, base + ".grads_step0.safetensors", 1e-5, true);
}

std::vector<AttentionCase> cases() {
  std::vector<AttentionCase> c;
  for (const char* name : {"mha_self", "mha_masks", "mha_float_mask", "mha_cross", "sdpa", "encoder_post",
                           "encoder_pre", "encoder_stack", "decoder_post", "decoder_pre"})
    for (Backend b : {Backend::compiled, Backend::interp}) c.push_back({name, b});
  return c;
}

INSTANTIATE_TEST_SUITE_P(Recorded, AttentionOracle, ::testing::ValuesIn(cases()), [](const auto& info) {
  return info.param.name + (info.param.backend == Backend::compiled ? "_compiled" : "_interp");
});

// Seeded initialization is torch.manual_seed(0)'s construction, bit for bit:
// MultiheadAttention draws out_proj (weight, then a bias it zeroes) before
// its projections, and TransformerEncoder/Decoder deep-copy one layer.
TEST(AttentionInit, SeedZeroIsPyTorchsInitBitForBit) {
  for (const char* name : {"mha_self", "mha_masks", "mha_float_mask", "mha_cross", "sdpa", "encoder_post",
                           "encoder_pre", "encoder_stack", "decoder_post", "decoder_pre"}) {
    SCOPED_TRACE(name);
    const std::string base = std::string("tests/data/oracle/attention/") + name;
    oracle::expect_seed_zero_init_is(oracle::load_model(base + ".json"), base + ".init.safetensors");
  }
}

}  // namespace
}  // namespace mlc
