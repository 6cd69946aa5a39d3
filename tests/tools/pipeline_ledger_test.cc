// The collective ledger of a pipelined step (driver/plan_pipeline_ledger.h),
// as `mlc plan` prints it for gpt8 on pp=2, dp=2,pp=2 and pp=2,tp=2 (text
// and JSON): the activation crossing the cut and its gradient, named by their
// producer and model-file location, with the local type of a micro-batch,
// its bytes (elements x 4), m messages per step and the link model's time;
// the collectives of the stages' sharded functions (the data axis's gradient
// reductions in @apply_update, tp's in every function) times their calls;
// the grad-norm, tied-weight and loss all_reduces; the totals per rank and
// axis. Then the ledger against the step schedules `mlc run` builds, rank by
// rank, on every schedule.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "driver/plan_pipeline_ledger.h"
#include "frontends/model_file.h"
#include "ir/parallel_plan.h"
#include "passes/sharding.h"
#include "tests/tools/run_mlc.h"

namespace mlc {
namespace {

using testing::RunResult;
using testing::run_mlc;

bool has(const std::string& out, const std::string& text) { return out.find(text) != std::string::npos; }

// The elements of a printed type "f32[1,32,64]" times `element_bytes`.
int64_t type_bytes(const std::string& type, int64_t element_bytes) {
  int64_t n = 1;
  for (size_t at = type.find('[') + 1; at < type.size() && type[at] != ']';) {
    size_t end = type.find_first_of(",]", at);
    n *= std::stoll(type.substr(at, end - at));
    at = type[end] == ',' ? end + 1 : end;
  }
  return n * element_bytes;
}

nlohmann::json plan_json(const std::string& flags) {
  RunResult r = run_mlc("plan examples/gpt8.json " + flags + " --format json");
  EXPECT_EQ(r.status, 0) << r.err;
  return nlohmann::json::parse(r.out)["pipeline"];
}

const std::string kCrossing = "add at examples/gpt8.json:23:13 (layers.3)";  // the 4th block's output

TEST(PipelineLedger, Gpt8OnTwoStagesText) {
  RunResult r = run_mlc("plan examples/gpt8.json --mesh pp=2");
  ASSERT_EQ(r.status, 0) << r.err;
  // 16 KiB: f32[2,32,64], a micro-batch of 16 / 8; 5 us + 16384 B at 10 GB/s = 6.6384 us, x 8 per step.
  EXPECT_TRUE(has(r.out,
                  "    collective ledger of the pipelined step (4 entries; a send/recv per micro-batch of 2 examples)\n"
                  "      #0   send/recv      pp    stage 0 -> 1 (rank 0 -> 1)     f32[2,32,64]       16.0 KiB     6.6 us"
                  "  x8 per step: 128.0 KiB, 53.1 us\n"
                  "           value " + kCrossing + "; for stage 1's pipe.in.0 (activation, F)\n"
                  "      #1   send/recv      pp    stage 1 -> 0 (rank 1 -> 0)     f32[2,32,64]       16.0 KiB     6.6 us"
                  "  x8 per step: 128.0 KiB, 53.1 us\n"
                  "           value gradient of " + kCrossing + "; for stage 0's pipe.out.0.grad (input gradient, B)\n"
                  "      #2   all_reduce     pp    every rank                     f32[76]               304 B     5.0 us\n"
                  "           value %grad_norms; for global-norm clipping: every stage's squared gradient norms summed "
                  "over pp\n"
                  "      #3   all_reduce     world every rank                     f64[]                   8 B     5.0 us\n"))
      << r.out;
  // Each rank sends its 8 messages and joins the norms' all_reduce: 8 x 16 KiB + 304 B.
  EXPECT_TRUE(has(r.out, "      rank 0   pp      128.3 KiB in 8 sends + 1 collective, estimated 58.1 us\n")) << r.out;
  EXPECT_TRUE(has(r.out, "      rank 1   pp      128.3 KiB in 8 sends + 1 collective, estimated 58.1 us\n"));
  EXPECT_TRUE(has(r.out, "      pp          256.6 KiB in 16 sends + 2 collectives, estimated 116.3 us\n"));
}

// Checks every send/recv entry of `ledger` against the crossing value and the plan's micro-batches.
void expect_crossings(const nlohmann::json& pipeline, const std::string& local_type) {
  const int m = pipeline["microbatches"];
  int crossings = 0;
  for (const auto& e : pipeline["ledger"]) {
    if (e["collective"] != "send/recv") continue;
    ++crossings;
    EXPECT_EQ(e["type"], local_type);
    EXPECT_EQ(e["bytes"], type_bytes(local_type, 4));
    EXPECT_EQ(e["per_step"], m);
    EXPECT_EQ(e["bytes_per_step"], type_bytes(local_type, 4) * m);
    EXPECT_DOUBLE_EQ(e["estimated_us"].get<double>(), kCollectiveLatencyUs + type_bytes(local_type, 4) / kLinkBytesPerUs);
    EXPECT_DOUBLE_EQ(e["estimated_us_per_step"].get<double>(), e["estimated_us"].get<double>() * m);
  }
  ASSERT_EQ(crossings, 2);
  const auto& forward = pipeline["ledger"][0];
  EXPECT_EQ(forward["value"], kCrossing);
  EXPECT_EQ(forward["from_stage"], 0);
  EXPECT_EQ(forward["to_stage"], 1);
  const auto& backward = pipeline["ledger"][1];
  EXPECT_EQ(backward["value"], "gradient of " + kCrossing);
  EXPECT_EQ(backward["from_rank"], 1);
  EXPECT_EQ(backward["to_rank"], 0);
}

// The totals per rank and axis are the sums of the entries the rank sends
// for; the step's, those of every pipeline rank's `devices`.
void expect_totals(const nlohmann::json& pipeline, int devices) {
  std::map<std::pair<int, std::string>, int64_t> bytes, sends, collectives;
  const int ranks = pipeline["ranks"];
  for (const auto& e : pipeline["ledger"])
    for (int r = 0; r < ranks; ++r) {
      const bool send = e["collective"] == "send/recv";
      if (!(send ? e["from_rank"] == r : e["rank"] == "all" || e["rank"] == r)) continue;
      bytes[{r, e["axis"]}] += e["bytes_per_step"].get<int64_t>();
      if (e["collective"] != "shard_slice") (send ? sends : collectives)[{r, e["axis"]}] += e["per_step"].get<int64_t>();
    }
  const auto& comm = pipeline["communication_per_step"];
  std::map<std::string, int64_t> total;
  for (const auto& [key, b] : bytes) {
    const auto& axis = comm["ranks"][key.first]["axes"][key.second];
    EXPECT_EQ(axis["bytes"], b) << "rank " << key.first << " " << key.second;
    EXPECT_EQ(axis["sends"], sends[key]) << "rank " << key.first << " " << key.second;
    EXPECT_EQ(axis["collectives"], collectives[key]) << "rank " << key.first << " " << key.second;
    total[key.second] += b * devices;
  }
  for (const auto& [axis, b] : total) EXPECT_EQ(comm["total"][axis]["bytes"], b) << axis;
}

TEST(PipelineLedger, Gpt8OnTwoStagesJson) {
  const nlohmann::json p = plan_json("--mesh pp=2");
  expect_crossings(p, "f32[2,32,64]");
  expect_totals(p, 1);
  ASSERT_EQ(p["ledger"].size(), 4u);  // two crossings, the squared norms, the loss
  EXPECT_EQ(p["ledger"][2]["value"], "%grad_norms");
  EXPECT_EQ(p["ledger"][2]["axis"], "pp");
  EXPECT_EQ(p["ledger"][3]["axis"], "world");
  EXPECT_EQ(p["communication_per_step"]["ranks"][0]["axes"]["pp"]["sends"], 8);
  EXPECT_EQ(p["communication_per_step"]["total"]["pp"]["sends"], 16);
}

TEST(PipelineLedger, Gpt8OnTwoReplicasOfTwoStagesJson) {
  const nlohmann::json p = plan_json("--mesh dp=2,pp=2");
  EXPECT_EQ(p["microbatch_size"], 1);  // 16 examples, 8 on each replica, in 8 micro-batches
  expect_crossings(p, "f32[1,32,64]");
  expect_totals(p, 2);
  // Over dp each stage's @apply_update reduces its gradient sums once per
  // step: one all_reduce per parameter tensor of the rank's stage, their
  // bytes (2(n-1)/n = 1 for n = 2) the rank's parameters as mlc run measures them.
  for (int r = 0; r < 2; ++r) {
    int64_t bytes = 0, count = 0;
    for (const auto& e : p["ledger"])
      if (e["axis"] == "dp" && e["rank"] == r && e["function"] == "stage" + std::to_string(r) + ".apply_update") {
        EXPECT_EQ(e["collective"], "all_reduce");
        EXPECT_EQ(e["from"], "<P,R>");
        EXPECT_EQ(e["to"], "<R,R>");
        EXPECT_EQ(e["per_step"], 1);
        bytes += e["bytes"].get<int64_t>(), count += e["per_step"].get<int64_t>();
      }
    EXPECT_EQ(bytes, p["run_ranks"][r]["parameters"].get<int64_t>()) << "rank " << r;
    EXPECT_EQ(count, 38) << "rank " << r;  // 4 blocks of 9 tensors, plus the embeddings or the norm and head
  }
  // Each micro-batch's loss is summed over the replicas in @loss_grad, 8 times per step.
  bool loss = false;
  for (const auto& e : p["ledger"])
    loss |= e["function"] == "stage1.loss_grad" && e["axis"] == "dp" && e["type"] == "f32[]" && e["per_step"] == 8;
  EXPECT_TRUE(loss);
  const auto& world = p["ledger"].back();
  EXPECT_EQ(world["axis"], "world");
  EXPECT_EQ(world["bytes"], 2 * 3 * 8 / 4);  // an f64 over 4 ranks, ring all_reduce
}

TEST(PipelineLedger, TensorParallelStagesCollectivesAreCountedPerCall) {
  const nlohmann::json p = plan_json("--mesh pp=2,tp=2");
  expect_crossings(p, "f32[2,32,64]");  // activations are replicated on tp
  expect_totals(p, 2);
  // The first block's attention output: a partial sum over tp, all_reduced
  // in each of the micro-batches' @forward calls and again in @loss_grad's recomputation.
  std::map<std::string, int> per_step;
  for (const auto& e : p["ledger"])
    if (e["axis"] == "tp" && e["rank"] == 0 && e["collective"] == "all_reduce" &&
        e["value"] == "dot at examples/gpt8.json:17:21 (layers.0.attn)" &&
        e["consumer"] == "the layer's output (tensor-parallel plan)")
      per_step[e["function"]] += e["per_step"].get<int>();
  EXPECT_EQ(per_step["stage0.forward"], 8);
  EXPECT_EQ(per_step["stage0.loss_grad"], 8);
}

TEST(PipelineLedger, TiedWeightsAreSummedOverPp) {
  RunResult r = run_mlc("plan examples/gpt2_tied.json --mesh pp=2 --microbatches 4 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto ledger = nlohmann::json::parse(r.out)["pipeline"]["ledger"];
  int tied = 0;
  for (const auto& e : ledger)
    if (e["value"] == "%tok_emb.weight.grad") {
      ++tied;
      EXPECT_EQ(e["axis"], "pp");
      EXPECT_EQ(e["type"], "f32[64,32]");
      EXPECT_EQ(e["bytes"], 64 * 32 * 4);
      EXPECT_TRUE(e["consumer"].get<std::string>().starts_with("shared tok_emb.weight (tied)")) << e;
    }
  EXPECT_EQ(tied, 1);
}

struct LedgerCase {
  const char* mesh;
  int microbatches;
  PipelineScheduleKind schedule;
  int virtual_stages;
};

class LedgerAgainstSchedule : public ::testing::TestWithParam<LedgerCase> {};

// Rank by rank, the ledger's sends (messages and bytes) and all_reduces are
// the send and all_reduce calls of the step schedule the run builds.
TEST_P(LedgerAgainstSchedule, EveryRanksMessagesAreInTheLedger) {
  static const ModelFile model = ModelFile::load("examples/gpt8.json").value();
  const LedgerCase& c = GetParam();
  ParallelFlags flags{Mesh::parse(c.mesh).value(), std::nullopt, c.microbatches, c.schedule, c.virtual_stages};
  const Program program = Program::from_model(model, Backend::compiled, make_parallel_plan(flags, model.config().parallel));
  const int64_t batch = model.config().train.batch_size;
  auto ledger = pipeline_ledger(program, batch);
  ASSERT_TRUE(ledger) << ledger.error().message;
  const int ranks = program.parallel().pipeline_ranks();
  int64_t sends_total = 0;
  for (int r = 0; r < ranks; ++r) {
    const PipelineRankView view = planned_pipeline_view(program, r);
    auto steps = build_pipeline_step_schedule(view, batch);
    ASSERT_TRUE(steps) << steps.error().message;
    int64_t sends = 0, send_bytes = 0, all_reduces = 0;
    std::map<std::string, int> calls;
    for (const StepSchedule::Call& call : steps->calls) {
      if (call.kind == StepSchedule::Kind::function) ++calls[call.function];
      if (call.kind == StepSchedule::Kind::all_reduce) ++all_reduces;
      if (call.kind != StepSchedule::Kind::send) continue;
      const StepSchedule::Call& from = steps->calls[call.from_results.at(0).call];
      auto sig = view.signature(from.function, from.batch);
      ASSERT_TRUE(sig) << sig.error().message;
      ++sends;
      send_bytes += sig->results.at(call.from_results[0].result).type.num_bytes();
    }
    int64_t ledger_sends = 0, ledger_bytes = 0, ledger_all_reduces = 0;
    for (const PipelineLedgerEntry& e : *ledger) {
      if (!e.sends_from(r)) continue;
      if (e.collective == "send/recv") {
        ledger_sends += e.per_step, ledger_bytes += e.step_bytes();
      } else if (!e.function.empty()) {
        // A stage function's collective: as often as the schedule calls the function.
        EXPECT_EQ(e.per_step, calls[e.function]) << e.function;
        auto entries = program.stage_ledger(e.function, batch / c.microbatches);
        ASSERT_TRUE(entries) << entries.error().message;
        EXPECT_FALSE((*entries)->empty());
      } else if (e.axis != "world") {  // the loss is the runner's, after the calls
        ledger_all_reduces += e.per_step;
      }
    }
    EXPECT_EQ(ledger_sends, sends) << "rank " << r;
    EXPECT_EQ(ledger_bytes, send_bytes) << "rank " << r;
    EXPECT_EQ(ledger_all_reduces, all_reduces) << "rank " << r;
    sends_total += sends;
  }
  EXPECT_GT(sends_total, 0);
}

INSTANTIATE_TEST_SUITE_P(Gpt8, LedgerAgainstSchedule,
                         ::testing::Values(LedgerCase{"pp=2", 8, PipelineScheduleKind::one_f_one_b, 1},
                                           LedgerCase{"pp=4", 4, PipelineScheduleKind::gpipe, 1},
                                           LedgerCase{"pp=2", 4, PipelineScheduleKind::interleaved, 2},
                                           LedgerCase{"pp=4", 8, PipelineScheduleKind::zb1p, 1},
                                           LedgerCase{"dp=2,pp=2", 4, PipelineScheduleKind::one_f_one_b, 1},
                                           LedgerCase{"pp=2,tp=2", 4, PipelineScheduleKind::zb1p, 1}),
                         [](const auto& info) { return "case" + std::to_string(info.index); });

}  // namespace
}  // namespace mlc
