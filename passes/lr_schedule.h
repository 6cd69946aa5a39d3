// lr_schedule: torch.optim.lr_scheduler's schedules as IR, evaluated from the
// step counter (ir/model_config.h ScheduleConfig, docs/model-format.md
// `train.schedule`).
//
// PyTorch calls scheduler.step() after each optimizer step (interval "step")
// or after each epoch (interval "epoch"); the update at 1-based train step t
// uses the learning rate after s such calls: s = t - 1, or with "epoch"
// s = (t - 1) / steps_per_epoch (integer division). Every schedule is computed
// in closed form from s in f64 (PyTorch's recursive forms agree with it to
// f64 rounding); the optimizer rounds it to f32 where torch passes a float.
#pragma once

#include "ir/builder.h"
#include "ir/expected.h"
#include "ir/model_config.h"

namespace mlc {

struct ScheduledValues {
  Value* lr = nullptr;        // f64[]
  Value* momentum = nullptr;  // f64[]; OneCycleLR's cycled momentum (sgd) or beta1, else nullptr
};

// The schedule of `config` for a group whose lr is `base_lr`, at the 1-based
// train step `step` (i64[]). An error when interval "epoch" has no
// steps_per_epoch (the driver sets it from the data).
Expected<ScheduledValues> scheduled_values(Builder& b, const OptimizerConfig& config, double base_lr, Value* step);

}  // namespace mlc
