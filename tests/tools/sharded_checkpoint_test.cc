// Sharded checkpoints of `mlc run --mesh` (driver/sharded_checkpoint.h,
// runtime/sharded_checkpoint.h) end to end, on digits_mlp: every rank writes
// its shard and rank 0 the index; a run resumed on the same mesh continues
// bit for bit; resumed on another mesh or on one device it continues within
// f32 rounding; a checkpoint with a missing index or a corrupt shard is
// skipped with a warning naming the file, never loaded in part.
//
// Tolerance of resharding. The resumed run starts from the checkpoint's exact
// state (assembled from the shards, bit for bit) and takes the same global
// batches; only the order of the batch sums differs (the all_reduce adds W
// per-rank parts, W = 2, 4 or 1), so each loss and gradient differs from the
// dp=2 run's by a few ulps, carried through SGD with momentum into later
// steps (tests/tools/mesh_run_test.cc measures the same 1 ulp from step 0).
// Measured here: the worst relative loss difference over the five resumed
// steps is 1.15e-7 on dp=4 and 1.13e-7 on one device (one ulp of an f32 loss
// of about 2), the worst parameter difference 3e-8 and 1.5e-8. The checks
// are 1e-6 relative (8 ulps) on losses and evaluation losses and 1e-6
// absolute on parameters (all of magnitude below 1), far below what a wrong
// assembly gives: with every tensor's chunks swapped, the next loss moves by
// 5e-2 and the parameters by 0.27.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "runtime/checkpoint.h"
#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using testing::run_mlc;
using testing::slurp;

constexpr double kLossRtol = 1e-6, kParamAtol = 1e-6;
constexpr const char* kModel = "run examples/digits_mlp.json --steps 10";

std::string scratch(const std::string& name) { return (testing::scratch_dir("mlc_sharded_ckpt") / name).string(); }

// The lines of a text file.
std::vector<std::string> lines(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(slurp(path));
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct Trained {
  std::string metrics, save, dir;  // files
  std::string err;
};

// `mlc run` of kModel with `flags`, its metrics, --save and checkpoints (every
// 5 steps) under scratch names starting with `name`; with `resume_from` (a
// checkpoint directory) it resumes from a copy of it.
Trained run(const std::string& name, const std::string& flags, const std::string& resume_from = "") {
  Trained r{scratch(name + ".jsonl"), scratch(name + ".safetensors"), scratch(name + "_ckpt"), ""};
  fs::remove(r.metrics);
  fs::remove_all(r.dir);
  if (!resume_from.empty()) fs::copy(resume_from, r.dir);
  testing::RunResult result = run_mlc(std::string(kModel) + " " + flags + " --metrics " + r.metrics +
                                      " --save " + r.save + " --checkpoint-dir " + r.dir + " --checkpoint-every 5" +
                                      (resume_from.empty() ? "" : " --resume"));
  EXPECT_EQ(result.status, 0) << flags << ":\n" << result.err;
  r.err = result.err;
  return r;
}

// The uninterrupted run of `flags`, once per test process.
const Trained& uninterrupted(const std::string& flags) {
  static std::map<std::string, Trained> runs;
  auto it = runs.find(flags);
  if (it == runs.end()) it = runs.emplace(flags, run("full_" + std::to_string(runs.size()), flags)).first;
  return it->second;
}

// A copy of `run`'s checkpoints as they were after step 5.
std::string checkpoint_of_step_5(const Trained& from, const std::string& name) {
  const std::string dir = scratch(name);
  fs::remove_all(dir);
  fs::copy(from.dir, dir);
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("step_00000005.", 0) != 0) fs::remove(e.path());
  EXPECT_TRUE(fs::exists(rt::checkpoint_index_path(dir, 5)) || fs::exists(rt::checkpoint_path(dir, 5)));
  return dir;
}

struct SameMesh {
  const char* name;
  const char* flags;
  int shard_files;  // per checkpoint: ranks that hold a first copy of something
};

class ShardedCheckpoint : public ::testing::TestWithParam<SameMesh> {};

// Resumed on the same mesh from step 5: steps 5..9, the evaluation and the
// final parameters are byte for byte the uninterrupted run's (the metrics'
// run records differ in their start step).
TEST_P(ShardedCheckpoint, SameMeshResumeIsBitIdentical) {
  const Trained& full = uninterrupted(GetParam().flags);
  for (int r = 0; r < 2; ++r)
    EXPECT_EQ(fs::exists(rt::checkpoint_shard_path(full.dir, 5, r)), r < GetParam().shard_files) << "rank " << r;
  EXPECT_FALSE(fs::exists(rt::checkpoint_path(full.dir, 5)));  // no whole checkpoint on a mesh
  const Trained resumed = run("same_mesh", GetParam().flags, checkpoint_of_step_5(full, "same_mesh_from"));
  EXPECT_NE(resumed.err.find("resuming at step 5 of"), std::string::npos) << resumed.err;
  const std::vector<std::string> want = lines(full.metrics), got = lines(resumed.metrics);
  ASSERT_EQ(want.size(), 12u);  // the run record, 10 steps and the evaluation
  ASSERT_EQ(got.size(), 7u);    // the resumed run's record, steps 5..9 and the evaluation
  EXPECT_NE(got[0].find("\"start_step\":5,"), std::string::npos) << got[0];
  EXPECT_EQ(std::vector<std::string>(got.begin() + 1, got.end()), std::vector<std::string>(want.begin() + 6, want.end()));
  EXPECT_EQ(slurp(resumed.save), slurp(full.save));
}

// ZeRO-3 shards parameters and state over both ranks; with ZeRO-0 both are
// replicated, so rank 0 alone writes them.
INSTANTIATE_TEST_SUITE_P(Dp2, ShardedCheckpoint,
                         ::testing::Values(SameMesh{"zero3", "--mesh dp=2 --zero 3", 2},
                                           SameMesh{"zero0", "--mesh dp=2 --zero 0", 1}),
                         [](const auto& info) { return std::string(info.param.name); });

std::string scientific(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", v);
  return text;
}

// The resumed run's steps 5..9, evaluation and parameters against `full`'s
// within the tolerances above; records the worst differences as properties
// named after `what`.
void expect_within_rounding(const Trained& resumed, const Trained& full, const std::string& what) {
  const testing::Metrics want = testing::read_metrics(full.metrics), got = testing::read_metrics(resumed.metrics);
  EXPECT_EQ(got.losses.size(), 5u);
  double worst = 0;
  for (size_t i = 0; i < got.losses.size() && i + 5 < want.losses.size(); ++i) {
    const double d = std::fabs(got.losses[i] - want.losses[i + 5]) / std::fabs(want.losses[i + 5]);
    worst = std::max(worst, d);
    EXPECT_LE(d, kLossRtol) << "step " << i + 5 << ": " << got.losses[i] << " vs " << want.losses[i + 5];
  }
  EXPECT_EQ(got.evals.size(), 1u);
  if (!got.evals.empty() && !want.evals.empty()) {
    const double a = got.evals[0]["loss"], b = want.evals.back()["loss"];
    EXPECT_LE(std::fabs(a - b) / b, kLossRtol);
    EXPECT_EQ(got.evals[0]["accuracy"], want.evals.back()["accuracy"]);
  }
  ::testing::Test::RecordProperty("max_relative_loss_difference_" + what, scientific(worst));
  auto p = rt::read_safetensors(resumed.save), q = rt::read_safetensors(full.save);
  ASSERT_TRUE(p.ok() && q.ok());
  double worst_param = 0;
  for (const rt::SafetensorsEntry& e : q->entries) {
    const rt::SafetensorsEntry* g = p->find(e.name);
    EXPECT_TRUE(g && g->tensor.type() == e.tensor.type()) << e.name;
    if (!g || g->tensor.type() != e.tensor.type()) continue;
    for (int64_t k = 0; k < e.tensor.num_elements(); ++k)
      worst_param = std::max(worst_param, std::fabs(double(g->tensor.data<float>()[k]) - e.tensor.data<float>()[k]));
  }
  EXPECT_LE(worst_param, kParamAtol);
  ::testing::Test::RecordProperty("max_parameter_difference_" + what, scientific(worst_param));
}

// The dp=2 ZeRO-3 checkpoint of step 5 resumed on dp=4 ZeRO-3 (every tensor
// cut into 4 chunks instead of 2) and on one device.
TEST(ShardedCheckpoint, ResumesOnAnotherMeshOrOneDevice) {
  const Trained& full = uninterrupted("--mesh dp=2 --zero 3");
  const std::string from = checkpoint_of_step_5(full, "reshard_from");
  for (const char* flags : {"--mesh dp=4 --zero 3", ""}) {
    SCOPED_TRACE(flags);
    const Trained resumed = run("reshard", flags, from);
    EXPECT_NE(resumed.err.find("resuming at step 5 of"), std::string::npos) << resumed.err;
    expect_within_rounding(resumed, full, *flags ? "dp4" : "one_device");
  }
  // The run on one device wrote a whole checkpoint next to the sharded ones.
  EXPECT_TRUE(fs::exists(rt::checkpoint_path(scratch("reshard_ckpt"), 10)));
  // --init takes the index too (the tensors, not the position): from step 5
  // on, the same run as --resume.
  const std::string init_save = scratch("init.safetensors");
  testing::RunResult r = run_mlc(std::string(kModel) + " --start-step 5 --init " + rt::checkpoint_index_path(from, 5) +
                                 " --save " + init_save);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(init_save), slurp(scratch("reshard.safetensors")));
}

// --eval --init and --init take mlc's own checkpoints, a whole one (one
// device) and a sharded one's index (a mesh): their parameters, with the
// optimizer state they hold left out where the run has no use for it
// (--eval) or another optimizer. --eval --init of the step-10 checkpoint
// prints what --eval --init of the run's --save prints (the same tensors).
TEST(ShardedCheckpoint, InitTakesACheckpointsParameters) {
  const std::string eval = "run examples/digits_mlp.json --eval --init ";
  for (const char* flags : {"", "--mesh dp=2 --zero 3"}) {
    SCOPED_TRACE(flags);
    const Trained& full = uninterrupted(flags);
    const std::string checkpoint =
        *flags ? rt::checkpoint_index_path(full.dir, 10) : rt::checkpoint_path(full.dir, 10);
    testing::RunResult want = run_mlc(eval + full.save), got = run_mlc(eval + checkpoint);
    ASSERT_EQ(want.status, 0) << want.err;
    ASSERT_EQ(got.status, 0) << got.err;
    EXPECT_EQ(got.out, want.out);
    // Adam has no use for SGD's momentum buffers: training starts from the
    // parameters with fresh optimizer state, as from --save's file.
    const std::string adam = scratch("digits_mlp_adam.json");
    std::string text = slurp("examples/digits_mlp.json");
    text.replace(text.find("\"sgd\", \"lr\": 0.1, \"momentum\": 0.9"), 33, "\"adam\", \"lr\": 0.001");
    std::ofstream(adam) << text;
    const std::string train = "run " + adam + " --data examples/data/digits.safetensors --steps 3 --init ";
    want = run_mlc(train + full.save);
    got = run_mlc(train + checkpoint);
    ASSERT_EQ(want.status, 0) << want.err;
    ASSERT_EQ(got.status, 0) << got.err;
    EXPECT_EQ(got.out.substr(0, got.out.find(", median")), want.out.substr(0, want.out.find(", median")));
  }
}

// A single device's whole checkpoint resumes on a mesh.
TEST(ShardedCheckpoint, AWholeCheckpointResumesOnAMesh) {
  const Trained& one = uninterrupted("");
  const Trained resumed = run("whole_on_mesh", "--mesh dp=2 --zero 3", checkpoint_of_step_5(one, "whole_from"));
  EXPECT_NE(resumed.err.find("resuming at step 5 of"), std::string::npos) << resumed.err;
  expect_within_rounding(resumed, one, "dp2");
}

// --resume picks the newest complete checkpoint: with step 10's index missing
// (its shards written, as when a run stops between the two) it warns, naming
// the index, and resumes from step 5. With step 5's rank-1 shard corrupt too,
// it warns naming the shard, and no checkpoint is left: the run fails instead
// of loading part of one; given to --init, that index is an error naming the
// shard.
TEST(ShardedCheckpoint, ResumeSkipsIncompleteCheckpoints) {
  const Trained& full = uninterrupted("--mesh dp=2 --zero 3");
  const std::string dir = scratch("incomplete");
  fs::remove_all(dir);
  fs::copy(full.dir, dir);
  ASSERT_TRUE(fs::exists(rt::checkpoint_index_path(dir, 10)));
  fs::remove(rt::checkpoint_index_path(dir, 10));
  // Resume from step 5 (10 steps again: 5 to run), skipping step 10's shards.
  const Trained resumed = run("skip_interrupted", "--mesh dp=2 --zero 3", dir);
  EXPECT_NE(resumed.err.find("warning: skipping checkpoint: " + rt::checkpoint_index_path(resumed.dir, 10) +
                             ": error: missing; the step's shards were written but not the index"),
            std::string::npos)
      << resumed.err;
  EXPECT_NE(resumed.err.find("resuming at step 5 of"), std::string::npos) << resumed.err;
  EXPECT_EQ(slurp(resumed.save), slurp(full.save));

  // Step 5's rank-1 shard with one byte flipped: no checkpoint verifies.
  const std::string shard = rt::checkpoint_shard_path(dir, 5, 1);
  std::string bytes = slurp(shard);
  bytes[bytes.size() - 1] ^= 0x20;
  std::ofstream(shard, std::ios::binary) << bytes;
  testing::RunResult r = run_mlc(std::string(kModel) + " --mesh dp=2 --zero 3 --resume --checkpoint-dir " + dir);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("warning: skipping checkpoint: " + shard + ": error: checkpoint shard is corrupt: tensor '"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(dir + ": error: no checkpoint in this directory verifies"), std::string::npos) << r.err;
  // Given explicitly (--init), the index with a corrupt shard is an error.
  r = run_mlc(std::string(kModel) + " --mesh dp=2 --zero 3 --init " + rt::checkpoint_index_path(dir, 5));
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, shard + ": error: checkpoint shard is corrupt: tensor 'fc2.bias.momentum_buffer' (chunk [1]) "
                          "does not match its checksum in " + rt::checkpoint_index_path(dir, 5) + "\n");
}

}  // namespace
}  // namespace mlc
