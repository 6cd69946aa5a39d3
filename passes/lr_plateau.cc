#include "passes/lr_plateau.h"

#include "ir/lr_plateau_state.h"

namespace mlc {

namespace {
bool is_plateau(const OptimizerConfig& config) { return config.schedule.type == "plateau"; }
}  // namespace

PlateauArgs add_plateau_args(Function& f, const OptimizerConfig& config) {
  PlateauArgs args;
  if (!is_plateau(config)) return args;
  const TensorType f64{DType::f64, {}}, i64{DType::i64, {}};
  for (size_t g = 0; g <= config.param_groups.size(); ++g)
    args.lrs.push_back(f.add_arg(plateau::lr_name(g), f64, ArgKind::state));
  f.add_arg(plateau::kBest, f64, ArgKind::state);
  for (const char* name : {plateau::kNumBadEpochs, plateau::kCooldownCounter, plateau::kLastEpoch})
    f.add_arg(name, i64, ArgKind::state);
  return args;
}

void add_plateau_initial_state(Builder& b, const OptimizerConfig& config, std::vector<Value*>& results) {
  if (!is_plateau(config)) return;
  results.push_back(b.scalar(config.lr, DType::f64));
  for (const OptimizerConfig& g : config.param_groups) results.push_back(b.scalar(g.lr, DType::f64));
  results.push_back(b.scalar(0.0, DType::f64));
  for (int i = 0; i < 3; ++i) results.push_back(b.scalar(0.0, DType::i64));
}

}  // namespace mlc
