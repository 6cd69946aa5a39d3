// canonicalize: simplify, fold-constants, cse and dce, repeated.
//
// Guarantees, for every function of the module:
//  - Runs the four passes in that order (see their headers for what each
//    guarantees) as one round, and repeats rounds until a round changes
//    nothing, or kMaxCanonicalizeRounds rounds have run. When it stops before
//    the cap, the function is a fixed point: running any of the four again
//    changes nothing.
//  - Reaching the cap is not an error: the function is then valid but may not
//    be fully canonical.
//  - Everything the four passes guarantee holds: the module stays verifiable
//    and computes bit-for-bit what it computed before (up to the runtime
//    errors of ops that became unused and the NaN caveat of simplify).
#pragma once

#include "passes/pass.h"

namespace mlc {

inline constexpr int kMaxCanonicalizeRounds = 16;

// Canonicalizes `f` with at most `max_rounds` rounds; returns whether anything
// changed. `rounds`, if given, receives the number of rounds that changed something.
bool canonicalize(Function& f, int max_rounds = kMaxCanonicalizeRounds, int* rounds = nullptr);

// Options: max-rounds=N (1..1024, default kMaxCanonicalizeRounds).
class CanonicalizePass : public Pass {
 public:
  std::string_view name() const override { return "canonicalize"; }
  Expected<bool> run(Module& module) override;
  std::vector<PassOption> options() override;

 private:
  int max_rounds_ = kMaxCanonicalizeRounds;
};

}  // namespace mlc
