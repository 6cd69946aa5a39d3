// The compiler's pass pipeline: the ordered list of passes a model goes through
// after the frontend. `mlc ir --after=PASS` stops after PASS.
//
//   autodiff      @loss -> + @loss_grad
//   optimizer     @loss_grad -> + @train_step, @optimizer_init (needs an optimizer)
//   decompose     composites -> primitives
//   canonicalize  simplify, fold constants, CSE, DCE to a fixed point
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/model_config.h"

namespace mlc {

struct PipelineOptions {
  std::optional<OptimizerConfig> optimizer;  // without it, the optimizer pass is skipped
};

// Pass names in pipeline order.
const std::vector<std::string>& pipeline_passes();

// Runs the pipeline up to and including `last` (all of it when `last` is
// empty). An unknown `last` is an error listing the pipeline.
Status run_pipeline(Module& module, const PipelineOptions& options, const std::string& last = "");

}  // namespace mlc
