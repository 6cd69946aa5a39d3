// Pipeline-parallel schedules as data (docs/architecture.md, Parallelism):
// per pipeline rank, an ordered list of actions, as torch.distributed.pipelining
// writes its `_Action` lists and Megatron-LM's schedules run. Nothing in a
// schedule is control flow; a runtime walks each rank's list in order.
//
// The model is cut into S = p·v virtual stages 0..S-1 (p ranks, v virtual
// stages per rank). Stage s lives on rank s % p (Megatron-LM's interleaved
// placement: rank r holds stages r, r+p, r+2p, ...); with v = 1, stage r is on
// rank r. A step runs m micro-batches through every stage.
//
// Actions, written `<KIND><stage>.<microbatch>` ("F3.1": forward of stage 3
// on micro-batch 1; "SEND_F3.1": stage 3's output activation of micro-batch
// 1 sent to stage 4's rank):
//   F       forward of `stage` on `microbatch`; its activations are stashed
//           until the micro-batch's backward of the stage has finished.
//   B       full backward of the stage: input gradient and weight gradient.
//   I, W    the backward split in two (ZB-H1, "Zero Bubble Pipeline
//           Parallelism", Qi et al. 2023): I computes the input gradient (on
//           the critical path, it feeds stage s-1), W the weight gradient
//           (needed only by the optimizer step, so it can wait). A stage's
//           micro-batch has either one B, or one I and one W after it.
//   SEND_F  stage s's output activation to stage s+1's rank; RECV_F on that
//           rank receives it. Both are named by the stage that produced the
//           data (s), not by the receiver as torch names its receives.
//   SEND_B  stage s's input gradient to stage s-1's rank; RECV_B receives it,
//           also named by the producing stage s.
// Sends are asynchronous (buffered, like isend with room for the message);
// a receive blocks until the message has been sent. Between two ranks,
// messages are matched in order (as NCCL matches point-to-point calls), so a
// rank's sends to a peer and the peer's receives from it must be listed in
// the same order. Sends and receives exist only where consecutive stages are
// on different ranks; with p = 1 a schedule has none.
//
// The schedules (kind, text name, generator behaviour):
//   gpipe        all forwards of a rank in micro-batch order, then all
//                backwards in micro-batch order (GPipe; torch's
//                ScheduleGPipe). v must be 1.
//   1f1b         Megatron-LM's non-interleaved 1F1B (PipeDream-Flush): rank r
//                runs p-1-r warm-up forwards, then alternates one forward and
//                one backward, then the remaining backwards. v must be 1.
//                Megatron and torch run m < p too (the warm-up is cut to m
//                and the schedule degenerates into GPipe); here m < p is an
//                error, since it only adds a bubble (pick gpipe or more
//                micro-batches).
//   interleaved  Megatron-LM's interleaved 1F1B, v >= 2 stages per rank:
//                rank r's k-th forward runs chunk (k mod p·v) / p on
//                micro-batch (k div p·v)·p + k mod p, backwards the same with
//                the chunks reversed; warm-up is 2(p-1-r) + (v-1)p forwards
//                (all of them when m = p), then one forward and one backward
//                alternate. Needs m % p == 0, Megatron-LM's rule and torch's
//                older one (torch now also accepts m a multiple of its rounds).
//   zb1p         ZB-H1: 1F1B's forward/input-gradient order (warm-up p-1-r
//                forwards, then F and I alternate), with each W deferred into
//                the time the rank would otherwise wait. The order is made by
//                list scheduling under the paper's equal costs (F = I = W):
//                a rank runs its next F or I when its inputs are there (an F
//                only while fewer than p micro-batches are stashed on the
//                rank, 1F1B's peak on rank 0), else its oldest pending W, else
//                it waits; the remaining Ws run at the end. Unlike the
//                paper's hand-drawn schedule, ranks other than 0 may stash up
//                to p micro-batches (1F1B's rank r stashes p-r): the bound is
//                1F1B's peak over all ranks, which is what the paper keeps.
//                v must be 1 and m >= p.
// Generators insert the sends right after the action that produces the data
// and each receive before the first action that needs it or a later message
// of the same channel (so that channels stay in order).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"

namespace mlc {

enum class PipelineActionKind : uint8_t { F, B, I, W, SEND_F, RECV_F, SEND_B, RECV_B };

// "F", "B", "I", "W", "SEND_F", "RECV_F", "SEND_B", "RECV_B".
std::string_view pipeline_action_kind_name(PipelineActionKind kind);
// F, B, I, W: the computations, which take time and occupy the rank.
bool is_compute(PipelineActionKind kind);

struct PipelineAction {
  PipelineActionKind kind = PipelineActionKind::F;
  int stage = 0;       // virtual stage, 0..S-1
  int microbatch = 0;  // 0..m-1
  std::string str() const;  // "F3.1", "SEND_B2.0"
  friend bool operator==(const PipelineAction&, const PipelineAction&) = default;
};

// The inverse of PipelineAction::str for a list separated by spaces:
// "F0.0 SEND_F0.0 B0.0". Stages and micro-batches are decimal numbers below
// 2^20. Errors name the word: "pipeline action 'X0.1': expected F, B, I, W,
// SEND_F, RECV_F, SEND_B or RECV_B followed by <stage>.<microbatch>".
Expected<std::vector<PipelineAction>> parse_pipeline_actions(std::string_view text);

enum class PipelineScheduleKind : uint8_t { gpipe, one_f_one_b, interleaved, zb1p };

// "gpipe", "1f1b", "interleaved", "zb1p": the model file's spelling.
std::string_view pipeline_schedule_kind_name(PipelineScheduleKind kind);
// The inverse; an error names the field:
//   "parallel.pipeline.schedule: expected gpipe, 1f1b, interleaved or zb1p, got 'x'"
Expected<PipelineScheduleKind> parse_pipeline_schedule_kind(std::string_view text);

struct PipelineSchedule {
  int ranks = 1;           // p
  int virtual_stages = 1;  // v, stages per rank
  int microbatches = 1;    // m
  PipelineScheduleKind kind = PipelineScheduleKind::gpipe;
  std::vector<std::vector<PipelineAction>> actions;  // per rank, in order

  int stages() const { return ranks * virtual_stages; }  // S = p·v
  int rank_of_stage(int stage) const { return stage % ranks; }
};

// One line per rank, "rank 0: F0.0 SEND_F0.0 B0.0".
std::string pipeline_actions_str(const PipelineSchedule& schedule);

// The schedule of `kind` for p ranks, m micro-batches and v virtual stages
// per rank, with its sends and receives; it passes validate_pipeline_schedule.
// Invalid parameters are errors naming the model-file field:
//   "parallel.pipeline.stages: expected 1 to 4096 pipeline ranks, got 0"
//   "parallel.pipeline.microbatches: 1f1b needs at least as many micro-batches as stages (2 < 4)"
//   "parallel.pipeline.microbatches: interleaved needs a multiple of the 4 pipeline ranks, got 6"
//   "parallel.pipeline.virtual_stages: gpipe runs one stage per rank, got 2"
//   "parallel.pipeline.virtual_stages: interleaved needs at least 2 stages per rank, got 1"
Expected<PipelineSchedule> make_pipeline_schedule(PipelineScheduleKind kind, int ranks, int microbatches,
                                                  int virtual_stages = 1);

// {} when the schedule is complete and runs to the end; otherwise an Error
// about the first problem found, checked in this order:
//  1. one action list per rank; every stage in 0..S-1 and micro-batch in
//     0..m-1; every action on the rank that it belongs to (F, B, I, W, SEND
//     on the stage's rank, RECV on the peer's), no action twice, and no send
//     between stages on one rank or beyond the first or last stage;
//  2. every (stage, micro-batch) has one F and either one B or one I and one
//     W, and on its rank the F comes before the B or I, the I before the W;
//  3. every send has its receive on the peer and every receive its send, and
//     every input that crosses ranks has its receive on the consumer's rank;
//  4. between every two ranks, the receives are in the order of the sends;
//  5. the schedule runs to completion under blocking receives (an action
//     runs when the actions it needs have run: F(s) needs stage s-1's
//     output, local or received; B or I(s) needs F(s) and stage s+1's input
//     gradient, local or received (the last stage needs only F); W(s) needs
//     I(s); a send needs the action whose output it sends; a receive needs
//     its send). A deadlock names every blocked rank and what it waits for:
//       "pipeline schedule: deadlock: rank 0 waits at RECV_B1.0 (action 2) for SEND_B1.0 on rank 1; ..."
// Other errors locate the action: "pipeline schedule: rank 0, action 1 W0.0
// comes before its I0.0 (action 2)".
Status validate_pipeline_schedule(const PipelineSchedule& schedule);

// Durations of the actions in a time unit of the caller's choice (the
// printed grid has one column per unit).
struct PipelineDurations {
  int64_t forward = 1;   // F
  int64_t backward = 2;  // B
  int64_t input_grad = 1;   // I
  int64_t weight_grad = 1;  // W
  int64_t send_latency = 0;  // from a send to its receive's earliest end
  // Per stage (S entries), a factor on the stage's F, B, I and W durations
  // (stages of unequal cost, as `mlc plan` times them); empty: 1 for all.
  std::vector<int64_t> stage_scale;
  // Per stage (S entries), the stage's own F, B, I and W durations in place
  // of the four above times stage_scale (the plan search's cost model times
  // each stage's functions); empty: those.
  std::vector<std::array<int64_t, 4>> per_stage;
};

struct PipelineTimedAction {
  PipelineAction action;
  int64_t start = 0;
  int64_t end = 0;  // start + duration; sends and receives take no rank time
};

// The schedule run with every action as early as its rank's order and its
// inputs allow.
struct PipelineTimeline {
  std::vector<std::vector<PipelineTimedAction>> ranks;  // per rank, in order
  int64_t makespan = 0;          // the latest end
  std::vector<int64_t> busy;     // per rank, time spent in F, B, I, W
  std::vector<int64_t> idle;     // per rank, makespan - busy
  // Megatron-LM's bubble fraction, bubble time over ideal compute time,
  // summed over ranks: Σ idle / Σ busy. For p ranks with equal work it is
  // (makespan - busy) / busy, the quantity of the textbook formulas:
  // (p-1)/m for GPipe and 1F1B, (p-1)/(v·m) for interleaved 1F1B (both with
  // any F and B durations), (p-1)(F+I-W) / (m(F+I+W)) for ZB-H1 (the paper's,
  // an approximation: (p-1)/(3m) with F = I = W).
  double bubble_fraction = 0;
  // Per rank, the most (stage, micro-batch) activations stashed at once: F
  // done and its B (or its W) not yet done. For interleaved schedules each
  // counts one stage's activations, 1/v of the rank's layers.
  std::vector<int> peak_stashed;
};

// Validates the schedule (an error is validate_pipeline_schedule's), then
// times it.
Expected<PipelineTimeline> simulate_pipeline_schedule(const PipelineSchedule& schedule,
                                                      const PipelineDurations& durations = {});

// The textbook bubble fraction of the schedule's kind, and its formula:
// "(p-1)/m", "(p-1)/(v*m)", "(p-1)(F+I-W)/(m(F+I+W))". 1f1b and gpipe use
// the first, interleaved the second, zb1p the third (with `durations`).
double pipeline_bubble_formula(const PipelineSchedule& schedule, const PipelineDurations& durations);
std::string_view pipeline_bubble_formula_text(PipelineScheduleKind kind);

// The timeline as a grid for `mlc plan`: a header line, then one row per
// rank and one column per time unit, each cell the compute action running
// then (repeated over its duration) or "." when the rank is idle, then the
// simulated bubble next to the formula's:
//   1f1b p=2 m=4 v=1 (F=1 B=2)
//   rank 0 | F0.0 F0.1 .    B0.0 B0.0 ...
//   bubble 0.2500, formula (p-1)/m = 0.2500
// Times must be whole units (they are, for whole durations).
std::string print_pipeline_schedule(const PipelineSchedule& schedule, const PipelineTimeline& timeline,
                                    const PipelineDurations& durations = {});

}  // namespace mlc
