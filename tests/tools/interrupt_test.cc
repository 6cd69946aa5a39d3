// Ctrl-C during training (driver/interrupt.h): the run stops after the step
// it is in with a checkpoint of that step, and --resume from it continues bit
// for bit, on one device and on a mesh of local ranks (the ranks agree on the
// step). The request is made as the SIGINT handler makes it (request_stop);
// tests/tools/interrupt.sh sends a real SIGINT to `mlc run`.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>

#include "driver/interrupt.h"
#include "driver/train.h"
#include "frontends/model_file.h"
#include "ir/parallel_plan.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

struct InterruptedRun {
  std::vector<double> losses;
  std::optional<TrainSummary::Interrupted> interrupted;
};

// digits_mlp for `steps` steps on `mesh` (empty: one device); Ctrl-C in step `stop_in` (-1: never).
InterruptedRun train_digits(const std::string& mesh, int64_t steps, int64_t stop_in, const std::string& dir, bool resume) {
  static const ModelFile model = ModelFile::load("examples/digits_mlp.json").value();
  TrainOptions o;
  o.steps = steps;
  o.stop_on_interrupt = true;
  o.interrupt_dir = dir;
  if (resume) {
    o.checkpoint_dir = dir;
    o.resume = true;
  }
  if (!mesh.empty()) o.parallel = make_parallel_plan({Mesh::parse(mesh).value(), std::nullopt}, model.config().parallel);
  InterruptedRun r;
  std::mutex mutex;
  const int64_t ranks = std::max<int64_t>(1, o.parallel.mesh.num_devices());
  int calls = 0;
  o.on_step = [&](int64_t s, double loss) {
    std::lock_guard<std::mutex> lock(mutex);
    if (calls++ % ranks == 0) r.losses.push_back(loss);
    if (s == stop_in) request_stop();  // as the SIGINT handler does
  };
  clear_stop_request();
  auto summary = train(model, o);
  clear_stop_request();
  EXPECT_TRUE(summary.ok()) << summary.error().message;
  if (summary) r.interrupted = summary->interrupted;
  return r;
}

TEST(Interrupt, StopsAfterTheStepWithACheckpointThatResumesBitForBit) {
  for (const std::string mesh : {"", "dp=2"}) {
    const fs::path dir = testing::scratch_dir("mlc_interrupt") / (mesh.empty() ? "one" : "dp2");
    fs::remove_all(dir);
    const InterruptedRun whole = train_digits(mesh, 8, -1, dir.string(), false);
    ASSERT_FALSE(whole.interrupted);
    ASSERT_EQ(whole.losses.size(), 8u);
    const InterruptedRun first = train_digits(mesh, 8, 2, dir.string(), false);
    ASSERT_TRUE(first.interrupted) << mesh;
    EXPECT_EQ(first.interrupted->step, 3) << mesh;
    EXPECT_EQ(first.interrupted->dir, dir.string());
    EXPECT_TRUE(fs::exists(dir / (mesh.empty() ? "step_00000003.safetensors" : "step_00000003.index.json"))) << mesh;
    const InterruptedRun rest = train_digits(mesh, 8, -1, dir.string(), true);
    ASSERT_FALSE(rest.interrupted);
    std::vector<double> joined = first.losses;
    joined.insert(joined.end(), rest.losses.begin(), rest.losses.end());
    EXPECT_EQ(joined, whole.losses) << mesh;
  }
}

}  // namespace
}  // namespace mlc
