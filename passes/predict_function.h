// The model's outputs as a function of its inputs (`mlc predict`,
// driver/predict.h): @predict is @eval (evaluation mode: no dropout, running
// statistics) whose result is what its loss compares with the targets (the
// loss op's first operand: a classifier's logits, a regression's values),
// the loss, metrics and every argument nothing reads any more (the targets)
// dropped.
//
//   @predict(<inputs the forward reads> {input}..., <params and buffers>...) -> (outputs)
//
// Contract: `eval` is @eval as the frontend builds it (calls inlined); its
// first result is produced by a loss op (cross_entropy, mse, ...) whose
// operand 0 is the model's output. Errors name what is missing.
#pragma once

#include <memory>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

// @predict, made from `eval`.
Expected<std::unique_ptr<Function>> build_predict_function(const Function& eval);

// `f` without the ops and arguments its results do not read (the targets of
// @eval, the inputs a module's output does not depend on), the others in
// their order.
void drop_unread(Function& f);

}  // namespace mlc
