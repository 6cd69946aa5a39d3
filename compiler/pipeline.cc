#include "compiler/pipeline.h"

#include <algorithm>

#include "passes/pass.h"

namespace mlc {

const std::vector<std::string>& pipeline_passes() {
  static const std::vector<std::string> passes = {"decompose", "canonicalize"};
  return passes;
}

Status run_pipeline(Module& module, const std::string& last) {
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
  auto changed = run_passes(module, std::vector<std::string>(all.begin(), end));
  if (!changed) return changed.take_error();
  return {};
}

}  // namespace mlc
