#include <functional>
#include <utility>

#include "passes/decompose.h"
#include "passes/pass.h"

namespace mlc {

namespace {
using Factory = std::function<std::unique_ptr<Pass>()>;

const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> passes = {
      {"decompose", [] { return std::make_unique<DecomposePass>(); }},
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
