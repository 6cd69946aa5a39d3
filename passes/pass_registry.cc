#include <functional>
#include <utility>

#include "passes/autodiff.h"
#include "passes/canonicalize.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/fold_constants.h"
#include "passes/pass.h"
#include "passes/simplify.h"

namespace mlc {

namespace {
using Factory = std::function<std::unique_ptr<Pass>()>;

const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> passes = {
      {"autodiff", [] { return std::make_unique<AutodiffPass>(); }},
      {"decompose", [] { return std::make_unique<DecomposePass>(); }},
      {"simplify", [] { return std::make_unique<SimplifyPass>(); }},
      {"fold-constants", [] { return std::make_unique<FoldConstantsPass>(); }},
      {"cse", [] { return std::make_unique<CsePass>(); }},
      {"dce", [] { return std::make_unique<DcePass>(); }},
      {"canonicalize", [] { return std::make_unique<CanonicalizePass>(); }},
  };
  return passes;
}
}  // namespace

std::unique_ptr<Pass> create_pass(std::string_view name) {
  for (const auto& [n, make] : registry())
    if (n == name) return make();
  return nullptr;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

Expected<bool> run_passes(Module& module, const std::vector<std::string>& names) {
  bool changed = false;
  for (const std::string& name : names) {
    auto pass = create_pass(name);
    if (!pass) {
      std::string known;
      for (const auto& n : pass_names()) known += (known.empty() ? "" : ", ") + n;
      return make_error("error: unknown pass '" + name + "' (known passes: " + known + ")");
    }
    MLC_TRY(bool c, pass->run(module));
    changed |= c;
  }
  return changed;
}

}  // namespace mlc
