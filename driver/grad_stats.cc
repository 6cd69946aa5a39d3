#include "driver/grad_stats.h"

#include <cmath>

namespace mlc {

namespace {
template <typename T>
GradStats stats_of(const std::string& name, const T* g, int64_t n) {
  GradStats s;
  s.name = name;
  s.elements = n;
  double sum_abs = 0, sum_sq = 0, max_abs = 0;
  bool nan = false;
  for (int64_t i = 0; i < n; ++i) {
    const double v = static_cast<double>(g[i]), a = std::fabs(v);
    nan |= std::isnan(v);
    sum_abs += a;
    sum_sq += v * v;
    if (a > max_abs) max_abs = a;
  }
  s.mean_abs = n > 0 ? sum_abs / static_cast<double>(n) : 0;
  s.max_abs = nan ? std::nan("") : max_abs;
  s.norm = std::sqrt(sum_sq);
  return s;
}
}  // namespace

GradStats grad_stats(const std::string& name, const rt::Tensor& grad) {
  const int64_t n = grad.num_elements();
  if (grad.dtype() == DType::f64) return stats_of(name, grad.data<double>(), n);
  return stats_of(name, grad.data<float>(), n);
}

std::vector<GradStats> grad_stats(const std::vector<std::pair<std::string, const rt::Tensor*>>& grads) {
  std::vector<GradStats> out;
  for (const auto& [name, g] : grads) out.push_back(grad_stats(name, *g));
  return out;
}

nlohmann::ordered_json grad_stats_json(const std::vector<GradStats>& stats) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const GradStats& s : stats)
    out.push_back({{"name", s.name}, {"mean_abs", s.mean_abs}, {"max_abs", s.max_abs}, {"norm", s.norm},
                   {"elements", s.elements}});
  return out;
}

}  // namespace mlc
