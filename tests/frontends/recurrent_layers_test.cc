// Recurrent layers (frontends/layers_recurrent.cc) in model files: parameter
// names, shapes and init in PyTorch's registration order, the calls a forward
// may make (states in, tuples out, nested unpacking), and the located errors
// for bad fields, inputs and states.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "frontends/model_file.h"

namespace mlc {
namespace {

// A model of one recurrent layer `l` (JSON fields) with `inputs` and an mse
// against `t`; `forward` statements (JSON strings) if given.
std::string rnn_model(const std::string& inputs, const std::string& layer, const std::string& forward = "") {
  std::string model = R"x({"layers": {"l": )x" + layer + "}";
  if (!forward.empty()) model += R"x(, "inputs": ["x", "s"], "forward": [)x" + forward + "]";
  return R"x({"name": "t", "inputs": {)x" + inputs + R"x(}, "model": )x" + model +
         R"x(}, "loss": {"type": "mse", "targets": "t"}})x";
}

const std::string kSeq = R"x("x": {"dtype": "f32", "shape": [5, "batch", 2]}, "t": {"dtype": "f32", "shape": [5, "batch", 3]})x";

std::string build_error(const std::string& text) {
  auto mf = ModelFile::parse(text, "t.json");
  if (!mf.ok()) return mf.error().message;
  auto m = mf->build(4);
  return m.ok() ? "" : m.error().message;
}

TEST(RecurrentLayers, ParametersInRegistrationOrderWithUniformInit) {
  const std::string io = R"x("x": {"dtype": "f32", "shape": [5, "batch", 2]}, "t": {"dtype": "f32", "shape": [5, "batch", 6]})x";
  auto mf = ModelFile::parse(
      rnn_model(io, R"x({"type": "LSTM", "input_size": 2, "hidden_size": 3, "num_layers": 2, "bidirectional": true})x"),
      "t.json");
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  std::vector<std::string> names;
  for (const ParamInfo& p : mf->config().params) {
    names.push_back(p.name + " " + p.type.str());
    EXPECT_EQ(p.init.kind, ParamInit::Kind::uniform) << p.name;
    EXPECT_DOUBLE_EQ(p.init.bound, 1 / std::sqrt(3.0)) << p.name;
  }
  std::vector<std::string> want;
  for (const std::string l : {"l0", "l1"})
    for (const std::string d : {"", "_reverse"}) {
      const std::string in = l == "l0" ? "2" : "6";
      want.push_back("l.weight_ih_" + l + d + " f32[12," + in + "]");
      want.push_back("l.weight_hh_" + l + d + " f32[12,3]");
      want.push_back("l.bias_ih_" + l + d + " f32[12]");
      want.push_back("l.bias_hh_" + l + d + " f32[12]");
    }
  EXPECT_EQ(names, want);
}

TEST(RecurrentLayers, CellParametersAndGateWidths) {
  const std::string inputs = R"x("x": {"dtype": "f32", "shape": ["batch", 2]}, "t": {"dtype": "f32", "shape": ["batch", 3]})x";
  for (auto [type, rows] : {std::pair{"RNNCell", 3}, std::pair{"LSTMCell", 12}, std::pair{"GRUCell", 9}}) {
    SCOPED_TRACE(type);
    auto mf = ModelFile::parse(
        rnn_model(inputs, std::string(R"x({"type": ")x") + type + R"x(", "input_size": 2, "hidden_size": 3, "bias": false})x"),
        "t.json");
    ASSERT_TRUE(mf.ok()) << mf.error().message;
    ASSERT_EQ(mf->config().params.size(), 2u);
    EXPECT_EQ(mf->config().params[0].name, "l.weight_ih");
    EXPECT_EQ(mf->config().params[0].type.shape, (Shape{rows, 2}));
    EXPECT_EQ(mf->config().params[1].name, "l.weight_hh");
    EXPECT_EQ(mf->config().params[1].type.shape, (Shape{rows, 3}));
    auto m = mf->build(4);
    EXPECT_TRUE(m.ok()) << m.error().message;  // in a Sequential: the new hidden state
  }
}

TEST(RecurrentLayers, FieldErrorsAreLocated) {
  auto err = [](const std::string& fields) {
    return build_error(rnn_model(kSeq, R"x({"type": "RNN", "input_size": 2, )x" + fields + "}"));
  };
  EXPECT_EQ(err(R"x("hidden_size": 0)x"), "t.json:1:199: error: 'hidden_size': must be positive, found 0");
  EXPECT_EQ(err(R"x("hidden_size": 3, "nonlinearity": "sigmoid")x"),
            "t.json:1:218: error: 'nonlinearity': must be one of \"tanh\", \"relu\", found 'sigmoid'");
  EXPECT_EQ(err(R"x("hidden_size": 3, "dropout": 1.5)x"), "t.json:1:213: error: 'dropout': must be in [0, 1]");
  EXPECT_EQ(err(R"x("hidden_size": 3, "proj_size": 2)x"),
            "t.json:1:202: error: unknown field 'proj_size' in layer 'l' (RNN) (expected one of: type, input_size, "
            "hidden_size, num_layers, bias, batch_first, dropout, bidirectional, nonlinearity, trainable)");
}

TEST(RecurrentLayers, InputAndStateShapesAreChecked) {
  const std::string layer = R"x({"type": "GRU", "input_size": 4, "hidden_size": 3})x";
  EXPECT_EQ(build_error(rnn_model(kSeq, layer)), "t.json:1:151: error: GRU 'l': input has 2 features but input_size is 4");
  const std::string vec = R"x("x": {"dtype": "f32", "shape": [4]}, "t": {"dtype": "f32", "shape": [3]})x";
  EXPECT_EQ(build_error(rnn_model(vec, layer)), "t.json:1:127: error: GRU 'l': expected an input of rank 2 or 3, found f32[4]");
  const std::string lstm = R"x({"type": "LSTM", "input_size": 2, "hidden_size": 3, "num_layers": 2})x";
  const std::string state = R"x(, "s": {"dtype": "f32", "shape": [2, "batch", 3]})x";
  EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, R"x("out, (h, c) = l(x, s)", "return out")x")),
            "t.json:1:200: error: LSTM 'l': expected the state as a tuple (h_0, c_0), found a tensor");
  EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, R"x("out, (h, c) = l(x, (s, s[:1]))", "return out")x")),
            "t.json:1:200: error: LSTM 'l': expected the state (h_0, c_0) of f32[2,1,3], found f32[1,1,3]");
  EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, R"x("out = l(x, (s, s), s)", "return out")x")),
            "t.json:1:325: error: forward: 'l' takes at most 2 arguments, given 3");
}

TEST(RecurrentLayers, ForwardCallsTakeStatesAndGiveTuples) {
  const std::string lstm = R"x({"type": "LSTM", "input_size": 2, "hidden_size": 3, "num_layers": 2})x";
  const std::string state = R"x(, "s": {"dtype": "f32", "shape": [2, "batch", 3]})x";
  for (const std::string fwd : {
           R"x("out = l(x)[0]", "return out")x",
           R"x("return l(x, (s, s))[0]")x",
           R"x("return l(x, hx=(s, s))[0] + l(x, None)[0]")x",
           R"x("out, hc = l(x)", "h, c = hc", "out2, hc2 = l(x, hc)", "return out2 + out")x",
           R"x("out, (h, c) = l(x, (s, s))", "return out + h[-1] + c.sum(0)")x"}) {
    SCOPED_TRACE(fwd);
    EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, fwd)), "");
  }
  EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, R"x("out, (h, c, d) = l(x)", "return out")x")),
            "t.json:1:306: error: forward: not enough values to unpack: 2 values into 3 names (h, c, d)");
  EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, R"x("out, (h) = l(x)", "return out")x")),
            "t.json:1:311: error: forward: a parenthesized target needs two or more names: (h, c)");
  EXPECT_EQ(build_error(rnn_model(kSeq + state, R"x({"type": "Linear", "in_features": 2, "out_features": 3})x",
                                  R"x("return l((x, x))")x")),
            "t.json:1:302: error: forward: 'l' expects a tensor, found a list of 2");
  // As in PyTorch the result is a tuple, which one name does not take whole.
  EXPECT_EQ(build_error(rnn_model(kSeq + state, lstm, R"x("out = l(x)", "return out")x")),
            "t.json:1:305: error: forward: cannot assign a list of 2, the tuple 'l' returns, to 'out'; index or "
            "unpack it: out = l(...)[0], or out, rest = ...");
}

// The model language takes PyTorch's positional arguments: RNNBase's order
// (nonlinearity by keyword) and the cells' (input_size, hidden_size, bias).
TEST(RecurrentLayers, ModelLanguageTakesPyTorchsPositionalArguments) {
  const std::string head = "name = t\ninputs:\n    x: f32[5, batch, 2]\n    t: f32[5, batch, 6]\nmodel(x):\n";
  const std::string tail = "loss = mse(targets=t)\n";
  auto mlc = ModelFile::parse(head + "    l = GRU(2, 3, 1, True, False, 0.0, True)\n" + tail, "t.mlc");
  ASSERT_TRUE(mlc.ok()) << mlc.error().message;
  auto json = ModelFile::parse(
      rnn_model(R"x("x": {"dtype": "f32", "shape": [5, "batch", 2]}, "t": {"dtype": "f32", "shape": [5, "batch", 6]})x",
                R"x({"type": "GRU", "input_size": 2, "hidden_size": 3, "bidirectional": true})x"),
      "t.json");
  ASSERT_TRUE(json.ok()) << json.error().message;
  ASSERT_EQ(mlc->config().params.size(), json->config().params.size());
  for (size_t i = 0; i < json->config().params.size(); ++i)
    EXPECT_EQ(mlc->config().params[i].type, json->config().params[i].type) << json->config().params[i].name;
  auto too_many = ModelFile::parse(head + "    l = LSTMCell(2, 3, True, 1)\n" + tail, "t.mlc");
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().message,
            "t.mlc:6:30: error: LSTMCell takes at most 3 positional arguments (input_size, hidden_size, bias)");
}

// Dropout between layers: training mode only, one mask per layer but the
// last, each on its own random stream.
TEST(RecurrentLayers, DropoutBetweenLayersInTrainingModeOnly) {
  auto mf = ModelFile::parse(
      rnn_model(kSeq, R"x({"type": "LSTM", "input_size": 2, "hidden_size": 3, "num_layers": 3, "dropout": 0.5})x"), "t.json");
  ASSERT_TRUE(mf.ok()) << mf.error().message;
  auto m = mf->build(4);
  ASSERT_TRUE(m.ok()) << m.error().message;
  std::set<int64_t> streams;
  for (const auto& op : m->find("loss")->ops)
    if (op->code == OpCode::RandomUniform) streams.insert(op->attrs.get_int("stream"));
  EXPECT_EQ(streams.size(), 2u);
  for (const auto& op : m->find("eval")->ops) EXPECT_NE(op->code, OpCode::RandomUniform);
}

}  // namespace
}  // namespace mlc
