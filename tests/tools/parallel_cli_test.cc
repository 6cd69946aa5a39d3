// `mlc ir --mesh` and `mlc plan --mesh`: the sharded program and its
// accounting from the command line, the memory `mlc plan` predicts against
// what each rank of `mlc run` measures, and their usage errors.
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "tests/tools/run_mlc.h"

namespace {

using mlc::testing::RunResult;

RunResult mlc(const std::string& args) { return mlc::testing::run_mlc(args); }

using mlc::testing::count;

TEST(ParallelCli, IrWithAMeshPrintsEachDevicesProgram) {
  RunResult r = mlc("ir examples/digits_mlp.json --mesh dp=2");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("module @digits_mlp attributes {mesh = \"dp=2\"}"), std::string::npos);
  EXPECT_NE(r.out.find("func @train_step(%x: f32[16,1,8,8]<S(0)> {input}"), std::string::npos) << r.out;
  // @train_step: one all_reduce per gradient (4) and of the loss; @loss_grad the
  // same; @eval the loss sum and the correct count.
  EXPECT_EQ(count(r.out, "= all_reduce("), 12u);
  RunResult again = mlc("ir examples/digits_mlp.json --mesh dp=2 --after sharding");
  EXPECT_EQ(again.out, r.out);
}

TEST(ParallelCli, PlanReportsPlacementsMemoryCommunicationAndTheLedger) {
  RunResult r = mlc("plan examples/digits_mlp.json --mesh dp=2 --zero 1 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["devices"], 2);
  const auto& p = j["parallel"];
  EXPECT_EQ(p["mesh"], "dp=2");
  EXPECT_EQ(p["zero"], 1);
  // ZeRO-1: the momentum buffers are sharded, the parameters replicated.
  int sharded_state = 0;
  for (const auto& a : p["placements"]) {
    if (a["kind"] == "state") {
      sharded_state += a["placements"] == "<S(0)>";
    } else if (a["kind"] == "param") {
      EXPECT_EQ(a["placements"], "<R>");
    }
  }
  EXPECT_EQ(sharded_state, 4);
  EXPECT_EQ(p["per_device_bytes"]["optimizer_state"], (128 * 64 + 128 + 10 * 128 + 10) * 4 / 2);
  // 4 reduce_scatters and 4 all_gathers of 9610 floats moving half each, and
  // the loss; the ledger also lists the free local slices (shard_slice) of
  // replicated constants that meet the sharded batch.
  int communicating = 0;
  nlohmann::json first;
  for (const auto& e : p["ledger"])
    if (e["collective"] != "shard_slice") {
      if (communicating++ == 0) first = e;
    } else {
      EXPECT_EQ(e["bytes"], 0);
    }
  EXPECT_EQ(communicating, 9);
  EXPECT_EQ(p["communication_per_step"]["dp"]["collectives"], 9);
  EXPECT_EQ(first["collective"], "reduce_scatter");
  EXPECT_EQ(first["from"], "<P>");
  EXPECT_EQ(first["to"], "<S(0)>");
  EXPECT_EQ(first["bytes"], 128 * 64 * 4 / 2);
  EXPECT_EQ(first["consumer"], "add (optimizer.fc1.weight)");
  EXPECT_TRUE(first.contains("alternative"));

  RunResult text = mlc("plan examples/digits_mlp.json --mesh dp=2 --zero 1");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("mesh dp=2 (2 devices), ZeRO 1; data axes: dp"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("collective ledger of @train_step (" + std::to_string(p["ledger"].size()) + " entries)"),
            std::string::npos);
}

using mlc::testing::measured_memory;
using Memory = mlc::testing::MeasuredMemory;

struct MemoryCase {
  const char* model;
  const char* mesh;  // "": one device
  int zero;
};

class PlannedMemory : public ::testing::TestWithParam<MemoryCase> {};

// What `mlc plan` predicts per device (parameters, optimizer state, the
// compiled train step's arena) is what every rank of `mlc run` holds and
// allocates, under data and tensor parallelism.
TEST_P(PlannedMemory, EveryRankMeasuresWhatThePlanPredicts) {
  const MemoryCase& c = GetParam();
  const std::string file = std::string("examples/") + c.model + ".json";
  const bool one = !*c.mesh;
  const std::string mesh = one ? "" : std::string(" --mesh ") + c.mesh + " --zero " + std::to_string(c.zero);
  RunResult plan = mlc("plan " + file + mesh + " --format json");
  ASSERT_EQ(plan.status, 0) << plan.err;
  const auto j = nlohmann::json::parse(plan.out);
  Memory want;
  if (one) {
    want = {j["bytes"]["parameters"], j["bytes"]["optimizer_state"], j["compiled"]["arena_bytes"]};
  } else {
    const auto& device = j["parallel"]["per_device_bytes"];
    want = {device["parameters"], device["optimizer_state"], device["train_step_arena"]};
    EXPECT_EQ(j["compiled"]["arena_bytes"], want.arena);
  }
  RunResult run = mlc("run " + file + mesh + " --steps 1");
  ASSERT_EQ(run.status, 0) << run.err;
  const std::vector<Memory> ranks = measured_memory(run.out);
  ASSERT_EQ(ranks.size(), one ? 1u : static_cast<size_t>(j["parallel"]["devices"].get<int>())) << run.out;
  for (size_t r = 0; r < ranks.size(); ++r) {
    EXPECT_EQ(ranks[r].parameters, want.parameters) << "rank " << r;
    EXPECT_EQ(ranks[r].optimizer_state, want.optimizer_state) << "rank " << r;
    EXPECT_EQ(ranks[r].arena, want.arena) << "rank " << r;
  }
  RecordProperty("parameters", std::to_string(want.parameters));
  RecordProperty("optimizer_state", std::to_string(want.optimizer_state));
  RecordProperty("train_step_arena", std::to_string(want.arena));
}

INSTANTIATE_TEST_SUITE_P(Examples, PlannedMemory,
                         ::testing::Values(MemoryCase{"digits_mlp", "", 0}, MemoryCase{"digits_mlp", "dp=2", 0},
                                           MemoryCase{"digits_mlp", "dp=2", 1}, MemoryCase{"digits_mlp", "dp=2", 3},
                                           MemoryCase{"tiny_gpt", "", 0}, MemoryCase{"tiny_gpt", "dp=2", 0},
                                           MemoryCase{"tiny_gpt", "dp=2", 1}, MemoryCase{"tiny_gpt", "dp=2", 3},
                                           MemoryCase{"tiny_gpt", "tp=2", 0}, MemoryCase{"tiny_gpt", "dp=2,tp=2", 1}),
                         [](const auto& info) {
                           std::string name = std::string(info.param.model) + "_" +
                                              (*info.param.mesh ? info.param.mesh : "one_device") +
                                              (*info.param.mesh ? "_zero" + std::to_string(info.param.zero) : "");
                           for (char& ch : name)
                             if (ch == '=' || ch == ',') ch = '_';
                           return name;
                         });

TEST(ParallelCli, UsageAndShapeErrors) {
  RunResult zero = mlc("plan examples/digits_mlp.json --zero 1");
  EXPECT_EQ(zero.status, 2);
  EXPECT_EQ(zero.err, "mlc: error: --zero shards over the data axes of a mesh: give --mesh too (e.g. --mesh dp=2 --zero 1)\n");
  RunResult mesh = mlc("ir examples/digits_mlp.json --mesh dp=2,dp=2");
  EXPECT_EQ(mesh.status, 2);
  EXPECT_EQ(mesh.err, "mlc: error: --mesh: mesh 'dp=2,dp=2': axis 'dp' appears twice\n");
  // A tensor-parallel weight that does not divide over the tp axis.
  RunResult tp = mlc("plan examples/tiny_gpt.json --mesh tp=3");
  EXPECT_EQ(tp.status, 1);
  EXPECT_EQ(tp.err, "error: sharding: argument 'tok_emb.weight' (f32[64,64]) cannot be placed <S(0)> on mesh tp=3: "
                    "dim 0 of [64,64] (64) does not divide by 3 (sharded over tp=3)\n");
  RunResult z = mlc("ir examples/digits_mlp.json --mesh dp=2 --zero 4");
  EXPECT_EQ(z.status, 2);
  EXPECT_EQ(z.err, "mlc: error: --zero takes 0, 1, 2 or 3, got '4'\n");
  RunResult compile = mlc("compile examples/digits_mlp.json --mesh dp=3 -o x.mlcx");
  EXPECT_EQ(compile.status, 1);
  EXPECT_EQ(compile.err,
            "examples/digits_mlp.json: error: train.batch_size is the global batch, split over the 3 data-parallel "
            "ranks of mesh dp=3: it must divide by 3, got 32\n");
  // plan says what compile and run say.
  RunResult divide = mlc("plan examples/digits_mlp.json --mesh dp=3");
  EXPECT_EQ(divide.status, 1);
  EXPECT_EQ(divide.err, compile.err);
}

// A mesh axis without an implementation is a usage error naming it, where an
// unknown name was taken for a data axis and `pp` silently replicated the
// model; a model file's parallel.mesh likewise, at its location.
TEST(ParallelCli, MeshAxesWithoutAnImplementationAreErrors) {
  const std::string supported = "; supported axes: dp, ddp, fsdp (data), tp (tensor), pp (pipeline)\n";
  RunResult foo = mlc("run examples/digits_mlp.json --mesh foo=2 --steps 1");
  EXPECT_EQ(foo.status, 2);
  EXPECT_EQ(foo.err.substr(0, foo.err.find('\n') + 1), "mlc: error: --mesh: unknown axis 'foo'" + supported);
  RunResult ep = mlc("ir examples/digits_mlp.json --mesh dp=2,ep=2");
  EXPECT_EQ(ep.status, 2);
  EXPECT_EQ(ep.err, "mlc: error: --mesh: axis 'ep' (expert parallelism) is not implemented yet" + supported);
  RunResult compile = mlc("compile examples/digits_mlp.json --mesh cp=2 -o x.mlcx");
  EXPECT_EQ(compile.status, 2);
  EXPECT_EQ(compile.err.substr(0, compile.err.find('\n') + 1),
            "mlc: error: --mesh: axis 'cp' (context parallelism) is not implemented yet" + supported);
  RunResult file = mlc("plan tests/frontends/data/bad/parallel_mesh_cp.json");  // tp=2,cp=2 in the file's mesh
  EXPECT_EQ(file.status, 1);
  EXPECT_EQ(file.err, "tests/frontends/data/bad/parallel_mesh_cp.json:23:24: error: 'mesh': axis 'cp' (context "
                      "parallelism) is not implemented yet" + supported);
  for (const char* data : {"dp=2", "ddp=2", "fsdp=2"}) {
    RunResult ok = mlc(std::string("plan examples/digits_mlp.json --mesh ") + data);
    EXPECT_EQ(ok.status, 0) << data << ": " << ok.err;
    EXPECT_NE(ok.out.find(std::string("data axes: ") + std::string(data).substr(0, std::string(data).find('='))),
              std::string::npos)
        << ok.out;
  }
}

}  // namespace
