// `mlc plan --search` (driver/plan_search.h) and plan files (`-o plan.json`,
// `mlc run --plan`, driver/plan_file.h):
//  - the search lists runnable plans first, each with its step time, its
//    ranks' memory and why;
//  - what it predicts of a runnable plan's memory is what `mlc plan` predicts
//    of that plan (and so what `mlc run` measures: parallel_cli_test.cc,
//    pipeline_plan_test.cc), built at the model's depth or, for a repeat of
//    more than 2 blocks, extrapolated from shallow models;
//  - the best runnable plan for tiny_gpt on 4 devices runs from its plan
//    file and matches one device's losses;
//  - the memory cap drops plans; bad plan files are errors naming the field.
// No timing is asserted (bench/plan_rank_check.py compares predicted and
// measured step order).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/tools/run_mlc.h"

namespace {

using mlc::testing::RunResult;
using nlohmann::json;

RunResult mlc(const std::string& args) { return mlc::testing::run_mlc(args); }

json search(const std::string& model, int devices, const std::string& more = "") {
  RunResult r = mlc("plan " + model + " --search --devices " + std::to_string(devices) +
                    " --format json --top 100000 --gflops 100 " + more);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.status == 0 ? json::parse(r.out) : json();
}

// `mlc plan`'s own prediction of a plan's ranks: {parameters, optimizer
// state, arena, schedule buffers} per rank.
std::vector<std::array<int64_t, 4>> planned(const std::string& model, const json& plan) {
  const std::string mesh = plan["mesh"];
  std::string flags = " --mesh " + mesh;
  if (mesh.find("pp=") != std::string::npos)
    flags += " --microbatches " + std::to_string(plan["microbatches"].get<int>()) + " --schedule " +
             plan["schedule"].get<std::string>() + " --virtual-stages " +
             std::to_string(plan["virtual_stages"].get<int>());
  else
    flags += " --zero " + std::to_string(plan["zero"].get<int>());
  RunResult r = mlc("plan " + model + flags + " --format json");
  EXPECT_EQ(r.status, 0) << r.err;
  const json j = json::parse(r.out);
  std::vector<std::array<int64_t, 4>> ranks;
  if (j.contains("pipeline")) {
    for (const json& rank : j["pipeline"]["run_ranks"])
      ranks.push_back({rank["parameters"], rank["optimizer_state"], rank["train_step_arena"],
                       rank["schedule_buffers"]});
  } else {
    const json& d = j["parallel"]["per_device_bytes"];
    ranks.push_back({d["parameters"], d["optimizer_state"], d["train_step_arena"], 0});
  }
  return ranks;
}

// The search's prediction, in the same order.
std::vector<std::array<double, 4>> searched(const json& plan) {
  std::vector<std::array<double, 4>> ranks;
  for (const json& r : plan["ranks"])
    ranks.push_back({r["parameters"], r["optimizer_state"], r["train_step_arena"], r["schedule_buffers"]});
  return ranks;
}

TEST(PlanSearch, TinyGptOnFourDevicesRanksEveryPlan) {
  const json j = search("examples/tiny_gpt.json", 4);
  EXPECT_EQ(j["model"], "tiny_gpt");
  EXPECT_EQ(j["devices"], 4);
  EXPECT_EQ(j["extrapolated_copies"], 0);
  EXPECT_EQ(j["host"]["gemm_gflops"], 100.0);
  EXPECT_EQ(j["host"]["source"], "--gflops");
  EXPECT_GT(j["enumerated"].get<int>(), 50);
  EXPECT_TRUE(j["failed"].empty()) << j["failed"];
  bool runnable = true, saw_pipeline = false, saw_combined = false;
  double last = 0;
  for (const json& p : j["plans"]) {
    const std::string mesh = p["mesh"];
    const bool combined = mesh.find("pp=") != std::string::npos && mesh.find(',') != std::string::npos;
    EXPECT_TRUE(p["runnable"].get<bool>()) << p["plan"];  // pipelines beside dp and tp run too
    saw_pipeline |= mesh.find("pp=") != std::string::npos;
    saw_combined |= combined;
    // Runnable first, each group by predicted step time.
    if (p["runnable"] != runnable) {
      EXPECT_TRUE(runnable) << "a runnable plan after " << p["plan"];
      runnable = false;
      last = 0;
    }
    EXPECT_GE(p["step_ms"].get<double>(), last) << p["plan"];
    last = p["step_ms"];
    EXPECT_GT(p["step_ms"].get<double>(), 0) << p["plan"];
    EXPECT_FALSE(p["reason"].get<std::string>().empty()) << p["plan"];
    const size_t ranks = mesh.find("pp=4") != std::string::npos ? 4 : mesh.find("pp=2") != std::string::npos ? 2 : 1;
    EXPECT_EQ(p["ranks"].size(), ranks) << p["plan"];
  }
  EXPECT_TRUE(saw_pipeline);
  EXPECT_TRUE(saw_combined);
  // The text: a header, then the best plans with their memory per rank.
  RunResult text = mlc("plan examples/tiny_gpt.json --search --devices 4 --gflops 100 --top 3");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("plan search: tiny_gpt, batch 16, 4 devices, no memory cap\n"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("host: f32 GEMM 100.0 GFLOP/s"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("; runnable plans first\n"), std::string::npos) << text.out;
  EXPECT_EQ(mlc::testing::count(text.out, "      memory per rank: "), 3u) << text.out;
}

// A runnable plan's memory as the search predicts it is `mlc plan`'s for
// that plan (which is what `mlc run` measures): exactly, at the model's depth.
TEST(PlanSearch, RunnablePlansArePredictedAsMlcPlanPredictsThem) {
  const json j = search("examples/tiny_gpt.json", 2, "--runnable-only");
  int checked = 0;
  for (const json& p : j["plans"]) {
    if (p["sequence_parallel"] == true) continue;  // mlc plan takes it from the model file
    const auto want = planned("examples/tiny_gpt.json", p);
    const auto got = searched(p);
    ASSERT_EQ(got.size(), want.size()) << p["plan"];
    for (size_t r = 0; r < got.size(); ++r)
      for (size_t k = 0; k < 4; ++k)
        EXPECT_EQ(got[r][k], static_cast<double>(want[r][k])) << p["plan"] << " rank " << r << " figure " << k;
    ++checked;
  }
  EXPECT_GE(checked, 15);
}

// A repeat of 4 blocks is costed from models of 1, 2 and 4: every figure of
// a data-parallel step and a pipeline's tensors and buffers as at its own
// depth; the pipeline stages' arenas within 2%.
TEST(PlanSearch, IdenticalBlocksAreCostedFromShallowModels) {
  const std::string model = "tests/data/plan_search/tiny_gpt_deep.json";
  const json j = search(model, 2, "--runnable-only");
  EXPECT_EQ(j["extrapolated_copies"], 4);
  int flat = 0, piped = 0;
  for (const json& p : j["plans"]) {
    if (p["sequence_parallel"] == true) continue;
    const bool pipeline = p["mesh"].get<std::string>().find("pp=") != std::string::npos;
    if (pipeline && (p["microbatches"] != 4 || p["schedule"] == "gpipe")) continue;  // a sample
    const auto want = planned(model, p);
    const auto got = searched(p);
    ASSERT_EQ(got.size(), want.size()) << p["plan"];
    for (size_t r = 0; r < got.size(); ++r)
      for (size_t k = 0; k < 4; ++k) {
        const double w = static_cast<double>(want[r][k]);
        if (pipeline && k == 2)
          EXPECT_NEAR(got[r][k], w, 0.02 * w) << p["plan"] << " rank " << r << " arena";
        else
          EXPECT_EQ(got[r][k], w) << p["plan"] << " rank " << r << " figure " << k;
      }
    (pipeline ? piped : flat) += 1;
  }
  EXPECT_GE(flat, 4);
  EXPECT_GE(piped, 2);
}

TEST(PlanSearch, TheBestRunnablePlanRunsFromItsPlanFileAsOneDeviceDoes) {
  const auto dir = mlc::testing::scratch_dir("mlc_plan_search");
  const std::string plan = (dir / "plan.json").string();
  RunResult s = mlc("plan examples/tiny_gpt.json --search --devices 4 -o " + plan);
  ASSERT_EQ(s.status, 0) << s.err;
  EXPECT_NE(s.err.find("wrote the best runnable plan ("), std::string::npos) << s.err;
  const json written = json::parse(mlc::testing::slurp(plan));
  EXPECT_EQ(written["format"], "mlc-plan-1");
  EXPECT_EQ(written["model"], "tiny_gpt");
  EXPECT_EQ(written["devices"], 4);
  EXPECT_EQ(written["predicted"]["runnable"], true);
  const std::string one = (dir / "one.jsonl").string(), many = (dir / "plan.jsonl").string();
  RunResult a = mlc("run examples/tiny_gpt.json --steps 6 --metrics " + one);
  ASSERT_EQ(a.status, 0) << a.err;
  RunResult b = mlc("run examples/tiny_gpt.json --plan " + plan + " --steps 6 --metrics " + many);
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(mlc::testing::count(b.out, "memory of rank "), 4u) << b.out;
  const auto x = mlc::testing::read_metrics(one).losses, y = mlc::testing::read_metrics(many).losses;
  ASSERT_EQ(x.size(), 6u);
  ASSERT_EQ(y.size(), 6u);
  for (size_t k = 0; k < x.size(); ++k) EXPECT_LE(std::abs(y[k] - x[k]), 1e-5 * std::abs(x[k])) << "step " << k;
}

TEST(PlanSearch, TheMemoryCapDropsPlans) {
  const json all = search("examples/tiny_gpt.json", 2, "--runnable-only");
  double smallest = 1e30, largest = 0;
  for (const json& p : all["plans"]) {
    smallest = std::min(smallest, p["peak_bytes_per_rank"].get<double>());
    largest = std::max(largest, p["peak_bytes_per_rank"].get<double>());
  }
  ASSERT_LT(smallest, largest);
  const int64_t cap = static_cast<int64_t>((smallest + largest) / 2);
  const json capped = search("examples/tiny_gpt.json", 2, "--runnable-only --memory-cap " + std::to_string(cap));
  EXPECT_GT(capped["over_cap"].get<int>(), 0);
  EXPECT_EQ(capped["over_cap"].get<size_t>() + capped["plans"].size(), all["plans"].size());
  for (const json& p : capped["plans"]) EXPECT_LE(p["peak_bytes_per_rank"].get<double>(), cap) << p["plan"];
  RunResult none = mlc("plan examples/tiny_gpt.json --search --devices 2 --memory-cap 1KiB -o x.json");
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("error: no runnable plan fits 2 devices under the memory cap of 1.0 KiB: nothing "
                          "written to x.json"),
            std::string::npos)
      << none.err;
}

TEST(PlanSearch, BadPlanFilesAndFlagsAreErrors) {
  const auto dir = mlc::testing::scratch_dir("mlc_plan_search");
  auto plan_file = [&](const std::string& name, const std::string& text) {
    const std::string path = (dir / name).string();
    std::ofstream(path) << text;
    return path;
  };
  auto run_with = [&](const std::string& path) { return mlc("run examples/tiny_gpt.json --steps 1 --plan " + path); };
  const std::string head = R"({"format": "mlc-plan-1", "model": "tiny_gpt", )";
  struct Case {
    const char* name;
    std::string text, error;
  };
  for (const Case& c : {
           Case{"zero.json", head + R"("mesh": "dp=2", "zero": 5})",
                "error: 'zero': expected an integer from 0 to 3, got '5'"},
           Case{"field.json", head + R"("mesh": "dp=2", "meshes": 1})",
                "error: unknown field 'meshes'; a plan file has format, model, devices, mesh, zero, microbatches, "
                "schedule, virtual_stages, sequence_parallel, predicted"},
           Case{"axes.json", head + R"("mesh": "dp=2,cp=2"})",
                "error: 'mesh': axis 'cp' (context parallelism) is not implemented yet; supported axes: dp, ddp, fsdp "
                "(data), tp (tensor), pp (pipeline)"},
           Case{"schedule.json", head + R"("mesh": "pp=2", "schedule": "1f2b"})",
                "error: 'schedule': expected gpipe, 1f1b, interleaved or zb1p, got '\"1f2b\"'"},
           Case{"model.json", R"({"format": "mlc-plan-1", "model": "gpt2_tied", "mesh": "dp=2"})",
                "error: the plan is for model 'gpt2_tied', not 'tiny_gpt'"},
           Case{"mesh.json", head + R"("zero": 1})", "error: no 'mesh' field (\"\" for one device)"},
           Case{"format.json", R"({"mesh": "dp=2"})",
                "error: no 'format' field: not a plan file of mlc plan --search -o"},
           Case{"text.json", "dp=2", "error: not a plan file (JSON): "},
       }) {
    const std::string path = plan_file(c.name, c.text);
    RunResult r = run_with(path);
    EXPECT_EQ(r.status, 1) << c.name;
    EXPECT_EQ(r.err.rfind(path + ": " + c.error, 0), 0u) << c.name << ": " << r.err;
  }
  RunResult both = mlc("run examples/tiny_gpt.json --plan p.json --mesh dp=2");
  EXPECT_EQ(both.status, 2);
  EXPECT_EQ(both.err, "mlc: error: --plan gives the mesh, ZeRO stage and pipeline: leave out --mesh\n");
  RunResult devices = mlc("plan examples/tiny_gpt.json --search");
  EXPECT_EQ(devices.status, 2);
  EXPECT_EQ(devices.err, "mlc: error: --search needs --devices N, 1 to 4096 devices, got ''\n");
  RunResult alone = mlc("plan examples/tiny_gpt.json --devices 4");
  EXPECT_EQ(alone.status, 2);
  EXPECT_EQ(alone.err, "mlc: error: --devices goes with --search\n");
  RunResult cap = mlc("plan examples/tiny_gpt.json --search --devices 4 --memory-cap lots");
  EXPECT_EQ(cap.status, 2);
  EXPECT_EQ(cap.err, "mlc: error: --memory-cap takes bytes per rank, e.g. 1073741824, 512MiB or 16GiB, got 'lots'\n");
}

}  // namespace
