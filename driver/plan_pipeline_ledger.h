// The collective ledger of a pipelined step (docs/architecture.md,
// Parallelism), printed by `mlc plan --mesh pp=N` and on meshes with axes
// beside pp (`--mesh dp=2,pp=2`, `pp=2,tp=2`): what each rank of `mlc run`
// sends in one optimizer step, the pipeline's counterpart of the sharding
// pass's ledger (passes/sharding.h LedgerEntry).
//
// Entries, in this order:
//  - per cut between stages s and s+1 (virtual stages, in order), per value
//    stage s sends (@forward's result K, stage s+1's pipe.in.K;
//    passes/pipeline_split.h): one send/recv of the activation from stage s's
//    ranks to stage s+1's (each rank to the one of its coordinates on the
//    other axes), and, for a float value, one of its gradient back (stage
//    s+1's @loss_grad result, stage s's seed pipe.out.K.grad). A value is
//    named by what produces it: its producer op in the stage that computes
//    it (passes/sharding.h describe_op, "add at m.json:30:5 (layers.3)"),
//    followed through the stages that send it along and through the
//    collectives the sharding pass put before the result; its gradient
//    "gradient of <that>";
//  - per pipeline rank, the collectives inside its stages' functions where
//    they are sharded over the axes beside pp (passes/pipeline_stage_sharding.h,
//    their sharding ledgers: tp's all_reduces, the data axes' gradient
//    reductions in @apply_update, ZeRO's gathers), each as many times per
//    step as the rank's step schedule calls the function;
//  - the all_reduces the step schedule makes over pp (driver/pipeline_step_schedule.h):
//    each shared (tied) parameter's gradient sum, then the squared gradient
//    norms (global-norm clipping); then the step's loss, an f64 summed over
//    every rank of the mesh (driver/step_runner.h).
// Each entry's type is the local one of a message or collective (a
// micro-batch's for the stage functions' and the sends); `bytes` what one
// device sends for it: the tensor's bytes for a send, the sharding ledger's
// for the functions' collectives, collective_bytes (ring all_reduce
// 2(n-1)/n) for the schedule's; the estimate is the sharding pass's link
// model (kCollectiveLatencyUs + bytes / kLinkBytesPerUs) per message. A
// send/recv is made once per micro-batch (per_step = m). The counts agree
// with the step schedules `mlc run` builds, rank by rank
// (tests/tools/pipeline_ledger_test.cc).
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
  std::string collective;  // "send/recv", or the sharding ledger's ("all_reduce", "all_gather", ...)
  std::string axis;        // "pp", an axis beside it, or "world" (every rank: the loss)
  // send/recv: the stages and their pipeline ranks, sender first.
  int from_stage = -1, to_stage = -1, from_rank = -1, to_rank = -1;
  // A stage function's collective: the pipeline rank whose ranks run it,
  // the function ("stage1.apply_update") and the placements before and
  // after; -1 and "": made by every pipeline rank.
  int rank = -1;
  std::string function;
  Placements from, to;
  std::string value;     // "add at m.json:30:5 (layers.3)", "gradient of ...", "%grad_norms"
  std::string consumer;  // "stage 1's pipe.in.0 (activation, F)", or why the collective runs
  TensorType type;       // one message's local type
  int64_t bytes = 0;     // one message, sent per device
  int per_step = 1;      // messages per step
  double estimated_us = 0;  // one message
  int64_t step_bytes() const { return bytes * per_step; }
  double step_us() const { return estimated_us * per_step; }
  bool sends_from(int pipeline_rank) const;  // this pipeline rank's devices send for it
  bool communicates() const { return collective != "shard_slice"; }  // a local slice sends nothing
};

// Pipeline rank `me` of the run `program` plans (ParallelPlan::pipelined), as
// PipelineRankView::planned with the mesh's axes beside pp (data axes, the
// ranks per stage): world ranks are pipeline ranks (of the first replica).
PipelineRankView planned_pipeline_view(const Program& program, int me);

// The ledger of `program`'s pipelined plan (ParallelPlan::pipelined) for
// steps of `batch` (global) examples.
// Errors are the stages' or the schedule's (a batch that does not divide).
Expected<std::vector<PipelineLedgerEntry>> pipeline_ledger(const Program& program, int64_t batch);

struct PipelineLedgerReport {
  std::string text;  // indented for `mlc plan`'s pipeline section
  nlohmann::ordered_json ledger;         // the entries
  nlohmann::ordered_json communication;  // per pipeline rank and axis, and the step's totals
};

// The ledger as `mlc plan` prints it: what one device of each pipeline rank
// sends per step and axis (bytes, sends and collectives, estimated time),
// the step's totals over every device (`stage_ranks` devices per pipeline
// rank), then every entry in the form of the sharding ledger's lines.
// `micro_batch`: the examples of one device's micro-batch.
PipelineLedgerReport pipeline_ledger_report(const std::vector<PipelineLedgerEntry>& ledger, int pipeline_ranks,
                                            int64_t stage_ranks, int64_t micro_batch);

}  // namespace mlc
