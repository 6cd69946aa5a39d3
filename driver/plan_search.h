// `mlc plan MODEL --devices N --search`: every parallel plan of a model for N
// devices, costed by the model of driver/plan_cost.h from the figures of
// driver/plan_estimate.h, those over the memory cap dropped, the rest ranked
// (docs/architecture.md, Plan search).
//
// The plans: meshes dp x tp x pp = N where
//  - dp (the data axis) divides the batch, with ZeRO 0..3 over it (0 without it);
//  - tp > 1 only when the model file has a tensor-parallel plan, each with
//    sequence parallelism off and on;
//  - pp > 1 up to the stages the model's layers allow, with m micro-batches
//    among the divisors of the data rank's batch (m >= pp for 1f1b and
//    zb1p), on gpipe, 1f1b, zb1p, and interleaved with v = 2, 3, ... stages
//    per rank where pp·v stages fit and pp divides m.
// Runnable: every plan whose ParallelPlan validates (all of the above
// today; pipelines shard their stages over dp and tp, passes/
// pipeline_stage_sharding.h). Plans of pp beside dp or tp are costed less
// exactly (below). Runnable plans rank first (`--runnable-only` drops the
// others).
//
// A plan's predicted step time:
//  - no pp: one call of the sharded @train_step (its collectives timed by the
//    sharding pass's ledger);
//  - pp: the pipeline schedule simulated (ir/pipeline_schedule.h) with each
//    stage's F, B, I and W the cost of its functions at the micro-batch
//    (the last stage's F is in its B: its @loss_grad runs the forward), a
//    send taking a collective's latency plus the largest crossing's bytes,
//    then the slowest rank's updates and the all-reduces that couple the
//    stages (shared gradients, squared norms). With dp or tp beside pp
//    (analytical, not checked against a run): the stages are those of the
//    data rank's micro-batch; tp scales each stage's time, tensor bytes and
//    arena as it scales the whole step's (the tp-sharded @train_step against
//    one device's), and its ledger time for the data rank's tokens is spread
//    over the stages and micro-batches; ZeRO divides the optimizer state (1,
//    2) and the parameters (3) by dp; the data axis reduces each rank's
//    gradients once a step (ring all_reduce, or with ZeRO reduce_scatter and
//    all_gather; ZeRO 3 also gathers the parameters for every micro-batch's
//    forward and backward), each tensor a collective.
// A rank's predicted memory is what `mlc run` measures (driver/train.h
// RankMemory: parameters, optimizer state, the step's arenas, the schedule's
// buffers) plus its batch; a pipeline's per rank, the others' the same on
// every rank. Plans whose largest rank exceeds the cap are dropped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/plan_cost.h"
#include "driver/plan_estimate.h"
#include "ir/parallel_plan.h"

namespace mlc {

struct SearchOptions {
  int64_t devices = 1;
  int64_t memory_cap = 0;  // bytes per rank; 0: none
  bool runnable_only = false;
  HostRates rates;
};

struct PredictedRank {
  double parameters = 0, optimizer_state = 0, arena = 0, schedule_buffers = 0, inputs = 0;
  double total() const { return parameters + optimizer_state + arena + schedule_buffers + inputs; }
};

struct RankedPlan {
  ParallelPlan plan;
  int dp = 1, tp = 1, pp = 1;
  bool runnable = false;
  double step_ms = 0;
  // Parts of step_ms: GEMMs, memory-bound instructions, the fixed cost of
  // instructions, communication by mesh axis (and "pp" for the stages'
  // messages and all-reduces), and a pipeline's idle time.
  double gemm_ms = 0, kernel_ms = 0, overhead_ms = 0, idle_ms = 0;
  std::map<std::string, double> comm_ms;
  double bubble = 0;  // the simulated bubble fraction
  double work_ms = 0;  // compute of every device together (for ranks that share cores: bench/plan_rank_check.py)
  std::vector<PredictedRank> ranks;  // per pipeline rank; one without pp
  double peak_bytes = 0;             // the largest rank's total
  std::string reason;                // the largest parts, one line
  // "dp=2,tp=2 zero=1 sp", "pp=4 m=8 1f1b", "pp=2 m=4 interleaved v=2".
  std::string name() const;
  nlohmann::ordered_json json() const;
};

struct SearchResult {
  std::vector<RankedPlan> plans;  // those within the cap, best first
  int enumerated = 0, over_cap = 0;
  std::vector<std::pair<std::string, std::string>> failed;  // plan, why it could not be costed
  double seconds = 0;  // wall time of the search, the builds included
  int threads = 1;     // building at once
  int64_t extrapolated_copies = 0;
};

Expected<SearchResult> search_plans(PlanEstimator& estimator, const SearchOptions& options);

// The result for `mlc plan --search`: a header (model, devices, cap, host
// rates, what was enumerated, dropped and failed, the search's time) and the
// best `top` plans, each with its step time, its ranks' memory and why.
std::string search_text(const PlanEstimator& estimator, const SearchResult& result, const SearchOptions& options,
                        size_t top);
nlohmann::ordered_json search_json(const PlanEstimator& estimator, const SearchResult& result,
                                   const SearchOptions& options, size_t top);

}  // namespace mlc
