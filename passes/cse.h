// cse: common-subexpression elimination.
//
// Guarantees, for every function of the module:
//  - Two ops are duplicates when they have the same op code, the same operand
//    values (the same Value pointers, in order, after earlier replacements),
//    attributes that print identically (name and value text, in order) and the
//    same result type, and the op is not effectful (the op table's kEffectful
//    trait). Such duplicates compute the same value. Metadata (OpMeta: the
//    scope) is not compared; the kept op keeps its own.
//  - Of each set of duplicates the first in program order is kept; every use of
//    a later one (by ops and by the function's results) is redirected to it, and
//    the later op is removed. This includes zero-operand ops (`constant`, `iota`).
//  - Chains collapse in one run: once two ops are merged, ops that differed only
//    by using them become duplicates too.
//  - Arguments, other ops and their order are unchanged; the kept op keeps its loc.
//  - Expected linear time: one hash-map lookup per op, keyed on
//    (code, operand pointers, printed attrs, result type).
// Constants whose values are equal but print differently (`1` and `1.0` in an
// f32 constant) are not merged.
#pragma once

#include "passes/pass.h"

namespace mlc {

// Merges duplicate ops of `f`; returns whether any op was removed.
bool eliminate_common_subexpressions(Function& f);

class CsePass : public Pass {
 public:
  std::string_view name() const override { return "cse"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
