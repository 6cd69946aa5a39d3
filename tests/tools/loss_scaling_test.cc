// Dynamic loss scaling (torch.cuda.amp.GradScaler's semantics,
// passes/loss_scaling.h) on the digits MLP in f16 with Adam, observed through
// the checkpoint of every step: the first steps overflow (a scale of 2^24
// makes f16 gradients inf) and are skipped, each halving the scale and leaving
// parameters and optimizer state bit for bit as they were; after
// growth_interval = 3 good steps in a row the scale doubles. The scaler's
// state is checkpointed, so a resumed run is bit-identical to an
// uninterrupted one. (PyTorch 1.13 has no GradScaler on CPU, so the oracle is
// the rule itself, checked on every step.)
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <optional>

#include "runtime/checkpoint.h"
#include "runtime/safetensors.h"
#include "driver/train.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

const std::string kModel = "tests/data/oracle/mixed_precision/digits_mlp_f16.json";
constexpr int64_t kSteps = 14;

std::string temp_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("mlc_loss_scaling_test_" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

// Trains kSteps steps (from `resume_dir`'s newest checkpoint when set),
// writing a checkpoint after every step into `dir`.
void train_steps(const std::string& dir, int64_t steps, bool resume = false) {
  auto model = ModelFile::load(kModel);
  ASSERT_TRUE(model.ok()) << model.error().message;
  TrainOptions o;
  o.init_path = "tests/data/oracle/digits_mlp/init.safetensors";
  o.steps = steps;
  o.checkpoint_dir = dir;
  o.checkpoint_every = 1;
  o.keep_checkpoints = 100;
  o.resume = resume;
  auto s = train(*model, o);
  ASSERT_TRUE(s.ok()) << s.error().message;
}

struct Snapshot {
  rt::SafetensorsFile file;
  const rt::Tensor& get(const std::string& name) const { return **file.get(name); }
  float scale() const { return get("grad_scaler.scale").data<float>()[0]; }
  int64_t tracker() const { return get("grad_scaler.growth_tracker").data<int64_t>()[0]; }
  int64_t skipped() const { return get("grad_scaler.skipped").data<int64_t>()[0]; }
};

Snapshot at(const std::string& dir, int64_t step) {
  auto f = rt::read_safetensors(rt::checkpoint_path(dir, step));
  EXPECT_TRUE(f.ok()) << f.error().message;
  return Snapshot{std::move(f).value()};
}

bool same_bytes(const rt::Tensor& a, const rt::Tensor& b) {
  return a.type() == b.type() && std::memcmp(a.bytes(), b.bytes(), a.num_bytes()) == 0;
}

TEST(LossScaling, OverflowSkipsTheStepAndHalvesTheScaleGoodStepsGrowIt) {
  const std::string dir = temp_dir("run");
  train_steps(dir, kSteps);
  float scale = 16777216.0f;  // init_scale
  int64_t tracker = 0, skipped = 0, skips = 0, growths = 0;
  std::optional<Snapshot> before;
  for (int64_t step = 1; step <= kSteps; ++step) {
    Snapshot now = at(dir, step);
    const bool skip = now.scale() == scale * 0.5f;
    if (step == 1) EXPECT_TRUE(skip) << "2^24 times the loss overflows f16";
    if (skip) {
      ++skips;
      EXPECT_EQ(now.tracker(), 0) << "step " << step;
      EXPECT_EQ(now.skipped(), skipped + 1) << "step " << step;
      if (before)  // nothing else moved: parameters and Adam's moments
        for (const rt::SafetensorsEntry& e : before->file.entries)
          if (e.name.rfind("grad_scaler.", 0) != 0)
            EXPECT_TRUE(same_bytes(e.tensor, now.get(e.name))) << e.name << " changed in skipped step " << step;
    } else {
      EXPECT_EQ(now.skipped(), skipped) << "step " << step;
      const bool grow = tracker + 1 == 3;
      growths += grow;
      EXPECT_EQ(now.scale(), grow ? scale * 2 : scale) << "step " << step;
      EXPECT_EQ(now.tracker(), grow ? 0 : tracker + 1) << "step " << step;
      if (before) EXPECT_FALSE(same_bytes(before->get("fc1.weight"), now.get("fc1.weight"))) << "step " << step;
    }
    scale = now.scale();
    tracker = now.tracker();
    skipped = now.skipped();
    before.emplace(std::move(now));
  }
  EXPECT_GE(skips, 2);
  EXPECT_GE(growths, 1);
  EXPECT_LT(skips, kSteps);
}

TEST(LossScaling, ResumeIsBitIdentical) {
  const std::string whole = temp_dir("whole"), split = temp_dir("split");
  train_steps(whole, kSteps);
  train_steps(split, kSteps / 2);
  train_steps(split, kSteps, /*resume=*/true);
  Snapshot a = at(whole, kSteps), b = at(split, kSteps);
  ASSERT_EQ(a.file.entries.size(), b.file.entries.size());
  for (const rt::SafetensorsEntry& e : a.file.entries)
    EXPECT_TRUE(same_bytes(e.tensor, b.get(e.name))) << e.name;
}

}  // namespace
}  // namespace mlc
