// Training with torch.optim.LBFGS (optimizer "lbfgs"; docs/model-format.md).
// LBFGS re-evaluates the loss and its gradient several times per optimizer
// step (PyTorch's closure), so there is no compiled @train_step: each step
// runs the step's batch through @loss_grad (the compiled loss and gradient,
// or the interpreter's) as often as the algorithm asks, with the parameters
// it proposes, and the two-loop recursion and the parameter updates run on
// the host (driver/lbfgs_step.h; the strong Wolfe line search,
// driver/lbfgs_wolfe.h, evaluates at the points it tries). A step's reported loss is the closure's
// first loss, at the parameters the step started from (what
// optimizer.step(closure) returns). Evaluation runs after every epoch's end
// and every eval_every steps, as for the other optimizers.
//
// One device; no checkpoints, --resume or gradient accumulation, and no
// forward buffers (BatchNorm's running statistics), each refused by
// check_lbfgs with an Error naming the model file.
#pragma once

#include <string>

#include "driver/rank.h"
#include "driver/train.h"

namespace mlc {

bool is_lbfgs(const ModelConfig& config);

Status check_lbfgs(const ModelConfig& config, const TrainOptions& o, const std::string& mesh);

// The training loop of an LBFGS run from `setup` (prepare_training's: data,
// steps and initial parameters; no optimizer state).
Expected<TrainSummary> train_lbfgs(const TrainSetup& setup, const TrainOptions& o, FunctionCache& functions);

}  // namespace mlc
