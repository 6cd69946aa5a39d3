// Pipeline stage cuts (docs/model-format.md, parallel.pipeline): the model's
// top-level layers (ModelConfig::layers, a repeat's copies one by one) cut
// into S = stages·virtual_stages contiguous stages, either where the model
// file's split_before says or balanced by forward FLOPs.
//
// Megatron-LM's accounting: the layers before the first repeat block (the
// embedding) stay together on the first stage, the layers after the last
// block (final norm, head) and the loss on the last. A model without a repeat
// has no such groups: every top-level layer is a unit, the loss is on the
// last stage. Stages are never empty.
//
// Ops belong to the top-level layer whose scope (OpMeta::scope) they carry or
// are under; an op without one (a container's forward statement at top level,
// the loss) belongs to the layer of the op before it in program order (the
// first layer when none). A value produced by an op of stage s and read by an
// op of stage t > s crosses cuts s..t-1 (cut k is between stages k and k+1);
// when t > s+1 the stages between send it along. Function arguments (inputs,
// parameters) cross nothing: each stage reads its own; nor do the values of
// ops without operands (constants, iota), which each stage computes itself
// (passes/pipeline_split.h).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/model_config.h"

namespace mlc {

// "" when a stage may start at layers[i]; otherwise why not:
//   "'tok_emb' is the first layer"
//   "'pos_emb' is among the layers before the first block (tok_emb, pos_emb), which the first stage holds"
//   "'head' is among the layers after the last block (norm, head), which the last stage holds with the loss"
std::string pipeline_cut_refusal(const std::vector<TopLayer>& layers, size_t i);

// The start indices of stages 1..S-1: a contiguous partition of `layers`
// (cut only where pipeline_cut_refusal allows) minimizing the most expensive
// stage's summed `cost`, exact by dynamic programming; ties go to the
// earliest cut. An error when there are fewer places to cut than S-1:
//   "parallel.pipeline.stages: 8 stages need 7 cuts, but tiny_gpt's layers allow 3 (...)"
Expected<std::vector<size_t>> balanced_pipeline_cuts(const std::vector<TopLayer>& layers,
                                                     const std::vector<int64_t>& cost, int stages);

// A value that crosses a cut.
struct PipelineCrossing {
  std::string producer;  // "add in layers.0", the op and its scope ("" at top level: "add")
  TensorType type;
  int64_t bytes = 0;
  int from_stage = 0, to_stage = 0;  // produced in, last read in
};

struct PipelineStageInfo {
  std::vector<std::string> layers;  // top-level layer names; the last stage also "loss"
  int64_t flops = 0;                // forward FLOPs (op_cost)
  int64_t params = 0;               // parameter elements (buffers excluded)
  int64_t activation_bytes = 0;     // kept for backward, per micro-batch (0 until filled)
};

struct PipelineStagePlan {
  std::vector<size_t> cuts;  // start index of stages 1..S-1 in ModelConfig::layers
  std::vector<PipelineStageInfo> stages;
  // Per cut k (between stages k and k+1): the values that cross it, in
  // program order of their producers; a crossing with to_stage > k+1 is sent
  // along by stage k+1.
  std::vector<std::vector<PipelineCrossing>> crossings;
};

// The top-level layer each op of `f` belongs to (see above), by op.
std::vector<size_t> pipeline_op_layers(const Function& f, const std::vector<TopLayer>& layers);

// Stages of `forward` (the built @loss at one micro-batch) under the model
// file's pipeline section and `stages` = p·v: explicit split_before cuts, or
// balanced by FLOPs per layer. Parameters are counted from `params`.
Expected<PipelineStagePlan> plan_pipeline_stages(const Function& forward, const std::vector<TopLayer>& layers,
                                                 const std::vector<ParamInfo>& params,
                                                 const std::vector<std::string>& split_before, int stages);

// The stage of each op of `f` under `cuts` (PipelineStagePlan::cuts): the
// stage of its layer (pipeline_op_layers).
std::vector<int> pipeline_op_stages(const Function& f, const std::vector<TopLayer>& layers,
                                    const std::vector<size_t>& cuts);

// The ops that the first result (the loss) of `f` depends on.
std::unordered_set<const Op*> loss_forward_ops(const Function& f);

// Adds each stage's activations kept for backward to plan.stages: values of
// @loss_grad's forward ops (those the loss depends on) that a backward op
// reads, by the stage of their producer.
void add_pipeline_activation_bytes(const Function& loss_grad, const std::vector<TopLayer>& layers,
                                   PipelineStagePlan& plan);

}  // namespace mlc
