// Attention layers end to end (frontends/layers_multihead.cc,
// layers_transformer_block.cc, forward_attention.cc), besides the PyTorch
// oracle (attention_oracle_test.cc):
//  - finite differences in f64 through autodiff and the interpreter for
//    nn.MultiheadAttention (masks, key padding, kdim/vdim, need_weights),
//    F.scaled_dot_product_attention, TransformerEncoderLayer both ways,
//    TransformerDecoderLayer and the stacks (tests/tools/grad_check_util.h);
//  - dropout inside the Transformer layers in training mode: the compiled
//    step and the interpreter draw the same masks (losses within 1e-5
//    relative: f32 sums in another order) and the masks change the run.
#include <gtest/gtest.h>

#include <cmath>

#include "frontends/model_file.h"
#include "tests/tools/grad_check_util.h"
#include "tests/tools/oracle_compare.h"

namespace mlc {
namespace {

// A model of `layers` (JSON members) and `forward` returning the loss, on
// x [B, 4, 8] (and mem [B, 3, 8]); the data are tests/oracle/attention.py's.
std::string attention_model(const std::string& layers, const std::string& forward, double dropout = 0) {
  std::string text = R"js({"name": "a", "inputs": {"x": {"dtype": "f32", "shape": ["batch", 4, 8]},
    "mem": {"dtype": "f32", "shape": ["batch", 3, 8]}},
  "model": {"inputs": ["x", "mem"], "layers": {)js" + layers + R"js(}, "forward": )js" + forward + R"js(},
  "loss": {"type": "output"},
  "train": {"batch_size": 2, "steps": 1, "optimizer": {"type": "sgd", "lr": 0.1}}})js";
  for (size_t at; (at = text.find("DROPOUT")) != std::string::npos;) text.replace(at, 7, std::to_string(dropout));
  return text;
}

// The key padding mask of the last key: [B, S] from a tensor [B, S, ...].
constexpr const char* kPad = "pad = (x[:, :, 0] * 0 + arange(4).float()) > 2.5";

TEST(AttentionGradCheck, MultiheadAttentionWithMasksAndWeights) {
  expect_model_gradients(
      attention_model(R"js("attn": {"type": "MultiheadAttention", "embed_dim": 8, "num_heads": 2, "batch_first": true})js",
                      std::string(R"js([")js") + kPad + R"js(",
        "h, w = attn(x, x, x, key_padding_mask=pad, attn_mask=tril(ones(4, 4)) == 0)",
        "return (h * h).sum() + (w * x[:, :, :4]).sum()"])js"),
      {"x", "attn.in_proj_weight", "attn.in_proj_bias", "attn.out_proj.weight", "attn.out_proj.bias"});
}

TEST(AttentionGradCheck, CrossAttentionWithKdimVdimSequenceFirst) {
  expect_model_gradients(
      attention_model(R"js("attn": {"type": "MultiheadAttention", "embed_dim": 8, "num_heads": 2, "kdim": 4, "vdim": 6})js",
                      R"js(["q = x.transpose(0, 1)", "m = mem.transpose(0, 1)",
        "h = attn(q, m[:, :, :4], m[:, :, 2:], need_weights=False, is_causal=True)[0]",
        "return (h * h).sum()"])js"),
      {"x", "mem", "attn.q_proj_weight", "attn.k_proj_weight", "attn.v_proj_weight", "attn.in_proj_bias",
       "attn.out_proj.weight"});
}

TEST(AttentionGradCheck, ScaledDotProductAttention) {
  expect_model_gradients(
      attention_model("", R"js(["q = x.view(2, 4, 2, 4).transpose(1, 2)",
        "kv = mem.view(2, 3, 2, 4).transpose(1, 2)",
        "a = F.scaled_dot_product_attention(q, q, q, is_causal=True)",
        "b = F.scaled_dot_product_attention(q, kv, kv * 2, attn_mask=ones(4, 3) - tril(ones(4, 3)), scale=0.7)",
        "return (a * b).sum() + (b * b).sum()"])js"),
      {"x", "mem"});
}

TEST(AttentionGradCheck, TransformerEncoderLayerBothNormOrders) {
  for (const char* norm_first : {"false", "true"}) {
    SCOPED_TRACE(norm_first);
    expect_model_gradients(
        attention_model(std::string(R"js("enc": {"type": "TransformerEncoderLayer", "d_model": 8, "nhead": 2,
          "dim_feedforward": 12, "dropout": 0.0, "activation": "gelu", "batch_first": true, "norm_first": )js") +
                            norm_first + "}",
                        std::string(R"js([")js") + kPad + R"js(", "h = enc(x, src_key_padding_mask=pad, is_causal=True)",
          "return (h * x).sum()"])js"),
        {"x", "enc.self_attn.in_proj_weight", "enc.self_attn.out_proj.weight", "enc.linear1.weight",
         "enc.linear2.bias", "enc.norm1.weight", "enc.norm2.bias"});
  }
}

TEST(AttentionGradCheck, TransformerDecoderStack) {
  expect_model_gradients(
      attention_model(R"js("dec": {"type": "TransformerDecoder", "num_layers": 2,
          "decoder_layer": {"type": "TransformerDecoderLayer", "d_model": 8, "nhead": 2, "dim_feedforward": 12,
                            "dropout": 0.0, "batch_first": true, "bias": false},
          "norm": {"type": "LayerNorm", "normalized_shape": 8}})js",
                      R"js(["h = dec(x, mem, tgt_is_causal=True)", "return (h * x).sum()"])js"),
      {"x", "mem", "dec.layers.0.multihead_attn.in_proj_weight", "dec.layers.1.linear1.weight",
       "dec.layers.1.norm3.weight", "dec.norm.bias"});
}

// ---- dropout inside the Transformer layers
std::string dropout_model(double p) {
  std::string text = attention_model(
      R"js("enc": {"type": "TransformerEncoder", "num_layers": 2, "encoder_layer": {"type": "TransformerEncoderLayer",
          "d_model": 8, "nhead": 2, "dim_feedforward": 12, "dropout": DROPOUT, "batch_first": true}},
        "dec": {"type": "TransformerDecoderLayer", "d_model": 8, "nhead": 2, "dim_feedforward": 12,
          "dropout": DROPOUT, "batch_first": true})js",
      R"js(["h = dec(enc(x), mem)", "return (h * x).mean()"])js", p);
  const std::string train = R"js("train": {"batch_size": 2, "steps": 1,)js";
  text.replace(text.find(train), train.size(),
               R"js("data": {"file": "data.safetensors", "train": {"x": "x8", "mem": "mem8"}},
  "train": {"batch_size": 4, "steps": 3, "shuffle": false, "seed": 3,)js");
  return text;
}

std::vector<double> train_losses(const std::string& text, Backend backend, const std::string& name) {
  auto model = ModelFile::parse(text, "tests/data/oracle/attention/dropout.json");
  EXPECT_TRUE(model.ok()) << model.error().message;
  if (!model.ok()) return {};
  const std::string dir = oracle::temp_dir("attention_dropout_" + name);
  TrainOptions o;
  o.backend = backend;
  o.metrics_path = dir + "/metrics.jsonl";
  oracle::run(*model, o);
  return oracle::read_metrics(o.metrics_path).losses;
}

TEST(AttentionDropout, CompiledAndInterpreterDrawTheSameMasks) {
  std::vector<double> compiled = train_losses(dropout_model(0.3), Backend::compiled, "compiled");
  std::vector<double> interp = train_losses(dropout_model(0.3), Backend::interp, "interp");
  std::vector<double> none = train_losses(dropout_model(0), Backend::compiled, "none");
  ASSERT_EQ(compiled.size(), 3u);
  ASSERT_EQ(interp.size(), 3u);
  ASSERT_EQ(none.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(compiled[i], interp[i], 1e-5 * std::fabs(interp[i])) << "step " << i;
    EXPECT_NE(compiled[i], none[i]) << "step " << i << ": dropout changed nothing";
  }
}

}  // namespace
}  // namespace mlc
