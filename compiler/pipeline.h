// The compiler's pass pipeline: the ordered list of passes a model goes through
// after the frontend. `mlc ir --after=PASS` stops after PASS.
#pragma once

#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

// Pass names in pipeline order.
const std::vector<std::string>& pipeline_passes();

// Runs the pipeline up to and including `last` (all of it when `last` is
// empty). An unknown `last` is an error listing the pipeline.
Status run_pipeline(Module& module, const std::string& last = "");

}  // namespace mlc
