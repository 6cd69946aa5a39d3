// The collective ledger of a pipelined step (docs/architecture.md,
// Parallelism), printed by `mlc plan --mesh pp=N` and `--mesh dp=2,pp=2`: what
// each rank of `mlc run` sends in one optimizer step, the pipeline's
// counterpart of the sharding pass's ledger (passes/sharding.h LedgerEntry).
//
// Entries, in this order:
//  - per cut between stages s and s+1 (virtual stages, in order), per value
//    stage s sends (@forward's result K, stage s+1's pipe.in.K;
//    passes/pipeline_split.h): one send/recv of the activation from stage s's
//    rank to stage s+1's, and, for a float value, one of its gradient back
//    (stage s+1's @loss_grad result, stage s's seed pipe.out.K.grad). A
//    value named by what produces it: its producer op in the stage that
//    computes it (passes/sharding.h describe_op, "add at m.json:30:5
//    (layers.3)"), followed through the stages that send it along; its
//    gradient "gradient of <that>";
//  - the all_reduces of the step schedule's end (driver/pipeline_step_schedule.h),
//    in its order: each gradient sum over each data axis (one entry per
//    pipeline rank and sum: every replica of that rank takes part), each
//    shared (tied) parameter's gradient sum over pp, the squared gradient
//    norms over pp (global-norm clipping), and the step's loss, an f64
//    summed over every rank of the mesh.
// Each entry's type is the local one of a message (a micro-batch's, with the
// data axes' share of the batch); `bytes` what one device sends for it: the
// tensor's bytes for a send, collective_bytes (ring all_reduce 2(n-1)/n) for
// an all_reduce over n ranks; the estimate is the sharding pass's link model
// (kCollectiveLatencyUs + bytes / kLinkBytesPerUs) per message. A send/recv
// is made once per micro-batch (per_step = m), an all_reduce once per step.
// The counts agree with the schedule `mlc run` builds: its send calls and
// all_reduce calls, rank by rank (tests/tools/pipeline_ledger_test.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/pipeline_step_schedule.h"
#include "driver/program.h"
#include "ir/types.h"

namespace mlc {

struct PipelineLedgerEntry {
  int id = 0;
  std::string collective;  // "send/recv" or "all_reduce"
  std::string axis;        // "pp", a data axis, or "world" (every rank: the loss)
  // send/recv: the stages and their pipeline ranks, sender first.
  int from_stage = -1, to_stage = -1, from_rank = -1, to_rank = -1;
  // all_reduce over a data axis: the pipeline rank whose replicas sum; -1: every pipeline rank.
  int rank = -1;
  std::string value;     // "add at m.json:30:5 (layers.3)", "gradient of ...", "%layers.0.mlp.w1.weight.grad"
  std::string consumer;  // "stage 1's pipe.in.0 (F)", or why the all_reduce runs
  TensorType type;       // one message's local type
  int64_t bytes = 0;     // one message, sent per device
  int per_step = 1;      // messages per step
  double estimated_us = 0;  // one message
  int64_t step_bytes() const { return bytes * per_step; }
  double step_us() const { return estimated_us * per_step; }
  bool sends_from(int pipeline_rank) const;  // this pipeline rank sends for it
};

// Pipeline rank `me` of the run `program` plans (ParallelPlan::pipelined), as
// PipelineRankView::planned with the mesh's data axes, which replicate the
// pipeline: world ranks are pipeline ranks (of the first replica).
PipelineRankView planned_pipeline_view(const Program& program, int me);

// The ledger of `program`'s pipelined plan (ParallelPlan::pipelined: pp,
// alone or with data axes; ZeRO 0) for steps of `batch` (global) examples.
// Errors are the stages' or the schedule's (a batch that does not divide).
Expected<std::vector<PipelineLedgerEntry>> pipeline_ledger(const Program& program, int64_t batch);

struct PipelineLedgerReport {
  std::string text;  // indented for `mlc plan`'s pipeline section
  nlohmann::ordered_json ledger;         // the entries
  nlohmann::ordered_json communication;  // per pipeline rank and axis, and the step's totals
};

// The ledger as `mlc plan` prints it: what one device of each pipeline rank
// sends per step and axis (bytes, sends and all_reduces, estimated time),
// the step's totals over every device (`replicas` per pipeline rank), then
// every entry in the form of the sharding ledger's lines.
PipelineLedgerReport pipeline_ledger_report(const std::vector<PipelineLedgerEntry>& ledger, int pipeline_ranks,
                                            int64_t replicas, int64_t micro_batch);

}  // namespace mlc
