#include "passes/dce.h"

#include <unordered_set>

#include "ir/op_table.h"

namespace mlc {

bool eliminate_dead_ops(Function& f) {
  std::unordered_set<const Value*> live;
  live.reserve(f.ops.size() + f.results.size());
  live.insert(f.results.begin(), f.results.end());
  std::vector<bool> keep(f.ops.size(), false);
  // Walk backwards: an op is live if one of its results is (or it has an
  // effect); then its operands are too.
  for (size_t i = f.ops.size(); i-- > 0;) {
    const Op& op = *f.ops[i];
    bool used = false;
    for (const Value* r : op.results) used = used || live.count(r);
    if (!used && !op_info(op.code).has(kEffectful)) continue;
    keep[i] = true;
    live.insert(op.operands.begin(), op.operands.end());
  }
  return erase_ops(f, keep);
}

bool erase_ops(Function& f, const std::vector<bool>& keep) {
  size_t kept = 0;
  for (size_t i = 0; i < f.ops.size(); ++i) {
    if (!keep[i]) continue;
    if (kept != i) f.ops[kept] = std::move(f.ops[i]);
    ++kept;
  }
  if (kept == f.ops.size()) return false;
  f.ops.resize(kept);
  f.erase_dead_values();
  return true;
}

Expected<bool> DcePass::run(Module& module) {
  return rewrite_each_function(module, eliminate_dead_ops);
}

}  // namespace mlc
