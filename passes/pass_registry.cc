#include <algorithm>
#include <functional>
#include <utility>

#include "passes/autocast.h"
#include "passes/autodiff.h"
#include "passes/canonicalize.h"
#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/decompose.h"
#include "passes/fold_constants.h"
#include "passes/pass.h"
#include "passes/sharding.h"
#include "passes/simplify.h"

namespace mlc {

namespace {
using Factory = std::function<std::unique_ptr<Pass>()>;

const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> passes = {
      {"autocast", [] { return std::make_unique<AutocastPass>(); }},
      {"autodiff", [] { return std::make_unique<AutodiffPass>(); }},
      {"decompose", [] { return std::make_unique<DecomposePass>(); }},
      {"simplify", [] { return std::make_unique<SimplifyPass>(); }},
      {"fold-constants", [] { return std::make_unique<FoldConstantsPass>(); }},
      {"cse", [] { return std::make_unique<CsePass>(); }},
      {"dce", [] { return std::make_unique<DcePass>(); }},
      {"canonicalize", [] { return std::make_unique<CanonicalizePass>(); }},
      {"sharding", [] { return std::make_unique<ShardingPass>(); }},
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

Expected<std::vector<PassSpec>> parse_pass_list(std::string_view text) {
  std::vector<PassSpec> out;
  auto fail = [&](const std::string& what, size_t at) {
    return make_error("error: pass list '" + std::string(text) + "': " + what + " at column " + std::to_string(at + 1));
  };
  size_t i = 0;
  while (i < text.size()) {
    PassSpec spec;
    size_t start = i;
    while (i < text.size() && text[i] != ',' && text[i] != '{') {
      if (text[i] == '}' || text[i] == '=') return fail(std::string("unexpected '") + text[i] + "'", i);
      ++i;
    }
    spec.name = std::string(text.substr(start, i - start));
    if (spec.name.empty()) return fail("a pass name is missing", start);
    if (i < text.size() && text[i] == '{') {
      const size_t open = i++;
      for (;;) {
        size_t close = text.find('}', i);
        if (close == std::string_view::npos) return fail("unbalanced '{'", open);
        size_t end = std::min(text.find(',', i), close);
        std::string_view item = text.substr(i, end - i);
        size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
          return fail("an option is key=value, got '" + std::string(item) + "'", i);
        spec.options.emplace_back(std::string(item.substr(0, eq)), std::string(item.substr(eq + 1)));
        i = end + 1;
        if (end == close) break;
      }
    }
    if (i < text.size()) {
      if (text[i] != ',') return fail(std::string("expected ',' after a pass, got '") + text[i] + "'", i);
      ++i;
      if (i == text.size()) return fail("a pass name is missing", i);
    }
    out.push_back(std::move(spec));
  }
  return out;
}

Expected<bool> run_passes(Module& module, const std::vector<PassSpec>& passes) {
  bool changed = false;
  for (const PassSpec& spec : passes) {
    auto pass = create_pass(spec.name);
    if (!pass) {
      std::string known;
      for (const auto& n : pass_names()) known += (known.empty() ? "" : ", ") + n;
      return make_error("error: unknown pass '" + spec.name + "' (known passes: " + known + ")");
    }
    for (const auto& [key, value] : spec.options) MLC_CHECK_OK(pass->set_option(key, value));
    MLC_TRY(bool c, pass->run(module));
    changed |= c;
  }
  return changed;
}

Expected<bool> run_passes(Module& module, const std::vector<std::string>& names) {
  std::vector<PassSpec> specs;
  for (const std::string& name : names) {
    MLC_TRY(std::vector<PassSpec> one, parse_pass_list(name));
    for (PassSpec& s : one) specs.push_back(std::move(s));
  }
  return run_passes(module, specs);
}

}  // namespace mlc
