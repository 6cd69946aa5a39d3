// The example model files: they load, build, and reproduce the oracle models
// (state_dict names, shapes and order of tests/data/oracle/<model>/init.safetensors,
// op counts of @loss, training and data settings).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "frontends/model_file.h"
#include "ir/op_table.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"

namespace mlc {
namespace {

const std::string kSrc = MLC_SOURCE_DIR;

// (name, dtype, shape) of every tensor in a safetensors file, in header order.
struct HeaderEntry {
  std::string name, dtype;
  Shape shape;
};
std::vector<HeaderEntry> read_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  unsigned char len[8] = {};
  in.read(reinterpret_cast<char*>(len), 8);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  std::string text(n, '\0');
  in.read(text.data(), static_cast<std::streamsize>(n));
  auto header = nlohmann::ordered_json::parse(text);
  std::vector<HeaderEntry> out;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    out.push_back({it.key(), it.value()["dtype"], it.value()["shape"].get<Shape>()});
  }
  return out;
}

ModelFile load_example(const std::string& name) {
  auto mf = ModelFile::load("examples/" + name + ".json");
  EXPECT_TRUE(mf.ok()) << mf.error().message;
  return std::move(mf).value();
}

std::map<std::string, int> op_counts(const Function& f) {
  std::map<std::string, int> counts;
  for (const auto& op : f.ops) ++counts[std::string(op_name(op->code))];
  return counts;
}

int64_t param_count(const ModelConfig& c) {
  int64_t n = 0;
  for (const auto& p : c.params) n += p.type.num_elements();
  return n;
}

class ExampleModels : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleModels, ParamsMatchOracleInit) {
  ModelFile mf = load_example(GetParam());
  auto header = read_header(kSrc + "/tests/data/oracle/" + GetParam() + "/init.safetensors");
  const auto& params = mf.config().params;
  ASSERT_EQ(params.size(), header.size());
  for (size_t i = 0; i < params.size(); ++i) {
    EXPECT_EQ(params[i].name, header[i].name);
    EXPECT_EQ(params[i].type, (TensorType{DType::f32, header[i].shape})) << params[i].name;
    EXPECT_EQ(header[i].dtype, "F32");
    EXPECT_TRUE(params[i].trainable);
    EXPECT_TRUE(params[i].loc.known());
  }
  std::printf("[ info ] %s: %lld parameters\n", GetParam().c_str(),
              static_cast<long long>(param_count(mf.config())));
}

TEST_P(ExampleModels, BuildsLossAndEvalWithLocatedOps) {
  ModelFile mf = load_example(GetParam());
  int64_t batch = mf.config().train.batch_size;
  auto m = mf.build(batch);
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->name, GetParam());
  ASSERT_EQ(m->functions.size(), 2u);
  const ModelConfig& c = mf.config();
  for (const char* fn : {"loss", "eval"}) {
    const Function* f = m->find(fn);
    ASSERT_NE(f, nullptr) << fn;
    ASSERT_EQ(f->args.size(), c.inputs.size() + c.params.size());
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      EXPECT_EQ(f->arg_kinds[i], ArgKind::input);
      EXPECT_EQ(f->args[i]->name, c.inputs[i].name);
      EXPECT_EQ(f->args[i]->type.shape[0], batch);
    }
    for (size_t i = 0; i < c.params.size(); ++i) {
      EXPECT_EQ(f->arg_kinds[c.inputs.size() + i], ArgKind::param);
      EXPECT_EQ(f->args[c.inputs.size() + i]->name, c.params[i].name);
    }
    for (const auto& op : f->ops) {
      EXPECT_TRUE(op->loc.known()) << op_name(op->code);
      EXPECT_EQ(op->loc.file, "examples/" + GetParam() + ".json");
    }
  }
  const Function* loss = m->find("loss");
  ASSERT_EQ(loss->results.size(), 1u);
  EXPECT_EQ(loss->results[0]->type, (TensorType{DType::f32, {}}));
  const Function* eval = m->find("eval");
  ASSERT_EQ(eval->results.size(), 2u);
  EXPECT_EQ(eval->results[0]->type, (TensorType{DType::f32, {}}));
  EXPECT_EQ(eval->results[1]->type, (TensorType{DType::i64, {}}));
  // The IR verifies, prints with the model file's locations and parses back.
  Status ok = verify_module(*m);
  EXPECT_TRUE(ok.ok()) << ok.error().message;
  std::string text = print_module(*m);
  EXPECT_NE(text.find("loc(\"examples/" + GetParam() + ".json\":"), std::string::npos);
  auto parsed = parse_module(text, "printed");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(print_module(*parsed), text);
}

INSTANTIATE_TEST_SUITE_P(All, ExampleModels, ::testing::Values("digits_mlp", "digits_cnn", "tiny_gpt", "gpt8"));

TEST(ExampleModels, DigitsMlpOpsAndSettings) {
  ModelFile mf = load_example("digits_mlp");
  auto m = mf.build(32);
  ASSERT_TRUE(m.ok()) << m.error().message;
  std::map<std::string, int> expected{{"reshape", 1}, {"dot", 2}, {"add", 2}, {"relu", 1},
                                      {"cross_entropy", 1}};
  EXPECT_EQ(op_counts(*m->find("loss")), expected);
  const ModelConfig& c = mf.config();
  EXPECT_EQ(param_count(c), 64 * 128 + 128 + 128 * 10 + 10);
  EXPECT_EQ(c.loss_type, "cross_entropy");
  EXPECT_EQ(c.loss_targets, "y");
  EXPECT_TRUE(c.classifier);
  EXPECT_EQ(c.train.batch_size, 32);
  EXPECT_EQ(c.train.epochs, 3);
  EXPECT_EQ(c.train.steps, 0);
  EXPECT_FALSE(c.train.shuffle);
  EXPECT_TRUE(c.train.drop_last);
  EXPECT_EQ(c.train.optimizer.type, "sgd");
  EXPECT_EQ(c.train.optimizer.lr, 0.1);
  EXPECT_EQ(c.train.optimizer.momentum, 0.9);
  EXPECT_EQ(c.train.optimizer.dampening, 0);
  EXPECT_FALSE(c.train.optimizer.nesterov);
  EXPECT_EQ(c.data.file, "examples/data/digits.safetensors");
  ASSERT_EQ(c.data.train.size(), 2u);
  EXPECT_EQ(c.data.train[0].input, "x");
  EXPECT_EQ(c.data.train[0].tensor, "train_images");
  EXPECT_EQ(c.data.train[1].tensor, "train_labels");
  EXPECT_EQ(c.data.eval[0].tensor, "val_images");
  EXPECT_EQ(c.data.eval[1].tensor, "val_labels");
  EXPECT_TRUE(c.data.train[0].slices.empty());
  ASSERT_EQ(c.inputs.size(), 2u);
  EXPECT_TRUE(c.inputs[0].batched);
  EXPECT_EQ(c.inputs[0].batch_dim, 0);
  EXPECT_EQ(c.inputs[0].shape, (Shape{-1, 1, 8, 8}));
  EXPECT_EQ(c.inputs[1].dtype, DType::i64);
  // Init: kaiming_uniform(a=sqrt(5)) weights, U(+-1/sqrt(fan_in)) biases.
  EXPECT_EQ(c.params[0].init.kind, ParamInit::Kind::kaiming_uniform);
  EXPECT_DOUBLE_EQ(c.params[0].init.fan_in, 64);
  EXPECT_EQ(c.params[1].init.kind, ParamInit::Kind::uniform);
  EXPECT_DOUBLE_EQ(c.params[1].init.bound, 1.0 / 8);
  EXPECT_DOUBLE_EQ(c.params[2].init.fan_in, 128);
}

TEST(ExampleModels, DigitsCnnOps) {
  ModelFile mf = load_example("digits_cnn");
  auto m = mf.build(32);
  ASSERT_TRUE(m.ok()) << m.error().message;
  std::map<std::string, int> expected{{"conv2d", 2}, {"reshape", 3},    {"add", 3},
                                      {"relu", 2},   {"max_pool2d", 2}, {"dot", 1},
                                      {"cross_entropy", 1}};
  EXPECT_EQ(op_counts(*m->find("loss")), expected);
  const ModelConfig& c = mf.config();
  EXPECT_EQ(c.train.epochs, 5);
  EXPECT_DOUBLE_EQ(c.params[0].init.fan_in, 9);    // conv1: 1*3*3
  EXPECT_DOUBLE_EQ(c.params[1].init.bound, 1.0 / 3);
  EXPECT_DOUBLE_EQ(c.params[2].init.fan_in, 144);  // conv2: 16*3*3
  EXPECT_EQ(m->find("loss")->ops[0]->loc.str(), "examples/digits_cnn.json:10:16");  // conv1
}

TEST(ExampleModels, TinyGptOpsAndSettings) {
  ModelFile mf = load_example("tiny_gpt");
  auto m = mf.build(16);
  ASSERT_TRUE(m.ok()) << m.error().message;
  std::map<std::string, int> expected{
      {"gather", 2},    {"iota", 5},   {"add", 5},      {"rms_norm", 5},  {"dot", 19},
      {"reshape", 8},   {"transpose", 8}, {"mul", 4},   {"constant", 4},  {"compare", 2},
      {"select", 2},    {"softmax", 2}, {"silu", 2},    {"cross_entropy", 1}};
  EXPECT_EQ(op_counts(*m->find("loss")), expected);
  const ModelConfig& c = mf.config();
  EXPECT_EQ(param_count(c), 92480);
  EXPECT_EQ(c.train.batch_size, 16);
  EXPECT_EQ(c.train.steps, 40);
  EXPECT_EQ(c.train.epochs, 0);
  const OptimizerConfig& o = c.train.optimizer;
  EXPECT_EQ(o.type, "adamw");
  EXPECT_EQ(o.lr, 3e-3);
  EXPECT_EQ(o.beta1, 0.9);
  EXPECT_EQ(o.beta2, 0.95);
  EXPECT_EQ(o.eps, 1e-8);
  EXPECT_EQ(o.weight_decay, 0.1);
  EXPECT_EQ(o.decay, "2d");
  EXPECT_EQ(c.data.file, "examples/data/tiny_gpt_tokens.safetensors");
  ASSERT_EQ(c.data.train.size(), 2u);
  const InputMapping& tokens = c.data.train[0];
  EXPECT_EQ(tokens.tensor, "tokens");
  ASSERT_EQ(tokens.slices.size(), 2u);
  EXPECT_FALSE(tokens.slices[0].start || tokens.slices[0].stop);
  EXPECT_FALSE(tokens.slices[1].start);
  EXPECT_EQ(tokens.slices[1].stop, -1);
  const InputMapping& targets = c.data.eval[1];
  EXPECT_EQ(targets.slices[1].start, 1);
  EXPECT_FALSE(targets.slices[1].stop);
  EXPECT_EQ(c.params[0].init.kind, ParamInit::Kind::normal);
  EXPECT_EQ(c.params[0].init.stddev, 1.0);
  EXPECT_EQ(c.params[2].name, "layers.0.attn_norm.weight");
  EXPECT_EQ(c.params[2].init.kind, ParamInit::Kind::ones);
  EXPECT_DOUBLE_EQ(c.params[3].init.fan_in, 64);  // wq
  // Every op of the attention carries the attention layer's location.
  const Function& f = *m->find("loss");
  int select_line = 0;
  for (const auto& op : f.ops)
    if (op->code == OpCode::Select) select_line = op->loc.line;
  EXPECT_EQ(select_line, 17);
  // The mask is -inf above the diagonal: select(col > row, -inf, scores).
  const Op* sel = nullptr;
  for (const auto& op : f.ops)
    if (op->code == OpCode::Select) sel = op.get();
  ASSERT_NE(sel, nullptr);
  EXPECT_EQ(sel->operands[0]->producer->attrs.get_string("direction"), "gt");
  EXPECT_TRUE(std::isinf(sel->operands[1]->producer->attrs.get_float("value")));
}

TEST(ExampleModels, BuildAtOtherBatchSizes) {
  ModelFile mf = load_example("tiny_gpt");
  for (int64_t batch : {1, 3, 256}) {
    auto m = mf.build(batch);
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_EQ(m->find("eval")->args[0]->type, (TensorType{DType::i64, {batch, 32}}));
  }
  EXPECT_FALSE(mf.build(0).ok());
}

// The example at the top of docs/model-format.md is a valid model file.
TEST(ModelFormatDoc, SpecExampleLoads) {
  std::ifstream in(kSrc + "/docs/model-format.md");
  std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  begin += 8;
  size_t end = doc.find("```", begin);
  auto mf = ModelFile::parse(doc.substr(begin, end - begin), "docs/model-format.md");
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  EXPECT_EQ(mf->config().params.size(), 4u);
  EXPECT_EQ(mf->config().data.file, "docs/data/digits.safetensors");
}

}  // namespace
}  // namespace mlc
