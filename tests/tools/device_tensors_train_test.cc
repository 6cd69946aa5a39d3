// The training driver's syncs with kept tensors (runtime/device_tensors.h):
// a run whose parameters and optimizer state live in a second copy of host
// memory (Device::shadow_host_tensors, what a GPU's memory is to the host)
// equals the run on the host tensors bit for bit: the losses, the
// evaluations, the gradient statistics (@loss_grad's copies of the state it
// updates), the checkpoints, the saved parameters and a resumed run. A driver
// path that reads the host tensors without Rank::to_host, or writes them
// without host_wrote, reads the copies' poison (0xA5 bytes) or trains on
// stale values, and differs here. Gradient accumulation and a data-parallel
// mesh whose evaluation has a remainder (gathered on the host) are covered
// too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "driver/train.h"
#include "frontends/model_file.h"
#include "runtime/checkpoint.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

std::string temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mlc_device_tensors_test_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The metrics file without its timings (lines with "ms" differ run to run).
std::string metrics_without_times(const std::string& path) {
  std::ifstream in(path);
  std::string out;
  for (std::string line; std::getline(in, line);)
    if (line.find("\"ms\"") == std::string::npos && line.find("_ms\"") == std::string::npos) out += line + "\n";
  return out;
}

struct TrainedRun {
  std::string metrics, params, checkpoint;
};

TrainedRun train_in(const ModelFile& model, TrainOptions o, const std::string& dir) {
  o.metrics_path = dir + "/metrics.jsonl";
  o.save_path = dir + "/final.safetensors";
  if (o.checkpoint_dir.empty()) o.checkpoint_dir = dir + "/ckpt";
  auto s = train(model, o);
  EXPECT_TRUE(s.ok()) << s.error().message;
  TrainedRun r{metrics_without_times(o.metrics_path), file_bytes(o.save_path), ""};
  for (const std::string& c : rt::list_checkpoints(o.checkpoint_dir)) r.checkpoint += file_bytes(c);
  return r;
}

ModelFile load(const std::string& example) {
  auto m = ModelFile::load(std::string(MLC_SOURCE_DIR) + "/examples/" + example);
  EXPECT_TRUE(m.ok()) << m.error().message;
  return std::move(m).value();
}

void expect_same(const ModelFile& model, TrainOptions o, const std::string& name) {
  const TrainedRun host = train_in(model, o, temp_dir(name + "_host"));
  o.device.shadow_host_tensors = true;
  const TrainedRun kept = train_in(model, o, temp_dir(name + "_kept"));
  EXPECT_FALSE(host.metrics.empty());
  EXPECT_EQ(kept.metrics, host.metrics);
  EXPECT_FALSE(host.params.empty());
  EXPECT_TRUE(kept.params == host.params) << "the saved parameters differ";
  EXPECT_TRUE(kept.checkpoint == host.checkpoint) << "the checkpoints differ";
}

// BatchNorm's running statistics are state that @loss_grad updates (on copies).
TEST(DeviceTensorsTraining, BatchNormWithEvalsGradStatsAndCheckpoints) {
  const ModelFile model = load("batchnorm_mlp.json");
  TrainOptions o;
  o.steps = 6;
  o.eval_every = 2;
  o.grad_stats_every = 2;
  o.checkpoint_every = 3;
  expect_same(model, o, "batchnorm");
}

TEST(DeviceTensorsTraining, GradientAccumulation) {
  const ModelFile model = load("digits_mlp.json");
  TrainOptions o;
  o.steps = 4;
  o.grad_accumulation_steps = 2;
  expect_same(model, o, "accumulation");
}

// The resumed run's start state is written by the host (read from the
// checkpoint before the tensors are kept), then trained on the copies. The
// straight run is on the host tensors: were the checkpoint or the save not
// synced, the resumed run's stale parameters could not equal it.
TEST(DeviceTensorsTraining, ResumeEqualsTheStraightRun) {
  const ModelFile model = load("digits_mlp.json");
  TrainOptions o;
  o.steps = 4;
  const TrainedRun straight = train_in(model, o, temp_dir("straight"));
  o.device.shadow_host_tensors = true;
  const std::string checkpoints = temp_dir("resumed") + "/ckpt";
  TrainOptions first = o;
  first.steps = 2;
  first.checkpoint_dir = checkpoints;
  train_in(model, first, temp_dir("first"));
  TrainOptions second = o;
  second.resume = true;
  second.checkpoint_dir = checkpoints;
  const TrainedRun resumed = train_in(model, second, temp_dir("second"));
  EXPECT_FALSE(straight.params.empty());
  EXPECT_TRUE(resumed.params == straight.params);
}

// Ranks as threads, each with its own copies. The validation split's 357
// examples do not split over 2 ranks: the last one is evaluated by the
// unsharded @eval on parameters gathered on the host (Evaluator's remainder).
TEST(DeviceTensorsTraining, DataParallelMesh) {
  const ModelFile model = load("digits_mlp.json");
  TrainOptions o;
  o.steps = 3;
  o.eval_every = 1;
  o.parallel.mesh = *Mesh::parse("dp=2");
  expect_same(model, o, "mesh");
}

// A mesh on cuda is one process per GPU: ranks as threads are refused before
// anything is compiled (no driver is needed to say so).
TEST(DeviceTensorsTraining, ACudaMeshNeedsAProcessPerRank) {
  const ModelFile model = load("digits_mlp.json");
  TrainOptions o;
  o.steps = 1;
  o.device.target = rt::kCudaTarget;
  o.device.arch = "sm_90";
  o.parallel.mesh = *Mesh::parse("dp=2");
  auto s = train(model, o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().message.find("error: --device cuda on mesh dp=2: each rank needs a GPU and a process of its "
                                   "own; start one process per rank with mpirun or srun (mpirun -np 2 mlc run ...)"),
            std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace mlc
