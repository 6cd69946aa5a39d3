// The training loop's own behaviour (driver/train.h), beyond its numbers:
//  - diagnostics change nothing of the run: --dump-grads and gradient
//    statistics run @loss_grad on copies of the buffers it updates (BatchNorm's
//    running statistics and num_batches_tracked);
//  - a non-finite loss is explained on a model with Dropout (the replay gets
//    the step counter the train step got, and the parameters the step started
//    from, re-derived by training again from the start state);
//  - --resume with nothing to resume from is an error naming the directory;
//  - the console's epoch line is the epoch's mean loss, the metrics file's;
//  - steps of the loop allocate nothing (as the executor's runs do,
//    tests/compiler/executor_test.cc), with gradient accumulation too.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "frontends/model_file.h"
#include "runtime/tensor_stats.h"
#include "tests/counting_new.h"  // g_counting, g_allocations
#include "tests/tools/run_mlc.h"
#include "driver/train.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using testing::slurp;

std::string scratch(const std::string& name) {
  const fs::path dir = testing::scratch_dir("mlc_train_loop") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

ModelFile load(const std::string& path) {
  auto m = ModelFile::load(path);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

// `example` (a file of examples/) in `dir` with `from` replaced by `to`, its
// data beside it.
std::string edited_model(const std::string& example, const std::string& dir, const std::string& from,
                         const std::string& to) {
  std::string text = slurp("examples/" + example + ".json");
  text.replace(text.find(from), from.size(), to);
  text.replace(text.find("data/digits.safetensors"), 23, "digits.safetensors");
  std::ofstream(dir + "/model.json") << text;
  fs::copy_file("examples/data/digits.safetensors", dir + "/digits.safetensors", fs::copy_options::overwrite_existing);
  return dir + "/model.json";
}

// The digits CNN with BatchNorm2d, BatchNorm1d and Dropout: 10 steps saved
// with and without --dump-grads and gradient statistics are the same bytes
// (parameters and buffers: num_batches_tracked is 10, not 11), with the same
// losses.
TEST(TrainLoop, DumpGradsAndGradStatsChangeNothingOfTheRun) {
  ModelFile model = load("examples/digits_cnn_bn.json");
  auto trained = [&](const std::string& name, bool diagnose) {
    const std::string dir = scratch(name);
    TrainOptions o;
    o.steps = 10;
    o.save_path = dir + "/final.safetensors";
    o.metrics_path = dir + "/metrics.jsonl";
    if (diagnose) {
      o.dump_grads_path = dir + "/grads.safetensors";
      o.grad_stats_every = 3;
    }
    auto s = train(model, o);
    EXPECT_TRUE(s.ok()) << s.error().message;
    testing::Metrics m = testing::read_metrics(o.metrics_path);
    return std::pair{slurp(o.save_path), m.losses};
  };
  const auto plain = trained("plain", false), diagnosed = trained("diagnosed", true);
  ASSERT_EQ(plain.second.size(), 10u);
  EXPECT_EQ(plain.second, diagnosed.second);
  EXPECT_FALSE(plain.first.empty());
  EXPECT_TRUE(plain.first == diagnosed.first) << "the saved parameters and buffers differ";
}

// With Dropout in the model (@loss takes the step counter) a diverging run
// (Adam at lr 1e20) is explained down to the op, on both backends.
TEST(TrainLoop, NonFiniteLossWithDropoutNamesTheOp) {
  const std::string dir = scratch("dropout_nan");
  const std::string path = edited_model("digits_cnn_bn", dir, "\"lr\": 0.01", "\"lr\": 1e20");
  ModelFile model = load(path);
  for (Backend backend : {Backend::compiled, Backend::interp}) {
    TrainOptions o;
    o.backend = backend;
    auto result = train(model, o);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.error().message, path + ": error: step 1 (epoch 0): the loss is nan; the first non-finite "
                                             "value of the forward pass is the result of mul at " + path +
                                             ":10:14 (layer 'bn1')");
  }
}

TEST(TrainLoop, ResumeWithNothingToResumeFromIsAnError) {
  ModelFile model = load("examples/digits_mlp.json");
  const std::string dir = scratch("resume");
  TrainOptions o;
  o.steps = 2;
  o.resume = true;
  o.checkpoint_dir = dir + "/mistyped";
  auto r = train(model, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, o.checkpoint_dir + ": error: --resume: no such directory; --checkpoint-dir must "
                               "name the directory an earlier run wrote its checkpoints to (run without --resume "
                               "to start at step 0)");
  o.checkpoint_dir = dir;  // empty
  r = train(model, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, dir + ": error: --resume: no checkpoint in this directory (a run with "
                                     "--checkpoint-dir writes step_NNNNNNNN.safetensors, or "
                                     "step_NNNNNNNN.index.json on a mesh); run without --resume to start at step 0");
  std::ofstream(dir + "/file") << "x";
  o.checkpoint_dir = dir + "/file";
  r = train(model, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, o.checkpoint_dir + ": error: --resume: not a directory; --checkpoint-dir must name "
                               "the directory an earlier run wrote its checkpoints to");
}

// "epoch 1/3: mean loss X": X is the metrics file's epoch loss (the mean of
// the epoch's steps), not the last step's.
TEST(TrainLoop, EpochLineIsTheEpochsMeanLoss) {
  const std::string dir = scratch("epoch_line");
  testing::RunResult r = testing::run_mlc("run examples/digits_mlp.json --epochs 1 --metrics " + dir + "/m.jsonl");
  ASSERT_EQ(r.status, 0) << r.err;
  std::istringstream lines(slurp(dir + "/m.jsonl"));
  double mean = 0, last = 0;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("train")) mean = j["train"]["loss"];
    if (j.contains("step") && j.contains("loss")) last = j["loss"];
  }
  char want[64], last_step[64];
  std::snprintf(want, sizeof want, "epoch 1/1: mean loss %.5f  eval loss ", mean);
  std::snprintf(last_step, sizeof last_step, "epoch 1/1: mean loss %.5f  eval loss ", last);
  ASSERT_STRNE(want, last_step);  // the two would print differently
  EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
}

// Ten steps in the middle of an epoch (no evaluation, checkpoint or metrics
// file) allocate nothing: the batch buffers, the step counter and the bound
// arguments are made once, the state is updated in place; with gradient
// accumulation (K = 2, driver/step_schedule.h) too: the micro-batch buffers
// and gradient sums are made once.
void expect_steps_allocate_nothing(std::optional<int64_t> grad_accumulation_steps) {
  ModelFile model = load("examples/digits_mlp.json");
  TrainOptions o;
  o.steps = 20;
  o.grad_accumulation_steps = grad_accumulation_steps;
  int64_t counted = -1, tensors_at_4 = 0, tensors = -1;
  o.on_step = [&](int64_t step, double) {
    if (step == 4) {
      tensors_at_4 = rt::tensor_buffers_allocated();
      g_allocations = 0;
      g_counting = true;
    } else if (step == 14) {
      g_counting = false;
      counted = g_allocations.load();
      tensors = rt::tensor_buffers_allocated() - tensors_at_4;
    }
  };
  auto s = train(model, o);
  g_counting = false;
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(counted, 0) << "operator new calls";
  EXPECT_EQ(tensors, 0) << "tensor buffers";
}

TEST(TrainLoop, StepsAllocateNothing) { expect_steps_allocate_nothing(std::nullopt); }

TEST(TrainLoop, StepsWithGradientAccumulationAllocateNothing) { expect_steps_allocate_nothing(2); }

}  // namespace
}  // namespace mlc
