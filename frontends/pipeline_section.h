// The "parallel" section's "pipeline" object (docs/model-format.md#parallel):
//
//   "pipeline": {"stages": 2, "microbatches": 4, "schedule": "1f1b",
//                "virtual_stages": 1, "split_before": ["layers.1"]}
//
// Contracts:
//  - stages (1..4096, default 1), microbatches (default: stages),
//    virtual_stages (default 1) are integers; schedule is gpipe, 1f1b,
//    interleaved or zb1p (default 1f1b, interleaved when virtual_stages > 1);
//    the combination must make a schedule (ir/pipeline_schedule.h
//    make_pipeline_schedule), whose error is at the field it names.
//  - split_before lists stages·virtual_stages - 1 top-level layers
//    (ModelConfig::layers: "layers.2" for a repeat's copy) in model order,
//    each where a stage may start (ir/pipeline_stages.h
//    pipeline_cut_refusal).
//  - Every error names the field, "parallel.pipeline.stages: ...", at its
//    value (or the entry of split_before).
#pragma once

#include <vector>

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

Expected<PipelineConfig> parse_pipeline(const JsonDoc& doc, const Node& node, const std::vector<TopLayer>& layers);

}  // namespace mlc
