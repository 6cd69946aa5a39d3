#include "passes/canonicalize.h"

#include "passes/cse.h"
#include "passes/dce.h"
#include "passes/fold_constants.h"
#include "passes/simplify.h"

namespace mlc {

bool canonicalize(Function& f, int max_rounds, int* rounds) {
  int changed_rounds = 0;
  for (int round = 0; round < max_rounds; ++round) {
    bool changed = simplify(f);
    changed |= fold_constants(f);
    changed |= eliminate_common_subexpressions(f);
    changed |= eliminate_dead_ops(f);
    if (!changed) break;
    ++changed_rounds;
  }
  if (rounds) *rounds = changed_rounds;
  return changed_rounds > 0;
}

Expected<bool> CanonicalizePass::run(Module& module) {
  return rewrite_each_function(module, [this](Function& f) { return canonicalize(f, max_rounds_); });
}

std::vector<PassOption> CanonicalizePass::options() {
  return {integer_option("max-rounds", &max_rounds_, 1, 1024, "most rounds of its rewrites (simplify, cse, ...)")};
}

}  // namespace mlc
