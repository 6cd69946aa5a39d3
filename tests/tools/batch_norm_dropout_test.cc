// BatchNorm1d/2d and Dropout (frontends/layers_train_mode.cc) end to end:
//  - against PyTorch 1.13 (tests/oracle/batch_norm.py, recorded in
//    tests/data/oracle/{batchnorm_mlp,digits_cnn_bn}): per-step training-mode
//    losses within 1e-5 relative, final parameters and buffers
//    (running_mean/var within 1e-4, num_batches_tracked exactly), and the
//    evaluation-mode loss and accuracy (tolerances: training_test.cc);
//  - SyncBatchNorm: dp=2 equals one device (f32 sums in another order);
//  - Dropout: p = 0 is the model without dropout bit for bit; the dropped
//    fraction; same seed, same run; resume bit-identical;
//  - finite differences for BatchNorm in training mode and Dropout with a fixed
//    mask (step), in f64 through autodiff and the interpreter;
//  - a BatchNorm without "sync" on a data-parallel mesh is a located error.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "frontends/model_file.h"
#include "passes/autodiff.h"
#include "runtime/interpreter.h"
#include "runtime/safetensors.h"
#include "tests/tools/grad_check_util.h"
#include "tests/tools/run_mlc.h"
#include "driver/train.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mlc_bn_test_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

ModelFile load(const std::string& path) {
  auto m = ModelFile::load(path);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

struct TrainRun {
  std::vector<double> losses;
  double eval_loss = 0, eval_accuracy = 0;
  std::string params;  // the saved final parameters and buffers
};

TrainRun train_model(const ModelFile& model, TrainOptions o, const std::string& dir) {
  o.metrics_path = dir + "/metrics.jsonl";
  if (o.save_path.empty()) o.save_path = dir + "/final.safetensors";
  auto s = train(model, o);
  EXPECT_TRUE(s.ok()) << s.error().message;
  TrainRun r;
  r.params = o.save_path;
  std::ifstream in(o.metrics_path);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    if (j.contains("loss")) r.losses.push_back(j["loss"]);
    if (j.contains("eval")) {
      r.eval_loss = j["eval"]["loss"];
      r.eval_accuracy = j["eval"]["accuracy"];
    }
  }
  return r;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every tensor of `ref` in `got`: f32 within atol, i64 equal.
void expect_state(const std::string& got_path, const std::string& ref_path, double atol) {
  auto got = rt::read_safetensors(got_path);
  auto ref = rt::read_safetensors(ref_path);
  ASSERT_TRUE(got.ok() && ref.ok());
  EXPECT_EQ(got->entries.size(), ref->entries.size());
  for (const rt::SafetensorsEntry& e : ref->entries) {
    auto t = got->get(e.name);
    ASSERT_TRUE(t.ok()) << e.name;
    ASSERT_EQ((*t)->type(), e.tensor.type()) << e.name;
    for (int64_t i = 0; i < e.tensor.num_elements(); ++i) {
      if (e.tensor.dtype() == DType::i64) {
        EXPECT_EQ((*t)->data<int64_t>()[i], e.tensor.data<int64_t>()[i]) << e.name;
      } else {
        ASSERT_LE(std::fabs((*t)->data<float>()[i] - e.tensor.data<float>()[i]), atol) << e.name << "[" << i << "]";
      }
    }
  }
}

void expect_matches_pytorch(const std::string& model_path, const std::string& ref, const std::string& name) {
  ModelFile model = load(model_path);
  TrainRun r = train_model(model, TrainOptions{}, temp_dir(name));
  std::ifstream in(ref + "/losses.json");
  auto want = nlohmann::json::parse(in);
  auto losses = want["losses"].get<std::vector<double>>();
  ASSERT_EQ(r.losses.size(), losses.size());
  for (size_t i = 0; i < losses.size(); ++i)
    EXPECT_LE(std::fabs(r.losses[i] - losses[i]) / std::fabs(losses[i]), 1e-5) << "step " << i;
  expect_state(r.params, ref + "/final.safetensors", 1e-4);
  EXPECT_LE(std::fabs(r.eval_loss - want["eval_loss"].get<double>()) / want["eval_loss"].get<double>(), 1e-5);
  EXPECT_DOUBLE_EQ(r.eval_accuracy, want["eval_correct"].get<double>() / want["eval_examples"].get<double>());
}

// The BatchNorm1d MLP of PyTorch's gradient-flow tutorial, 30 SGD steps.
TEST(BatchNormOracle, TutorialMlpMatchesPyTorch) {
  expect_matches_pytorch("examples/batchnorm_mlp.json", "tests/data/oracle/batchnorm_mlp", "mlp");
}

// Conv2d + BatchNorm2d + Linear + BatchNorm1d with Dropout(p=0), 45 Adam steps.
TEST(BatchNormOracle, DigitsCnnMatchesPyTorch) {
  expect_matches_pytorch("tests/data/oracle/digits_cnn_bn/model_p0.json", "tests/data/oracle/digits_cnn_bn", "cnn");
}

// `--init` reads PyTorch's final state_dict, buffers included, and `--eval`
// runs in evaluation mode (running statistics, no dropout): PyTorch's eval.
TEST(BatchNormOracle, EvalOfPyTorchsFinalStateUsesRunningStatistics) {
  for (auto [model, ref] : {std::pair{"examples/batchnorm_mlp.json", "tests/data/oracle/batchnorm_mlp"},
                            std::pair{"examples/digits_cnn_bn.json", "tests/data/oracle/digits_cnn_bn"}}) {
    SCOPED_TRACE(model);
    std::ifstream in(std::string(ref) + "/losses.json");
    auto want = nlohmann::json::parse(in);
    auto r = testing::run_mlc(std::string("run ") + model + " --eval --init " + ref + "/final.safetensors");
    ASSERT_EQ(r.status, 0) << r.err;
    std::ostringstream line;
    line.precision(6);
    // batchnorm_mlp has no eval split: its evaluation reads the training data.
    const bool no_eval_split = std::string(model) == "examples/batchnorm_mlp.json";
    line << std::fixed << (no_eval_split ? "eval (training data, no eval split)" : "eval") << ": loss "
         << want["eval_loss"].get<double>() << "  accuracy ";
    EXPECT_NE((r.out + r.err).find(line.str()), std::string::npos) << line.str() << "\n" << r.out << r.err;
    const std::string counts = "(" + std::to_string(want["eval_correct"].get<int>()) + "/" +
                               std::to_string(want["eval_examples"].get<int>()) + ")";
    EXPECT_NE((r.out + r.err).find(counts), std::string::npos) << r.out << r.err;
  }
}

// SyncBatchNorm: statistics all_reduced over dp; the same run as one device
// up to the order of f32 sums (measured: equal to the printed digits).
TEST(BatchNormMesh, SyncOnDp2EqualsOneDevice) {
  ModelFile model = load("tests/data/oracle/batchnorm_mlp/sync.json");
  TrainRun one = train_model(model, TrainOptions{}, temp_dir("sync_one"));
  TrainOptions o;
  o.parallel.mesh = *Mesh::parse("dp=2");
  TrainRun dp = train_model(model, o, temp_dir("sync_dp2"));
  ASSERT_EQ(one.losses.size(), 30u);
  ASSERT_EQ(dp.losses.size(), one.losses.size());
  for (size_t i = 0; i < one.losses.size(); ++i)
    EXPECT_LE(std::fabs(dp.losses[i] - one.losses[i]) / one.losses[i], 1e-5) << "step " << i;
  expect_state(dp.params, one.params, 1e-5);
}

TEST(BatchNormMesh, WithoutSyncOnADataAxisIsALocatedError) {
  ModelFile model = load("examples/batchnorm_mlp.json");
  TrainOptions o;
  o.parallel.mesh = *Mesh::parse("dp=2");
  o.metrics_path = temp_dir("unsynced") + "/m.jsonl";
  auto s = train(model, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find(
                "examples/batchnorm_mlp.json:10:14: error: BatchNorm 'bn1': on mesh dp=2 the batch is split over 2 "
                "devices, and per-device batch statistics are not supported; set \"sync\": true to normalize over "
                "the whole batch (SyncBatchNorm)"),
            std::string::npos)
      << s.error().message;
}

// p = 0 builds no dropout op: the same losses and parameters, bit for bit.
TEST(Dropout, PZeroIsTheModelWithoutDropout) {
  TrainRun with = train_model(load("tests/data/oracle/digits_cnn_bn/model_p0.json"), TrainOptions{}, temp_dir("p0"));
  TrainRun without = train_model(load("tests/data/oracle/digits_cnn_bn/model_no_dropout.json"), TrainOptions{},
                            temp_dir("no_dropout"));
  EXPECT_EQ(with.losses, without.losses);
  expect_state(with.params, without.params, 0.0);
}

// Same seed: the same run; 20 steps, stop, resume to 45: bit-identical to 45
// straight (the masks depend on the step, which the checkpoint keeps).
TEST(Dropout, SameSeedSameRunAndResumeIsBitIdentical) {
  ModelFile model = load("examples/digits_cnn_bn.json");
  const std::string dir = temp_dir("resume");
  TrainRun a = train_model(model, TrainOptions{}, temp_dir("resume_a"));
  TrainRun b = train_model(model, TrainOptions{}, temp_dir("resume_b"));
  ASSERT_EQ(a.losses.size(), 45u);
  EXPECT_EQ(a.losses, b.losses);
  EXPECT_TRUE(bytes_of(a.params) == bytes_of(b.params));

  TrainOptions first;
  first.checkpoint_dir = dir + "/ckpt";
  first.steps = 20;
  train_model(model, first, temp_dir("resume_first"));
  TrainOptions second;
  second.checkpoint_dir = first.checkpoint_dir;
  second.resume = true;
  TrainRun resumed = train_model(model, second, temp_dir("resume_second"));
  ASSERT_EQ(resumed.losses.size(), 25u);
  EXPECT_EQ(resumed.losses, std::vector<double>(a.losses.begin() + 20, a.losses.end()));
  EXPECT_TRUE(bytes_of(resumed.params) == bytes_of(a.params));
}

const char* kDropoutModel = R"({
  "name": "drop",
  "inputs": {"x": {"dtype": "f64", "shape": ["batch", 1000]}, "t": {"dtype": "f64", "shape": ["batch", 1000]}},
  "model": {"layers": {"drop": {"type": "Dropout", "p": 0.3}}},
  "loss": {"type": "mse", "targets": "t", "reduction": "sum"},
  "train": {"batch_size": 64, "steps": 1, "seed": 7, "optimizer": {"type": "sgd", "lr": 0.1}}
})";

rt::Tensor filled(const TensorType& type, double v) {
  rt::Tensor t(type);
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (t.dtype() == DType::f64) t.data<double>()[i] = v;
    else if (t.dtype() == DType::f32) t.data<float>()[i] = static_cast<float>(v);
    else t.data<int64_t>()[i] = static_cast<int64_t>(v);
  }
  return t;
}

// With x = 1 and t = 0, sum((x * mask)^2) = kept * (1/(1-p))^2. Over N = 64000
// draws the dropped fraction has standard deviation sqrt(p(1-p)/N) = 0.0018;
// it must lie within 5 of them of p at every step (the draws are fixed by the
// seed, so this cannot flake), and two steps draw different masks.
TEST(Dropout, DropsTheFractionPAndRedrawsEachStep) {
  auto model = ModelFile::parse(kDropoutModel, "drop.json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto m = model->build(64);
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Function& loss = *m->find("loss");
  auto interp = rt::Interpreter::create(loss);
  ASSERT_TRUE(interp.ok()) << interp.error().message;
  const double p = 0.3, n = 64000, bound = 5 * std::sqrt(p * (1 - p) / n);
  std::vector<double> sums;
  for (int64_t step : {1, 2, 3}) {
    std::vector<rt::Tensor> args;
    for (size_t i = 0; i < loss.args.size(); ++i)
      args.push_back(filled(loss.args[i]->type, loss.arg_kinds[i] == ArgKind::step ? static_cast<double>(step)
                                                : loss.args[i]->name == "x"         ? 1.0
                                                                                    : 0.0));
    auto r = interp->run(args);
    ASSERT_TRUE(r.ok()) << r.error().message;
    const double sum = (*r)[0].data<double>()[0];
    const double scale = 1.0f / 0.7f;
    const double dropped = 1 - sum / (scale * scale) / n;
    EXPECT_LE(std::fabs(dropped - p), bound) << "step " << step << ": dropped " << dropped;
    sums.push_back(sum);
  }
  EXPECT_NE(sums[0], sums[1]);
  EXPECT_NE(sums[1], sums[2]);
}

std::string norm_model(const std::string& type, const std::string& shape) {
  return R"({"name": "bn", "inputs": {"x": {"dtype": "f32", "shape": )" + shape +
         R"(}, "t": {"dtype": "f32", "shape": )" + shape + R"(}},
  "model": {"layers": {"bn": {"type": ")" + type + R"(", "num_features": 3}}},
  "loss": {"type": "mse", "targets": "t"},
  "train": {"batch_size": 4, "steps": 1, "optimizer": {"type": "sgd", "lr": 0.1}}})";
}

TEST(GradCheck, BatchNormTrainingMode) {
  for (auto [type, shape] : {std::pair{"BatchNorm1d", "[\"batch\", 3]"}, std::pair{"BatchNorm1d", "[\"batch\", 3, 2]"},
                             std::pair{"BatchNorm2d", "[\"batch\", 3, 2, 2]"}}) {
    SCOPED_TRACE(std::string(type) + " " + shape);
    auto model = ModelFile::parse(norm_model(type, shape), "bn.json");
    ASSERT_TRUE(model.ok()) << model.error().message;
    auto m = model->build(4);
    ASSERT_TRUE(m.ok());
    to_f64(*m->find("loss"));
    expect_gradients_match(*m, {"x", "bn.weight", "bn.bias"}, 1);
  }
}

// A fixed step fixes the mask: the gradient is the mask times 1/(1-p).
TEST(GradCheck, DropoutWithAFixedMask) {
  std::string text = kDropoutModel;
  text.replace(text.find("1000"), 4, "8");
  text.replace(text.find("1000"), 4, "8");
  auto model = ModelFile::parse(text, "drop.json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  auto m = model->build(4);
  ASSERT_TRUE(m.ok());
  expect_gradients_match(*m, {"x"}, 5);
}

}  // namespace
}  // namespace mlc
