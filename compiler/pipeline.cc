#include "compiler/pipeline.h"

#include <algorithm>

#include "passes/optimizer.h"
#include "passes/pass.h"

namespace mlc {

const std::vector<std::string>& pipeline_passes() {
  static const std::vector<std::string> passes = {"autodiff", "optimizer", "decompose", "canonicalize"};
  return passes;
}

Status run_pipeline(Module& module, const PipelineOptions& options, const std::string& last) {
  const auto& all = pipeline_passes();
  auto end = all.end();
  if (!last.empty()) {
    auto it = std::find(all.begin(), all.end(), last);
    if (it == all.end()) {
      std::string names;
      for (const auto& n : all) names += (names.empty() ? "" : ", ") + n;
      return make_error("error: no pass '" + last + "' in the pipeline (" + names + ")");
    }
    end = it + 1;
  }
  for (auto it = all.begin(); it != end; ++it) {
    std::unique_ptr<Pass> pass;
    if (*it == "optimizer") {
      if (!options.optimizer) continue;
      pass = std::make_unique<OptimizerPass>(*options.optimizer);
    } else {
      pass = create_pass(*it);
    }
    auto changed = pass->run(module);
    if (!changed) return changed.take_error();
  }
  return {};
}

}  // namespace mlc
