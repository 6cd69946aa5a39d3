// A pipeline schedule as a Gantt chart in SVG (`mlc plan --format svg`): pure
// SVG text, no scripts and no external resources, with its colours as
// attributes, so that it renders on its own, in a browser or an <img>.
//
// Contract of render_pipeline_gantt: one <svg class="pipeline-gantt"> with a
// title, and
//  - per pipeline rank r a <g class="rank" data-rank="r">, its label, and one
//    <rect class="action K" data-action="K<s>.<j>"> per compute action (K one
//    of F, B, I, W) from the timeline's start to its end (ir/pipeline_schedule.h
//    simulate_pipeline_schedule: the times of the text grid of `mlc plan`,
//    also given as data-start and data-end in the timeline's units),
//    filled with K's colour (pipeline_gantt_colour), with a
//    <title> and, where the box is wide enough, a <text class="label">
//    "<s>.<j>" (stage.micro-batch);
//  - per send a thin <line class="message F|B"> from the send on its rank's
//    row to its receive on the peer's row (vertical where the receive is not
//    delayed);
//  - an x axis of time with ticks at a 1-2-5 step, in ms (`ms_per_unit` > 0)
//    or in the timeline's units;
//  - a legend of the kinds the schedule has (<rect class="legend-swatch K">);
//  - a caption: the simulated bubble fraction next to the textbook formula
//    and its value (pipeline_bubble_formula), then `notes`, one line each.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "driver/plan_pipeline.h"
#include "driver/plan_cost.h"
#include "ir/pipeline_schedule.h"

namespace mlc {

struct GanttOptions {
  std::string title;
  double ms_per_unit = 0;           // 0: the axis in the timeline's units
  std::vector<std::string> notes;   // caption lines after the bubble's
  int width = 1100;
};

// "#rrggbb" of a compute action's box: F blue, B orange, I green, W purple.
std::string_view pipeline_gantt_colour(PipelineActionKind kind);

std::string render_pipeline_gantt(const PipelineSchedule& schedule, const PipelineTimeline& timeline,
                                  const PipelineDurations& durations, const GanttOptions& options);

// The chart of the pipeline `mlc plan` plans for `model` (pipeline_timing:
// the text grid's durations and slots), its time unit of FLOPs converted to
// ms at `gflops`, else this host's f32 GEMM rate (host_rates: cached, or
// measured in about a second). An error where there is no pipeline (no pp
// axis and no parallel.pipeline) or the plan's own.
Expected<std::string> pipeline_gantt_svg(const ModelFile& model, const PipelineFlags& flags,
                                         std::optional<double> gflops);

}  // namespace mlc
