// The `train.optimizer` and `train.schedule` sections of a model file
// (docs/model-format.md): torch.optim's optimizers with their names and
// defaults, parameter groups, and torch.optim.lr_scheduler's schedules.
// Errors point at the offending key or value.
#pragma once

#include <string_view>

#include "frontends/json_doc.h"
#include "ir/model_config.h"

namespace mlc {

// A number field >= 0 (`dflt` when absent).
Expected<double> non_negative(const Fields& f, std::string_view key, double dflt);
// A number field in [0, 1) (`dflt` when absent).
Expected<double> fraction(const Fields& f, std::string_view key, double dflt);

Expected<OptimizerConfig> parse_optimizer(const JsonDoc& doc, const Node& node);

// Sets opt.schedule; a schedule that cycles the momentum (OneCycleLR) must
// fit the optimizer, whose momentum it then starts at max_momentum.
Status parse_schedule(const JsonDoc& doc, const Node& node, OptimizerConfig& opt);

}  // namespace mlc
