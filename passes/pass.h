// The pass interface: a named Module -> Module rewrite.
//
// `run` returns whether it changed the module, or an Error. Passes keep the
// module valid: every op still verifies and ops stay in program order.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual Expected<bool> run(Module& module) = 0;
};

// Applies a per-function rewrite (returning whether it changed the function)
// to every function of `module`; the body of most passes' `run`.
template <class Rewrite>
bool rewrite_each_function(Module& module, Rewrite rewrite) {
  bool changed = false;
  for (auto& f : module.functions) changed |= rewrite(*f);
  return changed;
}

// The pass named `name` (as given to `mlc opt --passes`), or nullptr.
std::unique_ptr<Pass> create_pass(std::string_view name);
// Names of every registered pass, in a stable order.
std::vector<std::string> pass_names();
// Runs passes in order; an unknown name is an error listing the known ones.
Expected<bool> run_passes(Module& module, const std::vector<std::string>& names);

}  // namespace mlc
