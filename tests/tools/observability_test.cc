// Training observability (driver/train_metrics.h, driver/grad_stats.h): the
// metrics file's gradient statistics against the gradients PyTorch recorded
// (tests/data/oracle/<model>/grads_step0.safetensors), on the compiled path,
// the interpreter and a data-parallel mesh; statistics taken before clipping,
// at later steps too (tests/data/oracle/grad_stats, tests/oracle/grad_stats.py);
// train.eval_every's evaluations against an evaluation of the saved
// parameters; the epochs' mean loss; the run record.
//
// Tolerances. training_test holds the first step's gradients to PyTorch's
// within 1e-5 of the tensor's max |g| per element (oracle calibration). If
// every element is within d of the reference, then mean |g| and max |g| are
// within d, and the L2 norm within d * sqrt(n) (triangle inequality): those
// are the bounds here. A data-parallel mesh or the interpreter changes only
// the order of f32 sums (a few ulps, tests/tools/mesh_run_test.cc): 2e-6 of
// max |g| per element.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"
#include "driver/grad_stats.h"
#include "driver/train.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mlc_observability_test_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

ModelFile load_model(const std::string& path) {
  auto m = ModelFile::load(path);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

std::vector<Json> read_records(const std::string& path) {
  std::vector<Json> records;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) records.push_back(Json::parse(line));
  return records;
}

std::vector<Json> records_with(const std::vector<Json>& all, const char* key) {
  std::vector<Json> out;
  for (const Json& r : all)
    if (r.contains(key)) out.push_back(r);
  return out;
}

// Trains and returns the metrics file's records.
std::vector<Json> train_records(const ModelFile& model, TrainOptions o, const std::string& dir) {
  o.metrics_path = dir + "/metrics.jsonl";
  auto s = train(model, o);
  EXPECT_TRUE(s.ok()) << s.error().message;
  return read_records(o.metrics_path);
}

// `got` (a grads record's "grads") against the statistics of `want`'s
// tensors, each within `per_element` times the tensor's max |g| (see the header).
void expect_stats(const Json& got, const std::map<std::string, GradStats>& want, double per_element) {
  ASSERT_EQ(got.size(), want.size());
  for (const Json& layer : got) {
    const std::string name = layer["name"];
    ASSERT_TRUE(want.count(name)) << name;
    const GradStats& w = want.at(name);
    const double d = per_element * w.max_abs;
    EXPECT_EQ(layer["elements"].get<int64_t>(), w.elements) << name;
    EXPECT_NEAR(layer["mean_abs"].get<double>(), w.mean_abs, d) << name;
    EXPECT_NEAR(layer["max_abs"].get<double>(), w.max_abs, d) << name;
    EXPECT_NEAR(layer["norm"].get<double>(), w.norm, d * std::sqrt(static_cast<double>(w.elements))) << name;
  }
}

std::map<std::string, GradStats> stats_of_file(const std::string& path) {
  auto file = rt::read_safetensors(path);
  EXPECT_TRUE(file.ok()) << path;
  std::map<std::string, GradStats> out;
  for (const rt::SafetensorsEntry& e : file->entries) out[e.name] = grad_stats(e.name, e.tensor);
  return out;
}

std::map<std::string, GradStats> stats_of_record(const Json& grads) {
  std::map<std::string, GradStats> out;
  for (const Json& l : grads)
    out[l["name"]] = GradStats{l["name"], l["mean_abs"], l["max_abs"], l["norm"], l["elements"]};
  return out;
}

TEST(GradStats, OfAKnownTensor) {
  rt::Tensor g(DType::f32, {4});
  const float values[] = {3, -4, 0, 1};
  std::copy(values, values + 4, g.data<float>());
  GradStats s = grad_stats("w", g);
  EXPECT_EQ(s.name, "w");
  EXPECT_EQ(s.elements, 4);
  EXPECT_DOUBLE_EQ(s.mean_abs, 2.0);
  EXPECT_DOUBLE_EQ(s.max_abs, 4.0);
  EXPECT_DOUBLE_EQ(s.norm, std::sqrt(26.0));
  g.data<float>()[2] = std::nanf("");
  s = grad_stats("w", g);
  EXPECT_TRUE(std::isnan(s.mean_abs) && std::isnan(s.max_abs) && std::isnan(s.norm));
}

struct Case {
  const char* model;
  Backend backend;
};

class GradStatsOracle : public ::testing::TestWithParam<Case> {};

// Step 0 from PyTorch's initial weights: the statistics of the gradients
// PyTorch recorded; every grad_stats_every-th step after it is recorded too.
TEST_P(GradStatsOracle, FirstStepMatchesPyTorchsGradients) {
  const Case& c = GetParam();
  const std::string ref = std::string("tests/data/oracle/") + c.model;
  ModelFile model = load_model(std::string("examples/") + c.model + ".json");
  TrainOptions o;
  o.init_path = ref + "/init.safetensors";
  o.backend = c.backend;
  o.steps = 7;
  o.grad_stats_every = 3;
  const std::vector<Json> grads = records_with(train_records(model, o, temp_dir(c.model)), "grads");
  ASSERT_EQ(grads.size(), 3u);  // steps 0, 3, 6
  for (size_t k = 0; k < 3; ++k) EXPECT_EQ(grads[k]["step"], 3 * k);
  expect_stats(grads[0]["grads"], stats_of_file(ref + "/grads_step0.safetensors"), 1e-5);
  // In the model's parameter order, as plot_grad_flow's named_parameters().
  EXPECT_EQ(grads[0]["grads"][0]["name"], std::string(c.model) == "digits_cnn" ? "conv1.weight" : "fc1.weight");
}

INSTANTIATE_TEST_SUITE_P(Models, GradStatsOracle,
                         ::testing::Values(Case{"digits_mlp", Backend::compiled}, Case{"digits_mlp", Backend::interp},
                                           Case{"digits_cnn", Backend::compiled}, Case{"digits_cnn", Backend::interp}),
                         [](const auto& info) {
                           return std::string(info.param.model) +
                                  (info.param.backend == Backend::interp ? "_interp" : "_compiled");
                         });

// With clip_grad_norm far below the gradient's norm, the statistics are
// still those of the unclipped gradient: recorded after backward, before
// clipping (PyTorch's plot_grad_flow between loss.backward() and
// clip_grad_norm_).
TEST(GradStats, AreTakenBeforeClipping) {
  const std::string dir = temp_dir("clip"), ref = "tests/data/oracle/digits_mlp";
  nlohmann::ordered_json file;  // the layers' order is the model's
  std::ifstream("examples/digits_mlp.json") >> file;
  file["train"]["clip_grad_norm"] = 0.01;
  file["data"]["file"] = fs::absolute("examples/data/digits.safetensors").string();
  std::ofstream(dir + "/clipped.json") << file.dump(1);
  ModelFile model = load_model(dir + "/clipped.json");
  TrainOptions o;
  o.init_path = ref + "/init.safetensors";
  o.steps = 1;
  o.grad_stats_every = 1;
  const std::vector<Json> grads = records_with(train_records(model, o, dir), "grads");
  ASSERT_EQ(grads.size(), 1u);
  const auto want = stats_of_file(ref + "/grads_step0.safetensors");
  expect_stats(grads[0]["grads"], want, 1e-5);
  double total = 0;
  for (const auto& [name, s] : want) total += s.norm * s.norm;
  EXPECT_GT(std::sqrt(total), 10 * 0.01);  // clipping would have scaled them down
}

// Later steps, with clipping that changes every update: PyTorch's
// statistics taken between backward and clip_grad_norm_ (recorded by
// tests/oracle/grad_stats.py) at steps 0, 5, .., 25, and its losses. The
// runs agree to 2.2e-7 relative on the losses and 8.5e-7 of max |g| on the
// statistics (measured, both backends); held to training_test's 1e-5.
TEST(GradStats, MatchPyTorchBeforeClippingAtLaterSteps) {
  const std::string dir = temp_dir("clip_later");
  const Json ref = [] {
    Json j;
    std::ifstream("tests/data/oracle/grad_stats/digits_cnn_clip.json") >> j;
    return j;
  }();
  nlohmann::ordered_json file;
  std::ifstream("examples/digits_cnn.json") >> file;
  file["train"].erase("epochs");
  file["train"]["steps"] = 30;
  file["train"]["clip_grad_norm"] = ref["clip_grad_norm"];
  file["train"]["grad_stats_every"] = ref["every"];
  file["data"]["file"] = fs::absolute("examples/data/digits.safetensors").string();
  std::ofstream(dir + "/clip.json") << file.dump(1);
  ModelFile model = load_model(dir + "/clip.json");
  for (Backend backend : {Backend::compiled, Backend::interp}) {
    SCOPED_TRACE(backend == Backend::interp ? "interp" : "compiled");
    TrainOptions o;
    o.init_path = "tests/data/oracle/digits_cnn/init.safetensors";
    o.backend = backend;
    const std::vector<Json> records = train_records(model, o, dir);
    const std::vector<Json> steps = records_with(records, "loss"), grads = records_with(records, "grads");
    ASSERT_EQ(steps.size(), ref["losses"].size());
    for (size_t s = 0; s < steps.size(); ++s)
      EXPECT_NEAR(steps[s]["loss"].get<double>(), ref["losses"][s].get<double>(),
                  1e-5 * ref["losses"][s].get<double>()) << "step " << s;
    ASSERT_EQ(grads.size(), ref["records"].size());
    for (size_t k = 0; k < grads.size(); ++k) {
      EXPECT_EQ(grads[k]["step"], ref["records"][k]["step"]);
      EXPECT_GT(ref["records"][k]["total_norm"].get<double>(), ref["clip_grad_norm"].get<double>());
      expect_stats(grads[k]["grads"], stats_of_record(ref["records"][k]["grads"]), 1e-5);
    }
  }
}

// On a data-parallel mesh (ranks as threads), with ZeRO 0 and 3: the
// statistics of the whole, reduced gradient, as one device's, at every
// recorded step (the runs stay within f32 rounding of each other).
TEST(GradStats, OnADataParallelMeshAreOneDevices) {
  ModelFile model = load_model("examples/digits_cnn.json");
  TrainOptions o;
  o.init_path = "tests/data/oracle/digits_cnn/init.safetensors";
  o.steps = 5;
  o.grad_stats_every = 2;
  const std::vector<Json> one = records_with(train_records(model, o, temp_dir("one")), "grads");
  ASSERT_EQ(one.size(), 3u);
  for (int zero : {0, 3}) {
    TrainOptions m = o;
    m.parallel.mesh = *Mesh::parse("dp=2");
    m.parallel.zero = zero;
    const std::vector<Json> dp = records_with(train_records(model, m, temp_dir("dp2_zero" + std::to_string(zero))), "grads");
    ASSERT_EQ(dp.size(), one.size()) << "zero " << zero;
    for (size_t k = 0; k < one.size(); ++k) {
      EXPECT_EQ(dp[k]["step"], one[k]["step"]);
      SCOPED_TRACE("zero " + std::to_string(zero) + ", step " + dp[k]["step"].dump());
      expect_stats(dp[k]["grads"], stats_of_record(one[k]["grads"]), 2e-6);
    }
  }
}

// eval_every: an evaluation after every N steps (and at the end), each the
// evaluation of the parameters after that many steps, with its counts.
TEST(EvalEvery, EvaluatesTheParametersAfterThatManySteps) {
  const std::string dir = temp_dir("eval_every");
  ModelFile model = load_model("examples/digits_cnn.json");
  TrainOptions o;
  o.steps = 10;
  o.eval_every = 4;
  const std::vector<Json> evals = records_with(train_records(model, o, dir), "eval");
  ASSERT_EQ(evals.size(), 3u);  // after 4, 8 and 10 (the run's end) steps
  EXPECT_EQ(evals[0]["step"], 4);
  EXPECT_EQ(evals[1]["step"], 8);
  EXPECT_EQ(evals[2]["step"], 10);
  for (const Json& e : evals) {
    EXPECT_EQ(e["epoch"], 0);
    EXPECT_EQ(e["eval"]["examples"], 357);
    EXPECT_EQ(e["eval"]["positions"], 357);
    EXPECT_DOUBLE_EQ(e["eval"]["accuracy"].get<double>(), e["eval"]["correct"].get<double>() / 357.0);
  }
  // The parameters after 4 steps, saved by a run of 4 steps, evaluated alone.
  TrainOptions four;
  four.steps = 4;
  four.save_path = dir + "/four.safetensors";
  ASSERT_TRUE(train(model, four).ok());
  const Program program = Program::from_model(model, Backend::compiled);
  auto params = rt::load_parameters(model.config().params, four.save_path);
  ASSERT_TRUE(params.ok()) << params.error().message;
  auto data = rt::read_safetensors("examples/data/digits.safetensors");
  ASSERT_TRUE(data.ok());
  auto split = rt::Split::load(*data, model.config().data.eval, model.config().inputs, "eval");
  ASSERT_TRUE(split.ok());
  auto alone = evaluate(program, *split, *params, 357);
  ASSERT_TRUE(alone.ok()) << alone.error().message;
  EXPECT_DOUBLE_EQ(evals[0]["eval"]["loss"].get<double>(), alone->loss);
  EXPECT_EQ(evals[0]["eval"]["correct"].get<int64_t>(), alone->correct);
}

// The epochs' mean loss: one record per completed epoch, the mean of its
// step records; a partial last epoch (--steps) has none.
TEST(EpochLoss, IsTheMeanOfEachCompletedEpochsSteps) {
  ModelFile model = load_model("examples/digits_mlp.json");
  TrainOptions o;
  o.steps = 100;  // 45 steps per epoch: epochs 0 and 1 complete, 2 partial
  const std::vector<Json> records = train_records(model, o, temp_dir("epochs"));
  std::map<int64_t, std::vector<double>> losses;
  for (const Json& r : records_with(records, "loss")) losses[r["epoch"]].push_back(r["loss"]);
  const std::vector<Json> epochs = records_with(records, "train");
  ASSERT_EQ(epochs.size(), 2u);
  for (int64_t e = 0; e < 2; ++e) {
    EXPECT_EQ(epochs[e]["epoch"], e);
    EXPECT_EQ(epochs[e]["train"]["steps"], 45);
    double sum = 0;
    for (double l : losses[e]) sum += l;
    EXPECT_DOUBLE_EQ(epochs[e]["train"]["loss"].get<double>(), sum / 45);
  }
  // The run record comes first and states the run.
  ASSERT_TRUE(records.front().contains("run"));
  const Json& run = records.front()["run"];
  EXPECT_EQ(run["model"], "digits_mlp");
  EXPECT_EQ(run["steps_per_epoch"], 45);
  EXPECT_EQ(run["total_steps"], 100);
  EXPECT_EQ(run["grad_stats_every"], 0);
}

// A run resumed in the middle of epoch 0 (from step 30's checkpoint), with
// other settings (50 steps instead of 30): its run record follows the first,
// and the epoch's record is the mean of all 45 of its steps, the 30 the
// metrics file kept from the first run included, in step order.
TEST(EpochLoss, OfAResumedEpochCountsEveryStepOfIt) {
  const std::string dir = temp_dir("epoch_resume");
  ModelFile model = load_model("examples/digits_mlp.json");
  TrainOptions o;
  o.metrics_path = dir + "/metrics.jsonl";
  o.checkpoint_dir = dir + "/ckpt";
  o.steps = 30;
  ASSERT_TRUE(train(model, o).ok());
  o.steps = 50;
  o.resume = true;
  ASSERT_TRUE(train(model, o).ok());
  const std::vector<Json> records = read_records(o.metrics_path);
  ASSERT_EQ(records_with(records, "run").size(), 2u);
  EXPECT_EQ(records_with(records, "run")[1]["run"]["start_step"], 30);
  const std::vector<Json> epochs = records_with(records, "train");
  ASSERT_EQ(epochs.size(), 1u);
  EXPECT_EQ(epochs[0]["train"]["steps"], 45);
  double sum = 0;
  for (const Json& r : records_with(records, "loss"))
    if (r["step"] < 45) sum += r["loss"].get<double>();
  EXPECT_EQ(epochs[0]["train"]["loss"].get<double>(), sum / 45);
}

// The settings travel in an artifact (`mlc compile`), whose mesh version
// then holds the sharded @loss_grad: the run of a dp=2 artifact records what
// the model file's run on one device does. An artifact for a mesh compiled
// without the setting says what to do.
TEST(Observability, ArtifactsKeepTheSettings) {
  const std::string dir = temp_dir("artifact");
  nlohmann::ordered_json file;
  std::ifstream("examples/digits_cnn.json") >> file;
  file["train"].erase("epochs");
  file["train"]["steps"] = 6;
  file["train"]["eval_every"] = 4;
  file["train"]["grad_stats_every"] = 3;
  file["data"]["file"] = fs::absolute("examples/data/digits.safetensors").string();
  std::ofstream(dir + "/m.json") << file.dump(1);
  const std::string init = " --init tests/data/oracle/digits_cnn/init.safetensors --metrics ";
  auto r = testing::run_mlc("run " + dir + "/m.json" + init + dir + "/one.jsonl");
  ASSERT_EQ(r.status, 0) << r.err;
  r = testing::run_mlc("compile " + dir + "/m.json --mesh dp=2 -o " + dir + "/m.mlcx");
  ASSERT_EQ(r.status, 0) << r.err;
  r = testing::run_mlc("run " + dir + "/m.mlcx" + init + dir + "/dp2.jsonl");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<Json> one = read_records(dir + "/one.jsonl"), dp = read_records(dir + "/dp2.jsonl");
  const std::vector<Json> one_grads = records_with(one, "grads"), dp_grads = records_with(dp, "grads");
  ASSERT_EQ(one_grads.size(), 2u);  // steps 0 and 3
  ASSERT_EQ(dp_grads.size(), 2u);
  for (size_t k = 0; k < 2; ++k) expect_stats(dp_grads[k]["grads"], stats_of_record(one_grads[k]["grads"]), 2e-6);
  EXPECT_EQ(records_with(dp, "eval").size(), 2u);  // after 4 and 6 steps
  EXPECT_EQ(records_with(dp, "run")[0]["run"]["mesh"], "dp=2");

  r = testing::run_mlc("compile examples/digits_cnn.json --mesh dp=2 -o " + dir + "/plain.mlcx");
  ASSERT_EQ(r.status, 0) << r.err;
  r = testing::run_mlc("run " + dir + "/plain.mlcx --steps 1 --grad-stats-every 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "rank 0: " + dir + "/plain.mlcx: error: the artifact has no sharded @loss_grad, which gradient "
                   "statistics need; an artifact for a mesh holds it when the model file sets \"grad_stats_every\" in "
                   "\"train\": compile the model with it set (mlc compile MODEL.json --mesh dp=2), or run the model "
                   "file\n");
}


// A model file without an eval split evaluates its training data, and says so
// wherever the evaluation is reported: the console, the summary, the metrics
// file's eval records ("split": "train"), --eval, and an artifact's runs. With
// an eval split the words stay "eval" and the records say "split": "eval".
TEST(EvalWithoutEvalSplit, IsLabelledTrainingData) {
  const std::string dir = temp_dir("no_eval_split");
  const std::string label = "eval (training data, no eval split)";
  auto r = testing::run_mlc("run examples/legendre.json --steps 2 --metrics " + dir + "/m.jsonl");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("  " + label + " loss "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("eval loss"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("; " + label + " loss "), std::string::npos) << r.out;
  const std::vector<Json> evals = records_with(read_records(dir + "/m.jsonl"), "eval");
  ASSERT_FALSE(evals.empty());
  for (const Json& e : evals) EXPECT_EQ(e["eval"]["split"], "train") << e.dump();

  r = testing::run_mlc("run examples/legendre.json --eval --init seed --metrics " + dir + "/e.jsonl");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind(label + ": loss ", 0), 0u) << r.out;
  EXPECT_EQ(read_records(dir + "/e.jsonl").back()["eval"]["split"], "train");

  r = testing::run_mlc("compile examples/legendre.json -o " + dir + "/l.mlcx");
  ASSERT_EQ(r.status, 0) << r.err;
  r = testing::run_mlc("run " + dir + "/l.mlcx --steps 1");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("; " + label + " loss "), std::string::npos) << r.out;

  r = testing::run_mlc("run examples/digits_mlp.json --steps 2 --eval-every 1 --metrics " + dir + "/d.jsonl");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("step 1/2: eval loss "), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("training data"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("; eval loss "), std::string::npos) << r.out;
  for (const Json& e : records_with(read_records(dir + "/d.jsonl"), "eval")) EXPECT_EQ(e["eval"]["split"], "eval");
}

}  // namespace
}  // namespace mlc
