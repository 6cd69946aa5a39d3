// lr_plateau: ReduceLROnPlateau's learning rates as run-time values. With
// train.schedule "plateau" the lr of every parameter group is a {state}
// argument of @train_step and @apply_update (ir/lr_plateau_state.h gives the
// names and order), which the update reads where another schedule's lr is
// computed from the step (passes/lr_schedule.h); the scheduler's counters
// follow as {state} arguments the update does not read. @optimizer_init
// gives each group's configured lr and zero counters.
#pragma once

#include <vector>

#include "ir/builder.h"
#include "ir/model_config.h"

namespace mlc {

struct PlateauArgs {
  std::vector<Value*> lrs;  // by group: [0] the optimizer's, [i + 1] param_groups[i]'s
};

// Appends the scheduler's {state} arguments to `f`; none unless `config`'s schedule is "plateau".
PlateauArgs add_plateau_args(Function& f, const OptimizerConfig& config);

// Their initial values in argument order, appended to `results`.
void add_plateau_initial_state(Builder& b, const OptimizerConfig& config, std::vector<Value*>& results);

}  // namespace mlc
