// The pipeline part of `mlc plan` (tools/cmd_plan.cc): with --mesh pp=N or the
// model file's parallel.pipeline, the stage assignment (ir/pipeline_stages.h),
// the schedule's grid (ir/pipeline_schedule.h) timed by the stages' forward
// FLOPs, the simulated bubble next to the textbook formula, the
// activation memory the pipeline adds on each rank, what each rank of the run
// holds (driver/plan_pipeline_memory.h) and the collective ledger of its
// step (driver/plan_pipeline_ledger.h).
//
// Micro-batches: with data axes beside pp, each data rank's share of the
// batch in m micro-batches (the rows one device of the run computes on).
//
// Timing: the time unit is a quarter of the slowest stage's forward FLOPs of
// one micro-batch, coarsened by the gcd of the stages' factors; stage s's
// forward takes its factor round(FLOPs_s / unit) (at least 1) in units, its
// backward twice that (B = 2F; zb1p: I = W = F). FLOPs stand for time: no
// device speed, no communication latency.
//
// Activation memory: rank r stashes at most peak_stashed[r] micro-batches of
// forward activations at once (the simulator's count); each counts one of its
// stages' activations kept for backward at one micro-batch (for interleaved
// schedules, the largest of the rank's stages).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "frontends/model_file.h"
#include "ir/expected.h"
#include "ir/mesh.h"
#include "ir/model_config.h"
#include "ir/pipeline_schedule.h"
#include "ir/pipeline_stages.h"

namespace mlc {

// What the command line says over the model file's section; 0 or nullopt: the section's.
struct PipelineFlags {
  int ranks = 0;         // --mesh pp=N
  int microbatches = 0;  // --microbatches
  int virtual_stages = 0;  // --virtual-stages
  // The mesh's other axes, the ZeRO stage over its data axes and sequence
  // parallelism: what each rank of `mlc run` on that mesh with pp holds is
  // predicted (driver/plan_pipeline_memory.h; every rank at one pp
  // coordinate holds the same).
  Mesh beside;
  int zero = 0;
  bool sequence_parallel = false;
  std::optional<PipelineScheduleKind> schedule;  // --schedule
};

// The pipeline `mlc plan` plans and its schedule timed: the grid of the text
// report and the Gantt chart of `--format svg` (driver/pipeline_gantt.h).
struct PipelineTiming {
  PipelineSchedule schedule;
  PipelineStagePlan stages;  // cut at `micro` examples per micro-batch
  int64_t batch = 0, micro = 0;
  PipelineDurations durations;  // in units of unit_flops
  int64_t unit_flops = 1;
  PipelineTimeline timeline;
  double formula = 0;  // the textbook bubble fraction
};

// nullopt when there is no pipeline (no pp axis, no section, or 1 stage and
// 1 micro-batch); an error for a bad combination (naming the field or flag).
Expected<std::optional<PipelineTiming>> pipeline_timing(const ModelFile& model, const PipelineFlags& flags);

struct PipelineReport {
  nlohmann::ordered_json json;
  std::string text;
};

// nullopt when there is no pipeline (no pp axis, no section, or 1 stage and
// 1 micro-batch); an error for a bad combination (naming the field or flag).
Expected<std::optional<PipelineReport>> pipeline_report(const ModelFile& model, const PipelineFlags& flags);

}  // namespace mlc
