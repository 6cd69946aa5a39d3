// ReduceLROnPlateau in the training loop (docs/model-format.md,
// `train.schedule` "plateau"): PyTorch's
//
//   val_loss = validate(...)      # after every evaluation
//   scheduler.step(val_loss)
//
// The learning rates and the scheduler's counters are optimizer state
// (ir/lr_plateau_state.h, passes/lr_plateau.h): the loop steps them on the
// host after each evaluation, so the next update reads the new lr, and
// checkpoints hold them, so --resume continues the scheduler bit for bit.
#pragma once

#include <string>
#include <vector>

#include "frontends/model_file.h"
#include "runtime/parameters.h"

namespace mlc {

// A plateau schedule's demands: one device (`mesh` empty) and no dynamic loss
// scaling; an Error naming the model file otherwise. Other schedules pass.
Status check_plateau(const ModelConfig& config, const std::string& mesh);

// True when `config`'s schedule is "plateau".
bool has_plateau(const ModelConfig& config);

// The metric the schedule steps on ("loss" or "accuracy"), of an evaluation
// whose loss is `loss` and accuracy `accuracy` (an Error naming the model
// file when accuracy is asked of a model without one).
Expected<double> plateau_metric(const ModelConfig& config, double loss, const std::optional<double>& accuracy);

// torch.optim.lr_scheduler.ReduceLROnPlateau.step(metric) (torch 1.13) on the
// scheduler's state in `state` (host tensors, ir/lr_plateau_state.h's names),
// in place: the counters, and each group's lr lowered to max(lr * factor,
// min_lr) where that lowers it by more than eps.
Status plateau_step(const ScheduleConfig& schedule, double metric, std::vector<rt::NamedTensor>& state);

}  // namespace mlc
