// `mlc plan --mesh pp=N`: the pipeline's stages, schedule, bubble and stashed
// activations (driver/plan_pipeline.h), and what each rank of `mlc run --mesh
// pp=N` holds, predicted exactly (driver/plan_pipeline_memory.h).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/tools/run_mlc.h"

namespace {

using mlc::testing::RunResult;

RunResult mlc(const std::string& args) { return mlc::testing::run_mlc(args); }

bool has(const std::string& out, const std::string& line) { return out.find(line) != std::string::npos; }

TEST(PipelinePlan, TinyGptOnTwoStages) {
  RunResult r = mlc("plan examples/tiny_gpt.json --mesh pp=2 --microbatches 4");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "  pipeline            p=2 ranks, v=1 stages per rank: 2 stages; m=4 micro-batches of 4; 1f1b\n"))
      << r.out;
  EXPECT_TRUE(has(r.out, "    runs with mlc run --mesh pp=N, whose stages recompute their forward"));
  EXPECT_TRUE(has(r.out, "activations 739.3 KiB per micro-batch: tok_emb, pos_emb, layers.0\n")) << r.out;
  EXPECT_TRUE(has(r.out, "per micro-batch: layers.1, norm, head, loss\n"));
  EXPECT_TRUE(has(r.out, "    cut 0|1 before layers.1: 32.0 KiB per micro-batch\n      f32[4,32,64] add in layers.0, 32.0 KiB\n"));
  EXPECT_TRUE(has(r.out, "      1f1b p=2 m=4 v=1 (F=1 B=2) x stage 0:1, 1:1\n"));
  EXPECT_TRUE(has(r.out, "      rank 0 | F0.0 F0.1 "));
  EXPECT_TRUE(has(r.out, "    bubble            0.2500 simulated, textbook (p-1)/m = 0.2500\n"));
  EXPECT_TRUE(has(r.out, "    rank 0            stashes at most 2 micro-batches x 739.3 KiB = 1.44 MiB of activations\n"));
  // The same as JSON.
  RunResult j = mlc("plan examples/tiny_gpt.json --mesh pp=2 --microbatches 4 --schedule gpipe --format json");
  ASSERT_EQ(j.status, 0) << j.err;
  auto p = nlohmann::json::parse(j.out)["pipeline"];
  EXPECT_EQ(p["implemented"], true);
  EXPECT_EQ(p["schedule"], "gpipe");
  EXPECT_EQ(p["stage_plan"].size(), 2u);
  EXPECT_EQ(p["ranks_memory"][0]["peak_stashed_microbatches"], 4);
  EXPECT_EQ(p["bubble"]["formula"], "(p-1)/m");
}

struct PipelineCase {
  const char* model;
  int ranks, microbatches;
  const char* schedule;
  int virtual_stages;
  // Axes beside pp ("dp=2", "tp=2", "dp=2,tp=2": placed before pp) and the ZeRO stage.
  const char* beside = "";
  int zero = 0;
};

class PredictedPipelineMemory : public ::testing::TestWithParam<PipelineCase> {};

// Every rank's parameters, optimizer state, train-step arena and schedule
// buffers as `mlc plan` predicts them are what `mlc run` measures, exactly:
// with axes beside pp, every rank of a pipeline rank's stages (they hold
// equal shares) measures that pipeline rank's prediction.
TEST_P(PredictedPipelineMemory, EveryRankMeasuresWhatThePlanPredicts) {
  const PipelineCase& c = GetParam();
  const std::string beside = c.beside;
  const std::string mesh = (beside.empty() ? "" : beside + ",") + "pp=" + std::to_string(c.ranks);
  const std::string flags = std::string("examples/") + c.model + ".json --mesh " + mesh + " --zero " +
                            std::to_string(c.zero) + " --microbatches " + std::to_string(c.microbatches) +
                            " --schedule " + c.schedule + " --virtual-stages " + std::to_string(c.virtual_stages);
  RunResult plan = mlc("plan " + flags + " --format json");
  ASSERT_EQ(plan.status, 0) << plan.err;
  const auto predicted = nlohmann::json::parse(plan.out)["pipeline"]["run_ranks"];
  RunResult run = mlc("run " + flags + " --steps 1");
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<mlc::testing::MeasuredMemory> measured = mlc::testing::measured_memory(run.out);
  ASSERT_EQ(predicted.size(), static_cast<size_t>(c.ranks));
  // pp is the last axis: world rank w is pipeline rank w % ranks.
  ASSERT_EQ(measured.size() % static_cast<size_t>(c.ranks), 0u) << run.out;
  ASSERT_GE(measured.size(), static_cast<size_t>(c.ranks)) << run.out;
  for (size_t w = 0; w < measured.size(); ++w) {
    const auto& p = predicted[w % static_cast<size_t>(c.ranks)];
    EXPECT_EQ(measured[w].parameters, p["parameters"].get<int64_t>()) << "rank " << w;
    EXPECT_EQ(measured[w].optimizer_state, p["optimizer_state"].get<int64_t>()) << "rank " << w;
    EXPECT_EQ(measured[w].arena, p["train_step_arena"].get<int64_t>()) << "rank " << w;
    EXPECT_EQ(measured[w].schedule_buffers, p["schedule_buffers"].get<int64_t>()) << "rank " << w;
    // Recomputation keeps the received activations of every micro-batch.
    if (w % static_cast<size_t>(c.ranks) > 0)
      EXPECT_GT(p["schedule_buffers_by_kind"]["received_activations"].get<int64_t>(), 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, PredictedPipelineMemory,
                         ::testing::Values(PipelineCase{"tiny_gpt", 2, 4, "1f1b", 1},
                                           PipelineCase{"tiny_gpt", 2, 2, "gpipe", 1},
                                           PipelineCase{"tiny_gpt", 2, 4, "zb1p", 1},
                                           PipelineCase{"tiny_gpt", 2, 4, "interleaved", 2},
                                           PipelineCase{"tiny_gpt", 4, 4, "1f1b", 1},
                                           PipelineCase{"tiny_gpt", 4, 8, "gpipe", 1},
                                           PipelineCase{"tiny_gpt", 4, 4, "zb1p", 1},
                                           PipelineCase{"gpt2_tied", 2, 4, "1f1b", 1},
                                           PipelineCase{"tiny_gpt", 2, 4, "1f1b", 1, "tp=2"},
                                           PipelineCase{"tiny_gpt", 2, 2, "1f1b", 1, "dp=2", 1},
                                           PipelineCase{"gpt8", 2, 2, "zb1p", 1, "dp=2", 3},
                                           PipelineCase{"gpt8", 2, 2, "1f1b", 1, "dp=2,tp=2", 1},
                                           PipelineCase{"tiny_gpt", 2, 2, "interleaved", 2, "dp=2,tp=2", 3}),
                         [](const auto& info) {
                           std::string beside = info.param.beside;
                           for (char& ch : beside)
                             if (ch == '=' || ch == ',') ch = '_';
                           return std::string(info.param.model) + (beside.empty() ? "" : "_" + beside) + "_pp" +
                                  std::to_string(info.param.ranks) + "_m" + std::to_string(info.param.microbatches) +
                                  "_" + info.param.schedule + "_zero" + std::to_string(info.param.zero);
                         });

TEST(PipelinePlan, Errors) {
  RunResult m = mlc("plan examples/tiny_gpt.json --mesh pp=2 --microbatches 3");
  EXPECT_EQ(m.status, 1);
  EXPECT_EQ(m.err, "parallel.pipeline.microbatches: the batch of 16 is not a multiple of 3 micro-batches\n");
  RunResult s = mlc("plan examples/tiny_gpt.json --mesh pp=2 --schedule x");
  EXPECT_EQ(s.status, 2);
  EXPECT_EQ(s.err, "mlc: error: --schedule: expected gpipe, 1f1b, interleaved or zb1p, got 'x'\n");
  RunResult alone = mlc("plan examples/tiny_gpt.json --microbatches 4");
  EXPECT_EQ(alone.status, 1);
}

}  // namespace
