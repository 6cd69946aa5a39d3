// Files in the way of a run, end to end (`mlc` as a user runs it): FIFOs
// given as inputs are refused at once instead of blocking in open(); a kernel
// cache entry that is a FIFO or a link to /dev/zero is a miss; links planted
// at temporary names never redirect a write; a killed run's temporary
// checkpoint files are removed when the next run starts, and only those; the
// metrics file holds every step as it is trained, and a resumed run's file
// equals an uninterrupted run's. Every `mlc` runs under `timeout 30`, so a
// relapse into a blocking open fails (status 124) instead of hanging.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/tools/run_mlc.h"

namespace {

namespace fs = std::filesystem;

using mlc::testing::RunResult;
using mlc::testing::slurp;

fs::path temp_dir(const std::string& name) {
  fs::path dir = mlc::testing::scratch_dir("mlc_hostile_files_test") / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

RunResult mlc(const std::string& args) { return mlc::testing::run_mlc(args, "timeout 30"); }

std::string fifo_at(const fs::path& path) {
  EXPECT_EQ(::mkfifo(path.c_str(), 0600), 0);
  return path.string();
}

TEST(HostileFiles, FifosGivenAsInputsAreRefusedAtOnce) {
  const fs::path dir = temp_dir("fifos");
  const std::string fifo = fifo_at(dir / "in.safetensors");
  const std::string refused = fifo + ": error: not a regular file (a FIFO)";
  RunResult r = mlc("run examples/digits_mlp.json --steps 1 --data " + fifo);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(refused), std::string::npos) << "--data: " << r.err;
  r = mlc("run examples/digits_mlp.json --steps 1 --init " + fifo);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(refused), std::string::npos) << "--init: " << r.err;
  r = mlc("report " + fifo + " -o " + (dir / "r.html").string());
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(refused), std::string::npos) << "mlc report: " << r.err;
  r = mlc("run " + fifo_at(dir / "m.mlcx") + " --steps 1");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find((dir / "m.mlcx").string() + ": error: not a regular file (a FIFO)"), std::string::npos)
      << "an artifact: " << r.err;

  // A FIFO among the checkpoints to resume from: skipped with a warning, and
  // the run resumes from the newest one that verifies.
  const fs::path ckpt = dir / "ckpt";
  r = mlc("run examples/digits_mlp.json --steps 2 --checkpoint-dir " + ckpt.string());
  ASSERT_EQ(r.status, 0) << r.err;
  fifo_at(ckpt / "step_00000009.safetensors");
  r = mlc("run examples/digits_mlp.json --steps 3 --resume --checkpoint-dir " + ckpt.string());
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: skipping checkpoint: " + (ckpt / "step_00000009.safetensors").string() +
                       ": error: not a regular file (a FIFO)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("resuming at step 2 of 3"), std::string::npos) << r.err;
}

TEST(HostileFiles, ABadKernelCacheEntryIsAMissNeverAHang) {
  const fs::path dir = temp_dir("cache");
  const std::string cache = "MLC_CACHE_DIR=" + (dir / "kernels").string();
  RunResult clean = mlc::testing::run_mlc("run examples/digits_mlp.json --steps 3", cache + " timeout 60");
  ASSERT_EQ(clean.status, 0) << clean.err;
  int replaced = 0;
  for (const auto& entry : fs::directory_iterator(dir / "kernels")) {
    fs::remove(entry.path());
    if (replaced++ % 2 == 0) fifo_at(entry.path());
    else fs::create_symlink("/dev/zero", entry.path());
  }
  ASSERT_GT(replaced, 1);
  RunResult r = mlc::testing::run_mlc("run examples/digits_mlp.json --steps 3", cache + " timeout 60");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find("median")), clean.out.substr(0, clean.out.find("median")));
  for (const auto& entry : fs::directory_iterator(dir / "kernels"))
    EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(entry.path()))) << entry.path() << " was not replaced";
}

// The probe planted a link at "<path>.tmp.<pid>" for every plausible pid;
// here at this run's own names: the pid of the `mlc` the shell execs. The
// file they point at must survive --save, checkpoints and `mlc compile -o`.
// (tests/runtime/file_io_test.cc plants them as another user.)
TEST(HostileFiles, LinksPlantedAtTemporaryNamesDoNotRedirectWrites) {
  const fs::path dir = temp_dir("links");
  fs::permissions(dir, fs::perms::all);  // a directory others may write, not sticky
  const std::string victim = (dir / "victim").string();
  std::ofstream(victim) << "precious";
  // `exec` keeps the shell's pid, which the planting shell knows as $$.
  const std::string plant = "for f in final.safetensors step_00000002.safetensors m.mlcx; do ln -s " + victim + " " +
                            dir.string() + "/$f.tmp.$$; done; exec";
  RunResult r = mlc::testing::run_mlc("run examples/digits_mlp.json --steps 2 --save " + (dir / "final.safetensors").string() +
                                          " --checkpoint-dir " + dir.string(),
                                      plant);
  ASSERT_EQ(r.status, 0) << r.err;
  r = mlc::testing::run_mlc("compile examples/digits_mlp.json -o " + (dir / "m.mlcx").string(), plant);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(slurp(victim), "precious");
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "final.safetensors")));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "step_00000002.safetensors")));
  EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(dir / "m.mlcx")));
}

// The probe killed runs while they wrote checkpoints: 7 of 10 kills left a
// "step_N.safetensors.tmp.PID" behind.
TEST(HostileFiles, AKilledRunsTemporaryCheckpointFilesAreRemovedAndOnlyThose) {
  const fs::path dir = temp_dir("stale");
  // The pid of a process that has ended.
  pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ASSERT_GT(dead, 0);
  ::waitpid(dead, nullptr, 0);
  const std::string d = std::to_string(dead), live = std::to_string(::getpid());
  const std::vector<std::string> stale = {"step_00000045.safetensors.tmp." + d,
                                          "step_00000045.safetensors.tmp." + d + ".0123456789ab",
                                          "step_00000045.rank00001.safetensors.tmp." + d + ".ba9876543210",
                                          "step_00000045.index.json.tmp." + d + ".00000000ffff"};
  const std::vector<std::string> kept = {"step_00000045.safetensors.tmp." + live + ".0123456789ab",  // a live writer
                                         "notes.txt.tmp." + d,                          // not a checkpoint's
                                         "step_00000045.safetensors.tmp." + d + ".zz",  // not mlc's name
                                         "data.tmp"};
  for (const auto& names : {stale, kept})
    for (const std::string& name : names) std::ofstream(dir / name) << "partial";
  RunResult r = mlc("run examples/digits_mlp.json --steps 2 --checkpoint-dir " + dir.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("note: removed 4 temporary files that interrupted checkpoint writes left in " + dir.string()),
            std::string::npos)
      << r.err;
  for (const std::string& name : stale) EXPECT_FALSE(fs::exists(dir / name)) << name;
  for (const std::string& name : kept) EXPECT_TRUE(fs::exists(dir / name)) << name;
}

// Step records reach the file as each step is trained: a run killed before
// its first evaluation has them (before, they waited in a buffer for it).
TEST(HostileFiles, TheMetricsFileHoldsEveryStepAsItIsTrained) {
  const fs::path dir = temp_dir("metrics_kill");
  const std::string metrics = (dir / "m.jsonl").string();
  // Wait until the file has 3 step records, then kill -9; tiny_gpt's first
  // evaluation is at its epoch's end, hundreds of steps later.
  const std::string script = "sh -c \"" + std::string(MLC_BINARY_DIR) +
                             "/bin/mlc run examples/tiny_gpt.json --steps 100000 --metrics " + metrics +
                             " >/dev/null 2>&1 & pid=\\$!; i=0; while [ \\$i -lt 3000 ]; do n=\\$(grep -c loss " +
                             metrics + " 2>/dev/null || true); [ \\${n:-0} -ge 3 ] && break; sleep 0.01; " +
                             "i=\\$((i+1)); done; kill -9 \\$pid; wait \\$pid 2>/dev/null; true\"";
  ASSERT_EQ(std::system(script.c_str()), 0);
  const std::string text = slurp(metrics);
  EXPECT_GE(mlc::testing::count(text, "\"loss\""), 3u) << text;
  EXPECT_EQ(mlc::testing::count(text, "\"eval\""), 0u) << "the steps were written before any evaluation";
}

// A run killed after its checkpoint at step 20 had written steps up to 37
// (and half a record): resumed, the file is an uninterrupted run's, byte for
// byte, the mean of the epoch it resumed in included.
TEST(HostileFiles, AResumedRunsMetricsEqualAnUninterruptedRuns) {
  const fs::path dir = temp_dir("metrics_resume");
  const std::string flags = "run examples/digits_mlp.json --steps 50 --eval-every 10 --checkpoint-every 20";
  RunResult whole = mlc(flags + " --metrics " + (dir / "whole.jsonl").string() + " --checkpoint-dir " +
                        (dir / "ckpt_whole").string());
  ASSERT_EQ(whole.status, 0) << whole.err;
  const std::string uninterrupted = slurp((dir / "whole.jsonl").string());

  // The killed run: the same flags, killed after step 37, so its newest
  // checkpoint is step 20's and its file ends in a cut record.
  const fs::path ckpt = dir / "ckpt";
  fs::copy(dir / "ckpt_whole", ckpt);
  fs::remove(ckpt / "step_00000040.safetensors");
  fs::remove(ckpt / "step_00000050.safetensors");
  std::ofstream(dir / "m.jsonl", std::ios::trunc)
      << uninterrupted.substr(0, uninterrupted.find("{\"step\":38,")) << "{\"step\":38,\"ep";
  RunResult resumed = mlc(flags + " --resume --metrics " + (dir / "m.jsonl").string() + " --checkpoint-dir " +
                          ckpt.string());
  ASSERT_EQ(resumed.status, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("resuming at step 20 of 50"), std::string::npos) << resumed.err;
  EXPECT_EQ(slurp((dir / "m.jsonl").string()), uninterrupted);
}

}  // namespace
