// Pipeline-parallel training (`mlc run --mesh pp=N`; passes/pipeline_split.h,
// driver/pipeline_step_schedule.h) on local ranks:
//  - a pipelined step is gradient accumulation over its micro-batches: per-step
//    losses and final parameters equal `--grad-accum m` on one device bit for
//    bit, on GPipe, 1F1B, interleaved 1F1B and ZB-H1, 2, 3 and 4 stages (the stages' programs add the
//    same f32 terms in the same order as the whole @loss_grad on tiny_gpt);
//  - against the single device without micro-batches: within 1e-5 relative
//    per step (issue's bound; f32 sums of the micro-batches' means);
//  - the stage programs' signatures and the rank's action list as calls;
//  - evaluation runs through the stages and equals one device's;
//  - a checkpoint written on pp=2 resumes on one device, one written on
//    pp=2,tp=2 on dp=2,pp=2 with ZeRO 1, and that one's on one device;
//  - what does not run yet is an error that says so;
// tied weights and global-norm clipping across stages: gpt2_tied against
// PyTorch in forward_oracle_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <mutex>

#include "frontends/model_file.h"
#include "ir/parallel_plan.h"
#include "runtime/safetensors.h"
#include "tests/tools/oracle_compare.h"
#include "tests/tools/run_mlc.h"
#include "driver/program.h"
#include "driver/train.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

struct TrainRun {
  std::vector<double> losses;
  std::string saved;  // the final parameters' file
  double eval_loss = 0;  // after the last step
  std::string error;
};

// tiny_gpt for `steps` steps: on one device with `accumulation` micro-batches
// (mesh empty), or on mesh `mesh` with `microbatches` on `schedule`.
TrainRun train_tiny_gpt(const std::string& name, const std::string& mesh, int microbatches, PipelineScheduleKind schedule,
                   int64_t accumulation = 1, int64_t steps = 6, const std::function<void(TrainOptions&)>& edit = {}) {
  static const ModelFile model = ModelFile::load("examples/tiny_gpt.json").value();
  const fs::path dir = testing::scratch_dir("mlc_pipeline") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  TrainOptions o;
  o.steps = steps;
  o.save_path = (dir / "final.safetensors").string();
  if (!mesh.empty()) {
    ParallelFlags flags{Mesh::parse(mesh).value(), std::nullopt, microbatches, schedule};
    o.parallel = make_parallel_plan(flags, model.config().parallel);
  }
  if (accumulation > 1) o.grad_accumulation_steps = accumulation;
  if (edit) edit(o);
  TrainRun r;
  // Every rank calls on_step: keep one rank's (all hold the last stage's loss).
  std::mutex mutex;
  int calls = 0;
  const int64_t ranks = std::max<int64_t>(1, o.parallel.mesh.num_devices());
  o.on_step = [&](int64_t, double loss) {
    std::lock_guard<std::mutex> lock(mutex);
    if (calls++ % ranks == 0) r.losses.push_back(loss);
  };
  auto summary = train(model, o);
  if (!summary) {
    r.error = summary.error().message;
    return r;
  }
  r.saved = testing::slurp(o.save_path);
  r.eval_loss = summary->eval_loss.value_or(-1);
  return r;
}

using K = PipelineScheduleKind;

TEST(PipelineTraining, AStepIsGradientAccumulationOverItsMicroBatchesBitForBit) {
  const TrainRun single = train_tiny_gpt("single", "", 0, K::gpipe);
  ASSERT_TRUE(single.error.empty()) << single.error;
  ASSERT_EQ(single.losses.size(), 6u);
  struct Case {
    const char* mesh;
    int m;
    K schedule;
  };
  for (const Case c : {Case{"pp=2", 4, K::one_f_one_b}, Case{"pp=2", 2, K::gpipe}, Case{"pp=3", 4, K::one_f_one_b}, Case{"pp=2", 4, K::zb1p}, Case{"pp=4", 4, K::zb1p},
                       Case{"pp=4", 8, K::gpipe}}) {
    const std::string what = std::string(c.mesh) + " m=" + std::to_string(c.m) + " " +
                             std::string(pipeline_schedule_kind_name(c.schedule));
    const TrainRun accumulated = train_tiny_gpt("accumulated", "", 0, K::gpipe, c.m);
    const TrainRun piped = train_tiny_gpt("piped", c.mesh, c.m, c.schedule);
    ASSERT_TRUE(accumulated.error.empty()) << accumulated.error;
    ASSERT_TRUE(piped.error.empty()) << what << ": " << piped.error;
    EXPECT_EQ(piped.losses, accumulated.losses) << what;
    EXPECT_TRUE(piped.saved == accumulated.saved) << what << ": final parameters differ";
    // Evaluation through the stages, of the same parameters.
    EXPECT_EQ(piped.eval_loss, accumulated.eval_loss) << what;
    for (size_t s = 0; s < single.losses.size(); ++s)
      EXPECT_LE(std::abs(piped.losses[s] - single.losses[s]), 1e-5 * std::abs(single.losses[s])) << what << " step " << s;
  }
  // Interleaved 1F1B: 2 ranks of 2 stages each (tiny_gpt's 3 cuts).
  const TrainRun accumulated = train_tiny_gpt("accumulated", "", 0, K::gpipe, 4);
  const TrainRun interleaved = train_tiny_gpt("interleaved", "pp=2", 4, K::interleaved, 1, 6,
                                              [](TrainOptions& o) { o.parallel.virtual_stages = 2; });
  ASSERT_TRUE(interleaved.error.empty()) << interleaved.error;
  EXPECT_EQ(interleaved.losses, accumulated.losses);
  EXPECT_TRUE(interleaved.saved == accumulated.saved);
}

TEST(PipelineTraining, ACheckpointOfAPipelineResumesOnOneDevice) {
  const fs::path dir = testing::scratch_dir("mlc_pipeline") / "checkpoints";
  fs::remove_all(dir);
  const TrainRun whole = train_tiny_gpt("whole", "", 0, K::gpipe, 4, 6);
  ASSERT_TRUE(whole.error.empty()) << whole.error;
  const TrainRun first = train_tiny_gpt("first", "pp=2", 4, K::one_f_one_b, 1, 3, [&](TrainOptions& o) {
    o.checkpoint_dir = dir.string();
  });
  ASSERT_TRUE(first.error.empty()) << first.error;
  const TrainRun rest = train_tiny_gpt("rest", "", 0, K::gpipe, 4, 6, [&](TrainOptions& o) {
    o.checkpoint_dir = dir.string();
    o.resume = true;
  });
  ASSERT_TRUE(rest.error.empty()) << rest.error;
  std::vector<double> joined = first.losses;
  joined.insert(joined.end(), rest.losses.begin(), rest.losses.end());
  EXPECT_EQ(joined, whole.losses);
  EXPECT_TRUE(rest.saved == whole.saved);
}

// Stages sharded beside pp: a checkpoint written on pp=2,tp=2 resumes on
// dp=2,pp=2 with ZeRO 1, whose checkpoint resumes on one device; the joined
// run is the uninterrupted one within f32 rounding of the reordered sums.
TEST(PipelineTraining, ACheckpointOfAShardedPipelineResumesOnOtherPlans) {
  const fs::path dir = testing::scratch_dir("mlc_pipeline") / "sharded_checkpoints";
  fs::remove_all(dir);
  const TrainRun whole = train_tiny_gpt("sharded_whole", "", 0, K::gpipe, 4, 6);
  ASSERT_TRUE(whole.error.empty()) << whole.error;
  auto resuming = [&](TrainOptions& o) {
    o.checkpoint_dir = dir.string();
    o.resume = true;
  };
  const TrainRun first = train_tiny_gpt("sharded_first", "pp=2,tp=2", 4, K::one_f_one_b, 1, 2,
                                        [&](TrainOptions& o) { o.checkpoint_dir = dir.string(); });
  ASSERT_TRUE(first.error.empty()) << first.error;
  const TrainRun middle = train_tiny_gpt("sharded_middle", "dp=2,pp=2", 2, K::gpipe, 1, 4, [&](TrainOptions& o) {
    resuming(o);
    o.parallel.zero = 1;
  });
  ASSERT_TRUE(middle.error.empty()) << middle.error;
  const TrainRun rest = train_tiny_gpt("sharded_rest", "", 0, K::gpipe, 4, 6, resuming);
  ASSERT_TRUE(rest.error.empty()) << rest.error;
  std::vector<double> joined = first.losses;
  joined.insert(joined.end(), middle.losses.begin(), middle.losses.end());
  joined.insert(joined.end(), rest.losses.begin(), rest.losses.end());
  ASSERT_EQ(joined.size(), whole.losses.size());
  for (size_t s = 0; s < joined.size(); ++s)
    EXPECT_LE(std::abs(joined[s] - whole.losses[s]), 1e-5 * std::abs(whole.losses[s])) << "step " << s;
  // The oracle tests' bound on final parameters: Adam divides by the root of
  // the squared gradients, so a rounding difference in a tiny gradient moves
  // its parameter by up to a step of lr (measured 1.4e-5 here).
  const fs::path runs = testing::scratch_dir("mlc_pipeline");
  oracle::expect_tensors((runs / "sharded_rest" / "final.safetensors").string(),
                         (runs / "sharded_whole" / "final.safetensors").string(), 1e-4);
}

TEST(PipelineTraining, WhatDoesNotRunYetIsAnError) {
  const TrainRun v = train_tiny_gpt("v", "pp=2", 4, K::interleaved);
  EXPECT_NE(v.error.find("parallel.pipeline.virtual_stages: interleaved needs at least 2 stages per rank, got 1"),
            std::string::npos)
      << v.error;
  const TrainRun odd = train_tiny_gpt("odd", "pp=2", 3, K::gpipe);
  EXPECT_NE(odd.error.find("parallel.pipeline.microbatches: the batch of 16 is not a multiple of 3 micro-batches"),
            std::string::npos)
      << odd.error;
  const TrainRun deep = train_tiny_gpt("deep", "pp=8", 8, K::gpipe);
  EXPECT_NE(deep.error.find("8 stages need 7 cuts, but the model's layers allow 3"), std::string::npos) << deep.error;
  const TrainRun accumulate = train_tiny_gpt("accumulate", "pp=2", 2, K::gpipe, 2);
  EXPECT_NE(accumulate.error.find("gradient accumulation is not supported on a mesh yet"),
            std::string::npos)
      << accumulate.error;
  testing::RunResult buffers = testing::run_mlc("run examples/batchnorm_mlp.json --mesh pp=2 --steps 1");
  EXPECT_EQ(buffers.status, 1);
  EXPECT_NE(buffers.err.find("error: pipeline: the forward updates buffer 'bn1.running_mean' (BatchNorm's running "
                             "statistics); pipeline stages do not carry buffer updates yet"),
            std::string::npos)
      << buffers.err;
}

// `mlc compile --mesh pp=2` stores every stage's functions and the schedule;
// the artifact trains as the model file does, bit for bit.
TEST(PipelineTraining, AnArtifactOfAPipelineTrainsAsTheModelFileDoes) {
  const fs::path dir = testing::scratch_dir("mlc_pipeline") / "artifact";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string artifact = (dir / "t.mlcx").string(), from_file = (dir / "file.jsonl").string(),
                    from_artifact = (dir / "artifact.jsonl").string();
  const std::string plan = " --mesh pp=2 --microbatches 4 --schedule zb1p";
  testing::RunResult compiled = testing::run_mlc("compile examples/tiny_gpt.json" + plan + " -o " + artifact);
  ASSERT_EQ(compiled.status, 0) << compiled.err;
  EXPECT_NE(compiled.out.find("on mesh pp=2"), std::string::npos) << compiled.out;
  testing::RunResult run = testing::run_mlc("run " + artifact + " --steps 6 --metrics " + from_artifact);
  ASSERT_EQ(run.status, 0) << run.err;
  testing::RunResult file = testing::run_mlc("run examples/tiny_gpt.json" + plan + " --steps 6 --metrics " + from_file);
  ASSERT_EQ(file.status, 0) << file.err;
  EXPECT_EQ(testing::slurp(from_artifact), testing::slurp(from_file));
  // The artifact's pipeline is its own: another schedule is refused.
  testing::RunResult other = testing::run_mlc("run " + artifact + " --mesh pp=4 --steps 1");
  EXPECT_EQ(other.status, 2);
  EXPECT_NE(other.err.find("was compiled for mesh pp=2"), std::string::npos) << other.err;
  testing::RunResult schedule = testing::run_mlc("run " + artifact + " --schedule gpipe --steps 1");
  EXPECT_EQ(schedule.status, 2);
  EXPECT_NE(schedule.err.find("--schedule gpipe: " + artifact + " was compiled for schedule zb1p"), std::string::npos)
      << schedule.err;
}

TEST(PipelineTraining, TheCommandLineRunsAPipeline) {
  testing::RunResult run = testing::run_mlc("run examples/tiny_gpt.json --mesh pp=2 --microbatches 4 --schedule gpipe --steps 2");
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("memory of rank 1"), std::string::npos) << run.out;
  // --profile: every rank's time by kind of call, and its measured bubble (no figures asserted).
  testing::RunResult profiled = testing::run_mlc("run examples/tiny_gpt.json --mesh pp=2 --steps 2 --profile");
  EXPECT_EQ(profiled.status, 0) << profiled.err;
  for (const char* line : {"pipeline: per rank, ms per step (2 steps); measured bubble = recv / (busy + recv)\n",
                           "\n  rank 0  forward ", "\n  rank 1  forward ", "  all ranks: bubble "})
    EXPECT_NE(profiled.err.find(line), std::string::npos) << line << profiled.err;
  testing::RunResult bad = testing::run_mlc("run examples/tiny_gpt.json --mesh pp=2 --schedule x --steps 1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("--schedule: expected gpipe, 1f1b, interleaved or zb1p, got 'x'"), std::string::npos);
}

}  // namespace
}  // namespace mlc
