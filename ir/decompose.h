// Expanding composite ops by their op-table decompositions (ir/ops.def's last
// column): the meaning of a composite, which the decompose pass, autodiff and
// the reference interpreter all use.
//
// Contract: decompose_composites replaces every composite op of `f` (one whose
// row has a decomposition) by its primitives, repeating until none is left,
// except those for which keep(op) is true. Replacement ops carry the
// composite's loc and scope. Returns whether anything changed.
#pragma once

#include "ir/graph.h"

namespace mlc {

bool decompose_composites(Function& f, bool (*keep)(const Op&) = nullptr);

}  // namespace mlc
