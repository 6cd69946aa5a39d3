// simplify: algebraic identities that are exact in IEEE arithmetic.
//
// Guarantees, for every function of the module: each rewrite below gives, for
// every input, bit-for-bit the value the runtime computes without it
// (infinities, NaN and the sign of zero included; only a signaling NaN, which
// the arithmetic would have quieted, may pass through unquieted). A "splat" is a `constant` op with
// a scalar value, read in its dtype as the runtime does (fold_constants.h).
// "-> x" means: every use of the op's result (by ops and by the function's
// results) now uses x and the op is removed; it is done only when x has exactly
// the op's result type, so no broadcasting or shape change is lost.
//  - add(x, z), add(z, x) -> x where z is a splat -0.0 for float dtypes (x + -0.0
//    == x for every x) or 0 for integers. A float +0.0 is NOT removed: -0.0 + 0.0
//    is +0.0.
//  - sub(x, z) -> x where z is a splat +0.0 for float dtypes (x - 0.0 == x for
//    every x) or 0 for integers.
//  - mul(x, 1), mul(1, x), div(x, 1) -> x.
//  - neg(neg(x)) -> x.
//  - select(c, x, x) -> x; select(true, x, y) -> x and select(false, x, y) -> y
//    for a splat predicate.
//  - cast(x) to x's own dtype -> x.
//  - reshape, broadcast, slice, pad, concat of one operand: when the result
//    type equals the operand's, the op is the identity -> x (for broadcast the
//    dims are then 0..r-1; for slice every dim is whole with stride 1 or has
//    size <= 1; for pad nothing is padded).
//  - transpose with the identity perm -> x.
//  - reshape(reshape(x)) -> reshape(x); transpose(transpose(x)) -> one transpose
//    with the composed perm: the outer op is changed in place to read x (then
//    -> x if it became an identity). The inner op stays (dce removes it if dead).
// Nothing else: in particular x * 0 -> 0 and x - x -> 0 are not done (NaN, inf).
// One pass in program order, so chains collapse at once; linear time. Removed
// ops leave no dead values; ops that became unused are left for dce.
#pragma once

#include "passes/pass.h"

namespace mlc {

// Applies the rewrites to `f`; returns whether anything changed.
bool simplify(Function& f);

class SimplifyPass : public Pass {
 public:
  std::string_view name() const override { return "simplify"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
