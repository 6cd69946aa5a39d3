// The "phases" field of a model file's "train" section (docs/model-format.md,
// `train.phases`): training in phases, as a GAN trains its discriminator and
// then its generator in every step, each with its own loss and optimizer.
//
// Contracts:
//  - parse_phases reads an object of phases in file order, each
//      {"params": PATTERNS, "buffers": PATTERNS (optional), "optimizer": {...},
//       "schedule": {...} (optional), "clip_grad_norm": N (optional),
//       "loss": [forward statements ending in return]}
//    and resolves the patterns (glob, as param_groups match) against the
//    model's parameters: a phase trains the trainable parameters its
//    patterns match; phases' sets are disjoint and every trainable parameter
//    is in one (errors name the pattern, the parameter and both phases).
//    `buffers` (default: every buffer) are the buffers the phase's forward
//    updates. `loss` is parsed as a forward of the top-level model (a
//    container without "forward"), over the model's inputs and its modules;
//    its value must be a 0-d float tensor (checked by the trial build).
//  - The phase's optimizer is any but "lbfgs", its schedule any but "plateau".
#pragma once

#include <vector>

#include "frontends/forward_expr.h"
#include "frontends/json_doc.h"
#include "frontends/model_limits.h"
#include "frontends/module_tree.h"
#include "ir/model_config.h"

namespace mlc {

struct PhasesSection {
  std::vector<PhaseConfig> phases;
  std::vector<ForwardProgram> losses;  // one per phase
  Work work;                           // of emitting every loss once
};

// The losses' work (every phase's forward emitted once, as the trial build
// does) is checked against `limits` like a forward's.
Expected<PhasesSection> parse_phases(const JsonDoc& doc, const Node& node, const ModuleNode& model,
                                     const std::vector<InputInfo>& inputs, const std::vector<ParamInfo>& params,
                                     const CustomOps* custom, const ModelLimits& limits);

}  // namespace mlc
