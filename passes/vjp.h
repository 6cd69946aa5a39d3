// VJP rules: the column of the op table that autodiff reads. Every op of
// ir/ops.def has an entry `vjp_<Enum>` (passes/vjp_rules.cc), so an op added
// without deciding its gradient fails to build.
#pragma once

#include <vector>

#include "ir/builder.h"

namespace mlc {

// Emits the operand gradients of `op` given `dy`, the gradient of its result.
// Rules exist for single-result ops only: an op with several results (split)
// is differentiated through its decomposition.
// `dx` has one slot per operand, initially nullptr; a rule leaves a slot
// nullptr when that operand gets no gradient (integer indices, predicates).
using VjpFn = void (*)(Builder& b, const Op& op, Value* dy, std::vector<Value*>& dx);

// rule: `fn` gives the operand gradients. zero: the gradient is zero by
// definition (compare, argmax, iota, constant): the result does not depend
// differentiably on anything, so autodiff stops there. none: the op has no
// rule yet (the gradient ops of conv and pooling): differentiating through it
// is a compile error naming the op. via_decomposition: a composite
// differentiated through its primitives.
struct VjpRule {
  enum class Kind { rule, zero, none, via_decomposition } kind;
  VjpFn fn = nullptr;
};

const VjpRule& vjp_rule(OpCode code);

// Sums `grad` (shaped like a numpy-broadcast result) down to `shape`.
Value* unbroadcast(Builder& b, Value* grad, const Shape& shape);

}  // namespace mlc
