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
  // Sets option `key` (as in `canonicalize{max-rounds=4}`); an unknown key or
  // a bad value is an Error naming the pass, the key and what it takes.
  virtual Status set_option(std::string_view key, std::string_view value);
};

// One entry of a pass list: `name` or `name{key=value,key=value}`.
struct PassSpec {
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;
};
// Parses "a,b{k=v,k2=v2},c" (commas inside braces separate options). Errors
// name the position: "error: pass list: unbalanced '{' at column 3".
Expected<std::vector<PassSpec>> parse_pass_list(std::string_view text);
// An option value as an integer in [lo, hi], or an Error naming pass and key.
Expected<int64_t> int_option(std::string_view pass, std::string_view key, std::string_view value, int64_t lo,
                             int64_t hi);

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
// Runs passes in order; each name may carry options (`name{k=v}`, see
// parse_pass_list). An unknown name is an error listing the known ones.
Expected<bool> run_passes(Module& module, const std::vector<std::string>& names);
Expected<bool> run_passes(Module& module, const std::vector<PassSpec>& passes);

}  // namespace mlc
