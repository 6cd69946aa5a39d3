// fold-constants: evaluates ops whose operands are all splat constants.
//
// A splat constant is a `constant` op whose value is a single number (not a
// list). Guarantees, for every function of the module:
//  - An op is folded only when every operand is a splat constant and its result
//    is then the same number everywhere. The op is turned, in place, into
//    `constant() {value = v}` with its own result type and loc, so its uses and
//    program position are unchanged. The operand constants are left in place
//    (run dce to remove those that became unused).
//  - Folded ops: the elementwise unary and binary ops, compare, select and cast;
//    broadcast, reshape, transpose, slice and reduce_max/reduce_min (the value
//    is unchanged); pad when its fill value, converted to the dtype, equals the
//    splat (or nothing is padded); concat of equal splats; reduce_sum (below);
//    argmax (always index 0). Nothing else is folded: not iota, dot, conv2d,
//    pooling, gather or scatter_add, nor any op without operands, nor the
//    composites (relu, softmax, ...: run decompose first, then their
//    primitives fold).
//  - Ops the runtime can fail on are left alone, so the error stays: integer
//    division by zero, and casts of NaN, infinities or out-of-range floats to
//    integers.
//
// Numerics: a folded value is bit-for-bit what the reference kernels
// (runtime/kernels/) compute for the dtype.
//  - A constant's value is first converted to its dtype with one rounding, as
//    the constant kernel does: to f32 by a float cast, to bf16/f16 by rounding
//    to nearest even, i32 wraps, bool is x != 0.
//  - Arithmetic is done in the kernels' compute type: float for f32, bf16 and
//    f16 (the float result then rounded once to bf16/f16), double for f64,
//    two's-complement wrapping for i32/i64. The formulas are the kernels' (e.g.
//    exp of an f32 is std::exp(float), rsqrt is 1 / sqrt(x), sigmoid uses its
//    stable two-sided form, max/min return the first NaN operand).
//  - reduce_sum of a splat v over n elements: the kernel adds n times in a
//    double (floats) or a wrapping int64 (integers) and rounds once to the
//    dtype. Integers fold to v * n with wrap-around. Floats fold to the double
//    product v * n rounded once to the dtype, but only when every partial sum
//    is exact in double (odd mantissa of v times n < 2^53: always for f32,
//    bf16 and f16 when n < 2^29), so that the product equals the kernel's sum;
//    NaN and infinities fold to themselves, n == 0 to 0.
//  - The folded value is written as the shortest decimal number that converts
//    back to exactly the same element of the dtype (0.1, not
//    0.10000000149011612, for an f32), so folded and hand-written constants
//    print alike. NaN prints as `nan`, which drops its sign bit.
#pragma once

#include <cstdint>
#include <optional>

#include "passes/pass.h"

namespace mlc {

// The element of a splat tensor, as the runtime holds it.
struct Splat {
  DType dtype = DType::f32;
  double f = 0;   // float dtypes: the element's exact value
  int64_t i = 0;  // i32, i64, bool (0 or 1): the element's value
};

// The element of `v` when `v` is the result of a splat constant, converted to
// v's dtype as the runtime's constant kernel does; nullopt otherwise.
std::optional<Splat> splat_value(const Value* v);
// The `value` attribute of a constant of dtype s.dtype holding `s` (see the
// header comment: shortest decimal for floats, an Int otherwise).
AttrValue splat_attr(const Splat& s);

// Folds the ops of `f` whose operands are splat constants; returns whether any
// op was folded. One pass in program order, so chains fold at once.
bool fold_constants(Function& f);

class FoldConstantsPass : public Pass {
 public:
  std::string_view name() const override { return "fold-constants"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
