// Half-precision scatter_add as an f32 one: the form in which lowering
// (compiler/lower.h) runs a bf16 or f16 scatter_add, so that it compiles to
// the f32 scatter_add loop kernel (kir::Kernel::scatter) instead of keeping
// its reference kernel.
//
// The reference kernel of a half scatter_add (runtime/kernels/indexing.cc)
// converts the operand to float, adds the updates converted to float in
// row-major order of the updates and rounds each element once. A loop
// kernel adds in its output's dtype, in place, which in a half dtype would
// round after every add. So
//   scatter_add(operand, indices, updates)        [bf16 or f16]
// becomes
//   cast(scatter_add(cast(operand, f32), indices, cast(updates, f32)), half)
// The casts to f32 are exact, the f32 kernel adds each element's terms in
// the reference kernel's order (kir::Kernel::scatter), and the last cast
// rounds once to nearest even, as the reference kernel's from_float does:
// the result is bit for bit the interpreter's.
//
// The rewritten values have the original's types, locations and scopes.
// Other ops, and scatter_adds of other dtypes, are left alone.
#pragma once

#include "ir/graph.h"

namespace mlc {

// Rewrites the bf16 and f16 scatter_adds of `f` as above; returns whether
// anything changed.
bool half_scatter_adds_in_f32(Function& f);

}  // namespace mlc
