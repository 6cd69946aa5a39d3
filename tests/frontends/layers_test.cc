// The layer library and the module tree: parameter names/shapes/init, the ops
// each layer emits, containers, repeats, forward statements, trainable flags,
// losses and the @eval function.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "frontends/json_doc.h"
#include "frontends/layers.h"
#include "frontends/model_file.h"
#include "ir/op_table.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace mlc {
namespace {

// A model file around `model` (a JSON module) with inputs `inputs` (JSON object
// body) and an mse loss against input `t` unless `loss` is given.
std::string model_text(const std::string& inputs, const std::string& model,
                       const std::string& loss = R"({"type": "mse", "targets": "t"})") {
  return R"({"name": "t", "inputs": {)" + inputs + R"(}, "model": )" + model + R"(, "loss": )" +
         loss + "}";
}

ModelFile parse_ok(const std::string& text) {
  auto mf = ModelFile::parse(text, "t.json");
  EXPECT_TRUE(mf.ok()) << mf.error().message;
  return std::move(mf).value();
}

std::string parse_error(const std::string& text) {
  auto mf = ModelFile::parse(text, "t.json");
  EXPECT_FALSE(mf.ok());
  return mf.ok() ? "" : mf.error().message;
}

std::map<std::string, int> op_counts(const Module& m, const char* fn = "loss") {
  std::map<std::string, int> counts;
  for (const auto& op : m.find(fn)->ops) ++counts[std::string(op_name(op->code))];
  return counts;
}

Module build_ok(const ModelFile& mf, int64_t batch) {
  auto m = mf.build(batch);
  EXPECT_TRUE(m.ok()) << m.error().message;
  Status v = verify_module(*m);
  EXPECT_TRUE(v.ok()) << v.error().message;
  return std::move(m).value();
}

const char* kImage = R"("x": {"dtype": "f32", "shape": ["batch", 4, 9, 9]}, "t": {"dtype": "f32", "shape": ["batch", 6, 4, 4]})";

TEST(FrontendLayers, Conv2dPairsGroupsAndPools) {
  ModelFile mf = parse_ok(model_text(kImage, R"({"layers": {
      "c": {"type": "Conv2d", "in_channels": 4, "out_channels": 6, "kernel_size": [3, 2],
            "stride": [2, 1], "padding": [1, 0], "dilation": 1, "groups": 2, "bias": false},
      "p": {"type": "AvgPool2d", "kernel_size": [2, 2], "stride": [1, 2], "count_include_pad": false}}})"));
  const auto& p = mf.config().params;
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].name, "c.weight");
  EXPECT_EQ(p[0].type.shape, (Shape{6, 2, 3, 2}));
  EXPECT_EQ(p[0].init.kind, ParamInit::Kind::kaiming_uniform);
  EXPECT_DOUBLE_EQ(p[0].init.fan_in, 12.0);
  Module m = build_ok(mf, 2);
  EXPECT_EQ(op_counts(m), (std::map<std::string, int>{{"conv2d", 1}, {"avg_pool2d", 1}, {"mse", 1}}));
  const Op& conv = *m.find("loss")->ops[0];
  EXPECT_EQ(conv.attrs.get_ints("stride"), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(conv.attrs.get_int("groups"), 2);
  EXPECT_EQ(conv.result()->type.shape, (Shape{2, 6, 5, 8}));
  EXPECT_FALSE(m.find("loss")->ops[1]->attrs.get_bool("count_include_pad"));
}

TEST(FrontendLayers, NormsActivationsAndFlatten) {
  ModelFile mf = parse_ok(model_text(
      R"("x": {"dtype": "f32", "shape": ["batch", 3, 8]}, "t": {"dtype": "f32", "shape": ["batch", 24]})",
      R"({"layers": {"ln": {"type": "LayerNorm", "normalized_shape": 8, "eps": 1e-6},
                     "g": {"type": "GELU", "approximate": "tanh"}, "s": {"type": "SiLU"},
                     "th": {"type": "Tanh"}, "sg": {"type": "Sigmoid"},
                     "f": {"type": "Flatten", "start_dim": -2}}})"));
  const auto& p = mf.config().params;
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].name, "ln.weight");
  EXPECT_EQ(p[0].init.kind, ParamInit::Kind::ones);
  EXPECT_EQ(p[1].name, "ln.bias");
  EXPECT_EQ(p[1].init.kind, ParamInit::Kind::zeros);
  Module m = build_ok(mf, 5);
  const auto& ops = m.find("loss")->ops;
  EXPECT_EQ(ops[0]->attrs.get_float("eps"), 1e-6);
  EXPECT_EQ(ops[1]->attrs.get_string("approximate"), "tanh");
  EXPECT_EQ(ops[5]->result()->type.shape, (Shape{5, 24}));
}

TEST(FrontendLayers, LinearOnHigherRankAndEmbedding) {
  ModelFile mf = parse_ok(model_text(
      R"("i": {"dtype": "i32", "shape": ["batch", 7]}, "t": {"dtype": "f32", "shape": ["batch", 7, 3]})",
      R"({"inputs": ["i"], "layers": {"e": {"type": "Embedding", "num_embeddings": 10, "embedding_dim": 4},
                                     "l": {"type": "Linear", "in_features": 4, "out_features": 3}}})"));
  EXPECT_EQ(mf.config().params[0].init.kind, ParamInit::Kind::normal);
  Module m = build_ok(mf, 2);
  EXPECT_EQ(op_counts(m), (std::map<std::string, int>{{"gather", 1}, {"dot", 1}, {"add", 1}, {"mse", 1}}));
  EXPECT_EQ(m.find("eval")->results.size(), 1u);  // mse: no accuracy
  EXPECT_EQ(m.find("eval")->ops.back()->attrs.get_string("reduction"), "sum");
}

TEST(FrontendModules, RepeatNamesCopiesAndReportsTheCopyPath) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 8]}, "t": {"dtype": "f32", "shape": ["batch", 8]})";
  ModelFile mf = parse_ok(model_text(io, R"({"layers": {"blocks": {"repeat": 3, "block":
      {"layers": {"fc": {"type": "Linear", "in_features": 8, "out_features": 8}, "act": {"type": "ReLU"}}}}}})"));
  std::vector<std::string> names;
  for (const auto& p : mf.config().params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"blocks.0.fc.weight", "blocks.0.fc.bias", "blocks.1.fc.weight",
                                             "blocks.1.fc.bias", "blocks.2.fc.weight", "blocks.2.fc.bias"}));
  Module m = build_ok(mf, 4);
  EXPECT_EQ(op_counts(m)["dot"], 3);
  EXPECT_EQ(parse_error(model_text(io, R"({"layers": {"blocks": {"repeat": 2, "block":
      {"type": "Linear", "in_features": 8, "out_features": 4}}}})")),
            "t.json:2:7: error: Linear 'blocks.1': input has 4 features but in_features is 8");
}

TEST(FrontendModules, TrainableFlagsAndSingleLayerModel) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 8]}, "t": {"dtype": "f32", "shape": ["batch", 2]})";
  ModelFile mf = parse_ok(model_text(io, R"({"layers": {
      "a": {"layers": {"fc": {"type": "Linear", "in_features": 8, "out_features": 8}}, "trainable": false},
      "b": {"type": "Linear", "in_features": 8, "out_features": 2}}})"));
  const auto& p = mf.config().params;
  ASSERT_EQ(p.size(), 4u);
  EXPECT_FALSE(p[0].trainable);
  EXPECT_FALSE(p[1].trainable);
  EXPECT_TRUE(p[2].trainable);
  ModelFile single = parse_ok(model_text(io, R"({"type": "Linear", "in_features": 8, "out_features": 2, "trainable": false})"));
  ASSERT_EQ(single.config().params.size(), 2u);
  EXPECT_EQ(single.config().params[0].name, "weight");
  EXPECT_FALSE(single.config().params[0].trainable);
}

TEST(ForwardStatements, ArithmeticBuiltinsAndMultiInputContainers) {
  std::string io = R"("a": {"dtype": "f32", "shape": ["batch", 4]}, "b": {"dtype": "f32", "shape": [4]},
                     "t": {"dtype": "f32", "shape": ["batch", 4]})";
  ModelFile mf = parse_ok(model_text(io, R"J({"inputs": ["a", "b"], "layers": {
      "mix": {"inputs": ["p", "q"], "layers": {}, "forward": ["return p * q"]}},
      "forward": ["h = mix(a, b) * 0.5 - -(2 * 3)", "h = relu(h) + sigmoid(h) + tanh(h)",
                  "return softmax(gelu(silu(h))) + 1"]})J"));
  Module m = build_ok(mf, 3);
  auto counts = op_counts(m);
  EXPECT_EQ(counts["constant"], 3);  // 0.5, 6 (folded), 1
  EXPECT_EQ(counts["mul"], 2);
  EXPECT_EQ(counts["sub"], 1);
  EXPECT_EQ(counts["softmax"], 1);
  // A statement's ops carry the location of its JSON string (here: mix's "return p * q").
  EXPECT_EQ(m.find("loss")->ops[0]->loc.str(), "t.json:3:63");
}

TEST(ForwardStatements, ErrorsPointInsideTheString) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 4]}, "t": {"dtype": "i64", "shape": ["batch", 4]})";
  std::string stmt;
  auto text = [&] {
    return model_text(io, R"({"inputs": ["x", "t"], "layers": {}, "forward": [")" + stmt + R"("]})");
  };
  // The message for `stmt`, and the expected one at byte `offset` of the statement
  // (-1: the string's opening quote).
  auto err = [&](const std::string& s) {
    stmt = s;
    return parse_error(text());
  };
  auto at = [&](size_t offset, const std::string& what) {
    std::string t = text();
    size_t col = t.find("\"forward\": [\"") + 13 + 1 + offset;
    return "t.json:1:" + std::to_string(col) + ": error: forward: " + what;
  };
  EXPECT_EQ(err("return x + "), at(11, "expected an expression, found end of statement"));
  EXPECT_EQ(err("return x + t"), at(9, "operands of '+' have different dtypes: f32[1,4] and i64[1,4]"));
  EXPECT_EQ(err("return t * 0.5"), at(11, "cannot combine the number 0.5 with a i64 tensor"));
  EXPECT_EQ(err("return 3"), at(-1, "the result must be a tensor, found the number 3"));
  EXPECT_EQ(err("return arange(x)"), at(14, "arange(n) needs a positive integer n, found f32[1,4]"));
  EXPECT_EQ(err("return relu(t)"), at(7, "relu expects a float tensor, found i64[1,4]"));
  EXPECT_EQ(err("x"), at(0, "expected 'name = expr' or 'return expr', found 'x'"));
  EXPECT_EQ(err("return 1e999 * x"), at(7, "number 1e999 is out of range"));
  EXPECT_EQ(err("y = 1"), at(-1, "the result must be a tensor, found the number 1"));
  EXPECT_EQ(err("return x +  $"), at(12, "unexpected character '$'"));
  EXPECT_EQ(err("return x * 2x"), at(12, "unexpected character 'x' in a number"));
}

TEST(FrontendLosses, CrossEntropyReductionAndAccuracyOverPositions) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 5, 3]}, "y": {"dtype": "i32", "shape": ["batch", 5]})";
  ModelFile mf = parse_ok(model_text(io, R"({"type": "Linear", "in_features": 3, "out_features": 7})",
                                     R"({"type": "cross_entropy", "targets": "y", "reduction": "sum"})"));
  EXPECT_TRUE(mf.config().classifier);
  Module m = build_ok(mf, 2);
  EXPECT_EQ(m.find("loss")->ops.back()->attrs.get_string("reduction"), "sum");
  auto eval = op_counts(m, "eval");
  EXPECT_EQ(eval["argmax"], 1);
  EXPECT_EQ(eval["cast"], 2);  // i32 targets -> i64, bool -> i64
  EXPECT_EQ(eval["reduce_sum"], 1);
}

TEST(DataMapping, SlicesAndEvalDefault) {
  std::string text = R"({"name": "d", "inputs": {"x": {"dtype": "f32", "shape": ["batch", 2]}},
    "model": {"layers": {}}, "loss": {"type": "mse", "targets": "x"},
    "data": {"file": "../shared/d.safetensors", "train": {"x": " t.a [ 1 : -2 , : ,-3:] "}}})";
  auto mf = ModelFile::parse(text, "dir/sub/m.json");
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  const DataConfig& d = mf->config().data;
  EXPECT_EQ(d.file, "dir/shared/d.safetensors");
  ASSERT_EQ(d.eval.size(), 1u);
  const InputMapping& x = d.eval[0];
  EXPECT_EQ(x.tensor, "t.a");
  ASSERT_EQ(x.slices.size(), 3u);
  EXPECT_EQ(x.slices[0].start, 1);
  EXPECT_EQ(x.slices[0].stop, -2);
  EXPECT_FALSE(x.slices[1].start || x.slices[1].stop);
  EXPECT_EQ(x.slices[2].start, -3);
  EXPECT_FALSE(x.slices[2].stop);
  EXPECT_EQ(x.loc.str(), "dir/sub/m.json:3:64");
}

TEST(ModelBuild, BatchOverflowIsAnError) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 1048576]}, "t": {"dtype": "f32", "shape": ["batch", 1048576]})";
  ModelFile mf = parse_ok(model_text(io, R"({"layers": {}})"));
  auto m = mf.build(int64_t{1} << 30);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().message,
            "t.json:1:26: error: input 'x' with batch 1073741824: shape [1073741824,1048576] has more than 2^40 elements");
}

// The work budget counts Layer::max_ops() before emitting; each layer type, in
// the configuration that emits the most ops (bias on, rank-1 input where that
// adds reshapes), must stay within it.
TEST(FrontendLayers, EveryLayerEmitsAtMostMaxOps) {
  struct Case {
    std::string type, layer, inputs;
    std::string forward = "";  // a call with every argument, for layers called with keywords
  };
  std::vector<Case> cases = {
      {"Linear", R"("in_features": 4, "out_features": 3)", R"("x": {"dtype": "f32", "shape": [4]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"Conv2d", R"("in_channels": 4, "out_channels": 6, "kernel_size": 3)", R"("x": {"dtype": "f32", "shape": [1, 4, 5, 5]}, "t": {"dtype": "f32", "shape": [1, 6, 3, 3]})"},
      {"MaxPool2d", R"("kernel_size": 2)", R"("x": {"dtype": "f32", "shape": [1, 4, 4, 4]}, "t": {"dtype": "f32", "shape": [1, 4, 2, 2]})"},
      {"AvgPool2d", R"("kernel_size": 2)", R"("x": {"dtype": "f32", "shape": [1, 4, 4, 4]}, "t": {"dtype": "f32", "shape": [1, 4, 2, 2]})"},
      {"GELU", R"("approximate": "tanh")", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"LeakyReLU", R"("negative_slope": 0.2)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"ELU", R"("alpha": 0.5)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"Softplus", R"("beta": 2, "threshold": 5)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"PReLU", R"("num_parameters": 2)", R"("x": {"dtype": "f32", "shape": [3, 2, 2]}, "t": {"dtype": "f32", "shape": [3, 2, 2]})"},
      {"Softmax", R"("dim": 0)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"LogSoftmax", R"("dim": -1)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"Softmax2d", "", R"("x": {"dtype": "f32", "shape": [2, 3, 2]}, "t": {"dtype": "f32", "shape": [2, 3, 2]})"},
      {"Flatten", "", R"("x": {"dtype": "f32", "shape": [2, 3, 4]}, "t": {"dtype": "f32", "shape": [2, 12]})"},
      {"Embedding", R"("num_embeddings": 5, "embedding_dim": 3)", R"("x": {"dtype": "i64", "shape": [2]}, "t": {"dtype": "f32", "shape": [2, 3]})"},
      {"LayerNorm", R"("normalized_shape": 3)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"RMSNorm", R"("dim": 3)", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"CausalSelfAttention", R"("dim": 4, "heads": 2, "bias": true)", R"("x": {"dtype": "f32", "shape": [1, 3, 4]}, "t": {"dtype": "f32", "shape": [1, 3, 4]})"},
      {"SwiGLU", R"("dim": 4, "hidden": 6, "bias": true)", R"("x": {"dtype": "f32", "shape": [4]}, "t": {"dtype": "f32", "shape": [4]})"},
      {"BatchNorm1d", R"("num_features": 3)", R"("x": {"dtype": "f32", "shape": [2, 3, 2]}, "t": {"dtype": "f32", "shape": [2, 3, 2]})"},
      {"BatchNorm2d", R"("num_features": 3)", R"("x": {"dtype": "f32", "shape": [2, 3, 2, 2]}, "t": {"dtype": "f32", "shape": [2, 3, 2, 2]})"},
      {"Dropout", R"("p": 0.5)", R"("x": {"dtype": "f32", "shape": [2, 3]}, "t": {"dtype": "f32", "shape": [2, 3]})"},
      {"RNN", R"("input_size": 2, "hidden_size": 3, "num_layers": 2, "bidirectional": true, "batch_first": true, "dropout": 0.5)",
       R"("x": {"dtype": "f32", "shape": [2, 4, 2]}, "t": {"dtype": "f32", "shape": [2, 4, 6]})"},
      {"LSTM", R"("input_size": 2, "hidden_size": 3, "num_layers": 2, "bidirectional": true, "dropout": 0.5)",
       R"("x": {"dtype": "f32", "shape": [4, 2]}, "t": {"dtype": "f32", "shape": [4, 6]})"},
      {"GRU", R"("input_size": 2, "hidden_size": 3, "num_layers": 2, "dropout": 0.5)",
       R"("x": {"dtype": "f32", "shape": [4, 2, 2]}, "t": {"dtype": "f32", "shape": [4, 2, 3]})"},
      {"RNNCell", R"("input_size": 2, "hidden_size": 3, "nonlinearity": "relu")", R"("x": {"dtype": "f32", "shape": [2]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"LSTMCell", R"("input_size": 2, "hidden_size": 3)", R"("x": {"dtype": "f32", "shape": [2, 2]}, "t": {"dtype": "f32", "shape": [2, 3]})"},
      {"GRUCell", R"("input_size": 2, "hidden_size": 3)", R"("x": {"dtype": "f32", "shape": [2]}, "t": {"dtype": "f32", "shape": [3]})"},
      {"TransformerEncoderLayer", R"("d_model": 4, "nhead": 2, "dim_feedforward": 6, "dropout": 0.5)",
       R"("x": {"dtype": "f32", "shape": [3, 2, 4]}, "t": {"dtype": "f32", "shape": [3, 2, 4]})"},
      {"TransformerEncoder", R"("num_layers": 2, "norm": {"type": "LayerNorm", "normalized_shape": 4},
        "encoder_layer": {"type": "TransformerEncoderLayer", "d_model": 4, "nhead": 2, "dropout": 0.5, "norm_first": true})",
       R"("x": {"dtype": "f32", "shape": [3, 2, 4]}, "t": {"dtype": "f32", "shape": [3, 2, 4]})"},
  };
  // The spatial layers (layers_spatial.cc), each in its costliest form.
  auto io = [](const std::string& x, const std::string& t) {
    return R"("x": {"dtype": "f32", "shape": )" + x + R"(}, "t": {"dtype": "f32", "shape": )" + t + "}";
  };
  for (const Case& c : std::vector<Case>{
           {"Conv1d", R"("in_channels": 2, "out_channels": 4, "kernel_size": 3)", io("[1, 2, 5]", "[1, 4, 3]")},
           {"ConvTranspose1d", R"("in_channels": 2, "out_channels": 4, "kernel_size": 3, "dilation": 2, "output_padding": 1)",
            io("[1, 2, 4]", "[1, 4, 9]")},
           {"ConvTranspose2d", R"("in_channels": 2, "out_channels": 4, "kernel_size": 2, "stride": 2, "output_padding": 1)",
            io("[1, 2, 3, 3]", "[1, 4, 7, 7]")},
           {"AdaptiveAvgPool2d", R"("output_size": [2, 3])", io("[2, 5, 7]", "[2, 2, 3]")},
           {"AdaptiveMaxPool2d", R"("output_size": [2, 3])", io("[2, 5, 7]", "[2, 2, 3]")},
           {"Upsample", R"("size": [5, 7], "mode": "bilinear")", io("[1, 2, 3, 4]", "[1, 2, 5, 7]")},
           {"PixelShuffle", R"("upscale_factor": 2)", io("[2, 8, 2, 3]", "[2, 2, 4, 6]")},
           {"PixelUnshuffle", R"("downscale_factor": 2)", io("[2, 2, 4, 6]", "[2, 8, 2, 3]")},
           {"ReflectionPad2d", R"("padding": [1, 2, 0, 1])", io("[1, 2, 3, 4]", "[1, 2, 4, 7]")},
           {"ReplicationPad2d", R"("padding": 1)", io("[1, 2, 3, 4]", "[1, 2, 5, 6]")},
           {"ZeroPad2d", R"("padding": 1)", io("[1, 2, 3, 4]", "[1, 2, 5, 6]")},
           {"ConstantPad2d", R"("padding": 1, "value": 0.5)", io("[1, 2, 3, 4]", "[1, 2, 5, 6]")},
           {"GroupNorm", R"("num_groups": 2, "num_channels": 4)", io("[2, 4, 3]", "[2, 4, 3]")},
           {"InstanceNorm2d", R"("num_features": 3, "affine": true)", io("[3, 2, 2]", "[3, 2, 2]")}})
    cases.push_back(c);
  // Layers called with keyword arguments: every mask and flag given, dropout drawn.
  const std::string seq = R"("x": {"dtype": "f32", "shape": [3, 2, 4]}, "m": {"dtype": "f32", "shape": [5, 2, 4]},
      "kpm": {"dtype": "bool", "shape": [2, 3]}, "am": {"dtype": "bool", "shape": [4, 3, 3]},
      "mkpm": {"dtype": "bool", "shape": [2, 5]}, "mam": {"dtype": "bool", "shape": [3, 5]})";
  const std::string seq_t = seq + R"(, "t": {"dtype": "f32", "shape": [3, 2, 4]})";
  const std::string decoder_call =
      R"js(["return l(x, m, am, mam, kpm, mkpm, tgt_is_causal=True, memory_is_causal=True)"])js";
  cases.push_back({"MultiheadAttention", R"("embed_dim": 4, "num_heads": 2, "dropout": 0.5)",
                   seq + R"(, "t": {"dtype": "f32", "shape": [2, 3, 3]})",
                   R"js(["return l(x, x, x, kpm, True, am, True, is_causal=True)[1]"])js"});
  const std::string decoder_layer = R"("d_model": 4, "nhead": 2, "dim_feedforward": 6, "dropout": 0.5)";
  cases.push_back({"TransformerDecoderLayer", decoder_layer, seq_t, decoder_call});
  cases.push_back({"TransformerDecoder", R"("num_layers": 2, "norm": {"type": "LayerNorm", "normalized_shape": 4},
      "decoder_layer": {"type": "TransformerDecoderLayer", )" + decoder_layer + "}",
                   seq_t, decoder_call});
  // Layers without fields, on a vector.
  for (const char* type : {"ReLU", "SiLU", "Tanh", "Sigmoid", "SELU", "Hardswish", "Mish", "Identity"})
    cases.push_back({type, "", R"("x": {"dtype": "f32", "shape": [3]}, "t": {"dtype": "f32", "shape": [3]})"});
  std::set<std::string> covered;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    std::string layer = R"({"type": ")" + c.type + "\"" + (c.layer.empty() ? "" : ", " + c.layer) + "}";
    auto doc = JsonDoc::parse(layer, "l.json");
    ASSERT_TRUE(doc.ok()) << doc.error().message;
    auto parsed = parse_layer(Fields(*doc, doc->root(), "layer"), c.type);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    std::string container = R"({"layers": {"l": )" + layer + "}";
    if (!c.forward.empty())
      container += R"(, "inputs": ["x", "m", "kpm", "am", "mkpm", "mam"], "forward": )" + c.forward;
    ModelFile mf = parse_ok(model_text(c.inputs, container + "}"));
    Module m = build_ok(mf, 1);
    int64_t emitted = static_cast<int64_t>(m.find("loss")->ops.size()) - 1;  // less the mse
    EXPECT_LE(emitted, (*parsed)->max_ops());
    EXPECT_GE(emitted, c.type == "Identity" ? 0 : 1);
    covered.insert(c.type);
  }
  EXPECT_EQ(covered, std::set<std::string>(layer_types().begin(), layer_types().end()));
}

// Fuzzer finding: a top-level repeat names its parameters "0.weight" (as
// nn.Sequential does), which the verifier and parser rejected.
TEST(FrontendLayers, TopLevelRepeatOfAParamLayerVerifiesAndRoundTrips) {
  ModelFile mf = parse_ok(model_text(
      R"("x": {"dtype": "f32", "shape": ["batch", 4]}, "t": {"dtype": "f32", "shape": ["batch", 4]})",
      R"({"repeat": 3, "block": {"type": "Linear", "in_features": 4, "out_features": 4}})"));
  ASSERT_EQ(mf.config().params.size(), 6u);
  EXPECT_EQ(mf.config().params[0].name, "0.weight");
  Module m = build_ok(mf, 2);
  std::string text = print_module(m);
  auto back = parse_module(text, "t.mlir");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(print_module(*back), text);
}

// Every op carries the scope of the module it was emitted for: a layer's
// state_dict path, the container's path for its forward's own ops, "" for the
// loss. The scope survives autodiff-free printing and parsing.
TEST(FrontendLayers, OpsCarryTheirModuleScope) {
  ModelFile mf = parse_ok(model_text(
      R"("x": {"dtype": "f32", "shape": ["batch", 4]}, "t": {"dtype": "f32", "shape": ["batch", 4]})",
      R"json({"layers": {"blocks": {"repeat": 2, "block": {
            "layers": {"fc": {"type": "Linear", "in_features": 4, "out_features": 4}},
            "forward": ["h = fc(x)", "return h + x"]}},
          "act": {"type": "ReLU"}}})json"));
  Module m = build_ok(mf, 2);
  std::map<std::string, std::map<std::string, int>> by_scope;  // scope -> op -> count
  for (const auto& op : m.find("loss")->ops) ++by_scope[op->meta.scope][std::string(op_name(op->code))];
  EXPECT_EQ(by_scope["blocks.0.fc"], (std::map<std::string, int>{{"add", 1}, {"dot", 1}}));
  EXPECT_EQ(by_scope["blocks.1.fc"], (std::map<std::string, int>{{"add", 1}, {"dot", 1}}));
  EXPECT_EQ(by_scope["blocks.0"], (std::map<std::string, int>{{"add", 1}}));  // "h + x"
  EXPECT_EQ(by_scope["act"], (std::map<std::string, int>{{"relu", 1}}));
  EXPECT_EQ(by_scope[""], (std::map<std::string, int>{{"mse", 1}}));
  auto back = parse_module(print_module(m), "t.mlir");
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->find("loss")->ops[0]->meta.scope, m.find("loss")->ops[0]->meta.scope);
}

}  // namespace
}  // namespace mlc

namespace mlc {
namespace {

// The work budget counts, before emitting, at least the ops forward
// statements emit: every operator and built-in of tests/oracle/forward_exprs.py's
// statements (wrapped in a container "inner", so its forward's ops carry the
// scope "inner") emits no more than the count the over-budget message reports.
TEST(ForwardStatements, WorkBoundCoversEveryBuiltin) {
  std::ifstream in("tests/data/oracle/forward_exprs/model.json");
  auto file = nlohmann::json::parse(in);
  nlohmann::json inner = file["model"];
  file["model"] = {{"inputs", {"x"}}, {"layers", {{"inner", inner}}}, {"forward", {"return inner(x)"}}};
  ModelLimits tight;
  tight.max_forward_ops = 1;
  auto over = ModelFile::parse(file.dump(), "t.json", tight);
  ASSERT_FALSE(over.ok());
  const std::string& msg = over.error().message;
  size_t at = msg.find("expands to ");
  ASSERT_NE(at, std::string::npos) << msg;
  int64_t bound = std::stoll(msg.substr(at + 11));
  ModelFile mf = parse_ok(file.dump());
  Module m = build_ok(mf, 3);
  int64_t emitted = 0;
  for (const auto& op : m.find("loss")->ops) emitted += op->meta.scope == "inner";
  EXPECT_GT(emitted, 100);
  EXPECT_LE(emitted, bound);
}

// nn.Sequential's naming: integer names, or a list of layers named by position.
TEST(FrontendModules, SequentialIntegerNamesAndLists) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 4]}, "t": {"dtype": "f32", "shape": ["batch", 2]})";
  for (const char* layers :
       {R"({"0": {"type": "Linear", "in_features": 4, "out_features": 3}, "1": {"type": "ReLU"},
            "2": {"type": "Linear", "in_features": 3, "out_features": 2}})",
        R"([{"type": "Linear", "in_features": 4, "out_features": 3}, {"type": "ReLU"},
            {"type": "Linear", "in_features": 3, "out_features": 2}])"}) {
    ModelFile mf = parse_ok(model_text(io, std::string(R"({"layers": )") + layers + "}"));
    std::vector<std::string> names;
    for (const ParamInfo& p : mf.config().params) names.push_back(p.name);
    EXPECT_EQ(names, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  }
  // Inside a container with forward, parameters of a Sequential are referenced by index.
  ModelFile mf = parse_ok(model_text(io, R"({"layers": {"seq": {"layers": [
      {"type": "Linear", "in_features": 4, "out_features": 2}]}},
      "forward": ["return seq(x) + x @ seq.0.weight.T"]})"));
  Module m = build_ok(mf, 2);
  EXPECT_EQ(op_counts(m)["dot"], 2);
}

// A tied weight is one parameter, under its owner's name; referenced through
// the tying layer (head.weight) it is the owner's tensor.
TEST(FrontendModules, TiedWeightIsOneParameter) {
  std::string io = R"("x": {"dtype": "f32", "shape": ["batch", 4]}, "t": {"dtype": "f32", "shape": ["batch", 4]})";
  ModelFile mf = parse_ok(model_text(io, R"({"layers": {
      "emb": {"type": "Linear", "in_features": 4, "out_features": 4, "bias": false},
      "head": {"type": "Linear", "in_features": 4, "out_features": 4, "tie_weight": "emb.weight"}},
      "forward": ["return head(emb(x)) + x @ head.weight.T"]})"));
  std::vector<std::string> names;
  for (const ParamInfo& p : mf.config().params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"emb.weight", "head.bias"}));
  Module m = build_ok(mf, 2);
  const Function& loss = *m.find("loss");
  ASSERT_EQ(loss.args.size(), 4u);  // x, t, emb.weight, head.bias
  int readers = 0;  // emb's dot, head's dot, the transpose of head.weight.T
  for (const auto& op : loss.ops)
    for (const Value* v : op->operands) readers += v == loss.args[2];
  EXPECT_EQ(readers, 3);
}

}  // namespace
}  // namespace mlc
