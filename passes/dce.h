// dce: dead-op elimination.
//
// Guarantees, for every function of the module:
//  - An op is removed exactly when it is not effectful (the op table's
//    kEffectful trait) and its result is not used, directly or through other
//    ops, by the function's results or an effectful op. Removing such an op
//    never changes what the function computes.
//  - Function arguments are never removed, used or not; the results list is
//    unchanged.
//  - The remaining ops keep their relative program order, attributes and locs.
//  - Linear time in the number of ops and operands.
// Runtime errors an unused op would have raised (an out-of-range gather index,
// an integer division by zero) disappear with it.
#pragma once

#include <vector>

#include "passes/pass.h"

namespace mlc {

// Removes the ops of `f` whose results are unused; returns whether any was removed.
bool eliminate_dead_ops(Function& f);

// Removes the ops f.ops[i] with keep[i] == false (keep has one entry per op),
// keeping the order of the others, then frees the values left unreachable.
// The caller guarantees that no remaining op or result uses a removed result.
// Returns whether any op was removed. Shared by the rewriting passes.
bool erase_ops(Function& f, const std::vector<bool>& keep);

class DcePass : public Pass {
 public:
  std::string_view name() const override { return "dce"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
