// Per-parameter gradient statistics: PyTorch's gradient-flow idiom
// (`plot_grad_flow`: for each named parameter with a gradient, mean |g| and
// max |g|), with the L2 norm (what clip_grad_norm_ combines), of one step's
// gradients as @loss_grad gives them: after backward, before gradient
// clipping and the optimizer update (driver/train.h records them every
// train.grad_stats_every steps; docs/metrics.md).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/tensor.h"

namespace mlc {

struct GradStats {
  std::string name;      // the parameter's state_dict name
  double mean_abs = 0;   // mean of |g| over its elements
  double max_abs = 0;    // max of |g|
  double norm = 0;       // sqrt(sum g^2)
  int64_t elements = 0;
};

// The statistics of one gradient (f32 or f64), summed in double. NaN and
// infinities propagate into every statistic (as torch's abs().mean() and
// norm() do), so a diverging run shows.
GradStats grad_stats(const std::string& name, const rt::Tensor& grad);

// Every gradient's, in the order given.
std::vector<GradStats> grad_stats(const std::vector<std::pair<std::string, const rt::Tensor*>>& grads);

// The metrics record's "grads" array: [{"name", "mean_abs", "max_abs", "norm", "elements"}, ...].
nlohmann::ordered_json grad_stats_json(const std::vector<GradStats>& stats);

}  // namespace mlc
