// `mlc run --save-best F [--best-metric loss|accuracy]`: the parameters of
// the evaluation that scored best, with its step, metric and value in the
// metadata; evaluating them gives that score again. Misuse is a usage error.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
using testing::RunResult;
using testing::run_mlc;

std::string metadata(const rt::SafetensorsFile& f, const std::string& key) {
  for (const auto& [k, v] : f.metadata)
    if (k == key) return v;
  return "";
}

TEST(SaveBest, KeepsTheParametersOfTheBestEvaluation) {
  const fs::path dir = testing::scratch_dir("mlc_best");
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const char* metric : {"accuracy", "loss"}) {
    const std::string best = (dir / (std::string(metric) + ".safetensors")).string();
    const std::string metrics = (dir / (std::string(metric) + ".jsonl")).string();
    RunResult r = run_mlc("run examples/digits_mlp.json --epochs 3 --eval-every 15 --metrics " + metrics +
                          " --save-best " + best + " --best-metric " + metric);
    ASSERT_EQ(r.status, 0) << r.err;
    // The best of the evaluations the metrics file records (the first of equals).
    std::vector<nlohmann::json> evals;  // {"epoch", "step", "eval": {...}} (docs/metrics.md)
    std::istringstream lines(testing::slurp(metrics));
    for (std::string line; std::getline(lines, line);)
      if (nlohmann::json j = nlohmann::json::parse(line); j.contains("eval")) evals.push_back(j);
    ASSERT_GE(evals.size(), 4u);
    const bool highest = std::string(metric) == "accuracy";
    int64_t best_step = 0;
    double best_value = 0;
    for (const nlohmann::json& e : evals) {
      const double v = e["eval"][metric];
      if (best_step == 0 || (highest ? v > best_value : v < best_value)) {
        best_value = v;
        best_step = e["step"];
      }
    }
    auto saved = rt::read_safetensors(best);
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    EXPECT_EQ(metadata(*saved, "step"), std::to_string(best_step)) << metric;
    EXPECT_EQ(metadata(*saved, "metric"), std::string("eval ") + metric);
    EXPECT_NE(r.out.find("best eval " + std::string(metric)), std::string::npos) << r.out;
    // Evaluated again: the same score.
    RunResult again = run_mlc("run examples/digits_mlp.json --eval --init " + best);
    ASSERT_EQ(again.status, 0) << again.err;
    char want[64];
    std::snprintf(want, sizeof want, highest ? "accuracy %.4f" : "loss %.6f", best_value);
    EXPECT_NE(again.out.find(want), std::string::npos) << want << " in " << again.out;
  }
}

TEST(SaveBest, MisuseIsAUsageError) {
  RunResult alone = run_mlc("run examples/digits_mlp.json --steps 1 --best-metric loss");
  EXPECT_EQ(alone.status, 2);
  EXPECT_EQ(alone.err, "mlc: error: --best-metric goes with --save-best PATH (where the best parameters go)\n");
  RunResult bad = run_mlc("run examples/digits_mlp.json --steps 1 --save-best b.safetensors --best-metric f1");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(bad.err, "mlc: error: --best-metric: expected loss or accuracy, got 'f1'\n");
}

}  // namespace
}  // namespace mlc
