#include "driver/lr_plateau.h"

#include <algorithm>
#include <limits>

#include "ir/lr_plateau_state.h"

namespace mlc {

bool has_plateau(const ModelConfig& config) { return config.train.optimizer.schedule.type == "plateau"; }

Status check_plateau(const ModelConfig& config, const std::string& mesh) {
  if (!has_plateau(config)) return {};
  if (!mesh.empty())
    return make_error(config.path + ": error: train.schedule \"plateau\" with --mesh " + mesh +
                      ": ReduceLROnPlateau is not supported on a mesh yet; train on one device");
  if (config.train.mixed_precision.loss_scale.enabled)
    return make_error(config.path + ": error: train.schedule \"plateau\" with dynamic loss scaling "
                      "(train.mixed_precision with f16) is not supported");
  return {};
}

Expected<double> plateau_metric(const ModelConfig& config, double loss, const std::optional<double>& accuracy) {
  if (config.train.optimizer.schedule.metric == "loss") return loss;
  if (!accuracy)
    return make_error(config.path + ": error: train.schedule \"plateau\" steps on metric \"accuracy\", but this "
                      "model's evaluation has no accuracy (classifiers only); use \"metric\": \"loss\"");
  return *accuracy;
}

namespace {
template <typename T>
Expected<T*> scalar(std::vector<rt::NamedTensor>& state, const std::string& name) {
  for (rt::NamedTensor& t : state)
    if (t.name == name) return t.tensor.data<T>();
  return make_error("mlc internal error: the optimizer state has no '" + name + "' (train.schedule \"plateau\")");
}
}  // namespace

Status plateau_step(const ScheduleConfig& sc, double current, std::vector<rt::NamedTensor>& state) {
  MLC_TRY(double* best, scalar<double>(state, plateau::kBest));
  MLC_TRY(int64_t* bad, scalar<int64_t>(state, plateau::kNumBadEpochs));
  MLC_TRY(int64_t* cooldown, scalar<int64_t>(state, plateau::kCooldownCounter));
  MLC_TRY(int64_t* last_epoch, scalar<int64_t>(state, plateau::kLastEpoch));
  const bool min = sc.mode == "min";
  // torch's mode_worse until the first step.
  const double inf = std::numeric_limits<double>::infinity();
  const double best_so_far = *last_epoch == 0 ? (min ? inf : -inf) : *best;
  bool better;
  if (sc.threshold_mode == "rel")
    better = min ? current < best_so_far * (1.0 - sc.threshold) : current > best_so_far * (sc.threshold + 1.0);
  else
    better = min ? current < best_so_far - sc.threshold : current > best_so_far + sc.threshold;
  *best = best_so_far;
  *last_epoch += 1;
  if (better) {
    *best = current;
    *bad = 0;
  } else {
    *bad += 1;
  }
  if (*cooldown > 0) {  // in cooldown: bad epochs are ignored
    *cooldown -= 1;
    *bad = 0;
  }
  if (*bad > sc.patience) {
    for (size_t g = 0;; ++g) {
      auto lr = scalar<double>(state, plateau::lr_name(g));
      if (!lr) break;
      const double old_lr = **lr, new_lr = std::max(old_lr * sc.factor, sc.min_lr);
      if (old_lr - new_lr > sc.plateau_eps) **lr = new_lr;
    }
    *cooldown = sc.cooldown;
    *bad = 0;
  }
  return {};
}

}  // namespace mlc
