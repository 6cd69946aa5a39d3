// The attention layers' parameters (frontends/layers_multihead.cc,
// layers_transformer_block.cc): PyTorch's state_dict names in registration
// order, shapes and default inits; the ops a call emits. Located errors are
// tests/frontends/data/bad/{mha,sdpa,transformer}_*.json.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "frontends/model_file.h"

namespace mlc {
namespace {

ModelFile parse_ok(const std::string& layers, const std::string& forward = "") {
  std::string text = R"js({"name": "t", "inputs": {"x": {"dtype": "f32", "shape": ["batch", 5, 8]},
    "t": {"dtype": "f32", "shape": ["batch", 5, 8]}},
    "model": {"layers": {)js" + layers + "}" + (forward.empty() ? "" : R"js(, "forward": )js" + forward) +
                     R"js(}, "loss": {"type": "mse", "targets": "t"}})js";
  auto mf = ModelFile::parse(text, "t.json");
  EXPECT_TRUE(mf.ok()) << mf.error().message;
  return std::move(mf).value();
}

std::vector<std::string> names(const ModelFile& mf) {
  std::vector<std::string> out;
  for (const ParamInfo& p : mf.config().params) out.push_back(p.name + " " + p.type.str());
  return out;
}

const ParamInfo& param(const ModelFile& mf, const std::string& name) {
  for (const ParamInfo& p : mf.config().params)
    if (p.name == name) return p;
  ADD_FAILURE() << "no parameter " << name;
  return mf.config().params.front();
}

TEST(AttentionLayers, MultiheadAttentionStateDictAndInit) {
  ModelFile mf = parse_ok(R"js("attn": {"type": "MultiheadAttention", "embed_dim": 8, "num_heads": 2, "batch_first": true})js",
                          R"js(["return attn(x, x, x)[0]"])js");
  EXPECT_EQ(names(mf), (std::vector<std::string>{"attn.in_proj_weight f32[24,8]", "attn.in_proj_bias f32[24]",
                                                 "attn.out_proj.weight f32[8,8]", "attn.out_proj.bias f32[8]"}));
  // xavier_uniform_: U(+-sqrt(3) * sqrt(2 / (fan_in + fan_out))), fan_in 8, fan_out 24.
  const ParamInit& in = param(mf, "attn.in_proj_weight").init;
  EXPECT_EQ(in.kind, ParamInit::Kind::uniform);
  EXPECT_DOUBLE_EQ(in.bound, std::sqrt(3.0) * std::sqrt(2.0 / 32));
  EXPECT_EQ(param(mf, "attn.in_proj_bias").init.kind, ParamInit::Kind::zeros);
  EXPECT_EQ(param(mf, "attn.out_proj.weight").init.kind, ParamInit::Kind::kaiming_uniform);
  // Drawn as Linear's bias by out_proj's constructor, then zeroed by _reset_parameters.
  EXPECT_EQ(param(mf, "attn.out_proj.bias").init.kind, ParamInit::Kind::uniform);
  EXPECT_TRUE(param(mf, "attn.out_proj.bias").init.zero_after_draw);
  // torch's draw order: out_proj (weight, bias), then the projections.
  std::vector<int64_t> draws;
  for (const ParamInfo& p : mf.config().params) draws.push_back(p.draw_index);
  EXPECT_EQ(draws, (std::vector<int64_t>{2, 3, 0, 1}));
}

TEST(AttentionLayers, SeparateProjectionsForKdimVdimAndNoBias) {
  ModelFile mf = parse_ok(
      R"js("attn": {"type": "MultiheadAttention", "embed_dim": 8, "num_heads": 2, "kdim": 4, "vdim": 6, "bias": false, "batch_first": true})js",
      R"js(["return attn(x, x[:, :, :4], x[:, :, 2:])[0]"])js");
  EXPECT_EQ(names(mf), (std::vector<std::string>{"attn.q_proj_weight f32[8,8]", "attn.k_proj_weight f32[8,4]",
                                                 "attn.v_proj_weight f32[8,6]", "attn.out_proj.weight f32[8,8]"}));
  EXPECT_DOUBLE_EQ(param(mf, "attn.k_proj_weight").init.bound, std::sqrt(3.0) * std::sqrt(2.0 / 12));
}

TEST(AttentionLayers, TransformerStacksNameEveryCopy) {
  ModelFile mf = parse_ok(R"js("enc": {"type": "TransformerEncoder", "num_layers": 2,
      "encoder_layer": {"type": "TransformerEncoderLayer", "d_model": 8, "nhead": 2, "dim_feedforward": 16, "batch_first": true},
      "norm": {"type": "LayerNorm", "normalized_shape": 8}})js");
  std::vector<std::string> want;
  for (const char* i : {"0", "1"}) {
    const std::string l = std::string("enc.layers.") + i + ".";
    for (const char* p : {"self_attn.in_proj_weight f32[24,8]", "self_attn.in_proj_bias f32[24]",
                          "self_attn.out_proj.weight f32[8,8]", "self_attn.out_proj.bias f32[8]",
                          "linear1.weight f32[16,8]", "linear1.bias f32[16]", "linear2.weight f32[8,16]",
                          "linear2.bias f32[8]", "norm1.weight f32[8]", "norm1.bias f32[8]", "norm2.weight f32[8]",
                          "norm2.bias f32[8]"})
      want.push_back(l + p);
  }
  want.push_back("enc.norm.weight f32[8]");
  want.push_back("enc.norm.bias f32[8]");
  EXPECT_EQ(names(mf), want);
  EXPECT_EQ(param(mf, "enc.layers.1.linear1.weight").init.kind, ParamInit::Kind::kaiming_uniform);
  EXPECT_EQ(param(mf, "enc.layers.1.norm2.weight").init.kind, ParamInit::Kind::ones);
  // Without forward, the stack is applied to its one input, with no masks.
  auto m = mf.build(2);
  ASSERT_TRUE(m.ok()) << m.error().message;
}

TEST(AttentionLayers, DecoderLayerHasCrossAttentionAndThreeNorms) {
  ModelFile mf = parse_ok(R"js("dec": {"type": "TransformerDecoderLayer", "d_model": 8, "nhead": 2, "dim_feedforward": 16,
      "bias": false, "batch_first": true})js",
                          R"js(["return dec(x, x[:, :3])"])js");
  EXPECT_EQ(names(mf), (std::vector<std::string>{
                           "dec.self_attn.in_proj_weight f32[24,8]", "dec.self_attn.out_proj.weight f32[8,8]",
                           "dec.multihead_attn.in_proj_weight f32[24,8]", "dec.multihead_attn.out_proj.weight f32[8,8]",
                           "dec.linear1.weight f32[16,8]", "dec.linear2.weight f32[8,16]", "dec.norm1.weight f32[8]",
                           "dec.norm2.weight f32[8]", "dec.norm3.weight f32[8]"}));
  auto m = mf.build(2);
  ASSERT_TRUE(m.ok()) << m.error().message;
}

// Evaluation mode draws no dropout; training mode draws one random_uniform per dropout site.
TEST(AttentionLayers, DropoutOnlyInTrainingMode) {
  ModelFile mf = parse_ok(R"js("enc": {"type": "TransformerEncoderLayer", "d_model": 8, "nhead": 2, "dim_feedforward": 16,
      "dropout": 0.25, "batch_first": true})js");
  auto m = mf.build(2);
  ASSERT_TRUE(m.ok()) << m.error().message;
  auto count = [&](const char* fn) {
    int n = 0;
    for (const auto& op : m->find(fn)->ops) n += op->code == OpCode::RandomUniform;
    return n;
  };
  EXPECT_EQ(count("loss"), 4);  // attention weights, feed-forward, dropout1, dropout2
  EXPECT_EQ(count("eval"), 0);
}

}  // namespace
}  // namespace mlc
