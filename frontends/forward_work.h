// The work budget of forward statements (docs/limits.md, "forward
// operations"): what an expression emits itself and the layer calls it makes.
#pragma once

#include "frontends/forward_expr.h"

namespace mlc {

// Adds the work of one expression to the program's: `ops` bounds the ops its
// operators, built-in calls and literals emit (each its max_ops), `calls`
// counts its calls of each layer.
void count_work(const Expr& root, ForwardProgram& program);

}  // namespace mlc
