// Inlining the call ops of a module (ir/ops.def `call`): what gives a custom
// op's call its meaning once autodiff has used its declared gradient.
//
// Contract: inline_calls replaces every call op of every function of `m` by a
// copy of its callee's ops on the call's operands (each copy keeps the
// callee op's loc when it has one, else takes the call's, and takes the
// call's scope), then removes the functions that were called and, for each,
// its @<callee>_vjp (a custom op's gradient, unused once nothing is
// differentiated through the call any more). `m` must verify (callees exist,
// match the calls' types and hold no calls). Returns whether anything changed.
// Inlining before autodiff would differentiate the callee instead of using
// its declared gradient: the pipeline inlines after autodiff (the decompose
// pass).
#pragma once

#include "ir/graph.h"

namespace mlc {

bool inline_calls(Module& m);

}  // namespace mlc
