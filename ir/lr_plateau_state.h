// ReduceLROnPlateau's state as optimizer state (docs/model-format.md,
// `train.schedule` "plateau"): the names of the {state} arguments the
// optimizer pass adds (passes/lr_plateau.h) and the driver writes after each
// evaluation (driver/lr_plateau.h), after every parameter's own state, in
// this order:
//   lr_scheduler.lr                    f64[]  the optimizer's (group 0's) lr
//   lr_scheduler.param_groups.<i>.lr   f64[]  param_groups[i]'s lr, i = 0, 1, ...
//   lr_scheduler.best                  f64[]  the best metric so far (unset while last_epoch is 0)
//   lr_scheduler.num_bad_epochs        i64[]
//   lr_scheduler.cooldown_counter      i64[]
//   lr_scheduler.last_epoch            i64[]  evaluations the scheduler has stepped on
// The update reads only the lrs; a checkpoint holds them all, so --resume
// continues the scheduler where it was.
#pragma once

#include <cstddef>
#include <string>

namespace mlc::plateau {

// `group` 0: the optimizer's own settings; i + 1: param_groups[i].
inline std::string lr_name(size_t group) {
  return group == 0 ? "lr_scheduler.lr" : "lr_scheduler.param_groups." + std::to_string(group - 1) + ".lr";
}
inline constexpr const char* kBest = "lr_scheduler.best";
inline constexpr const char* kNumBadEpochs = "lr_scheduler.num_bad_epochs";
inline constexpr const char* kCooldownCounter = "lr_scheduler.cooldown_counter";
inline constexpr const char* kLastEpoch = "lr_scheduler.last_epoch";

}  // namespace mlc::plateau
