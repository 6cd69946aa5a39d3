#include "driver/token_sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

namespace mlc {

int64_t choose_token(std::span<const float> logits, const SamplingOptions& options, std::mt19937_64& generator) {
  const auto n = static_cast<int64_t>(logits.size());
  for (float x : logits)
    if (std::isnan(x)) return -1;
  if (n == 0) return -1;
  if (options.temperature <= 0)
    return std::max_element(logits.begin(), logits.end()) - logits.begin();  // the first of the largest
  constexpr double kDropped = -std::numeric_limits<double>::infinity();
  std::vector<double> z(logits.size());
  for (size_t i = 0; i < z.size(); ++i) z[i] = static_cast<double>(logits[i]) / options.temperature;
  if (options.top_k > 0 && options.top_k < n) {
    std::vector<double> sorted = z;
    std::nth_element(sorted.begin(), sorted.begin() + (options.top_k - 1), sorted.end(), std::greater<>());
    const double kth = sorted[static_cast<size_t>(options.top_k - 1)];
    for (double& v : z)
      if (v < kth) v = kDropped;
  }
  const double top = *std::max_element(z.begin(), z.end());
  if (top == kDropped) return 0;  // every logit is -inf
  std::vector<double> p(z.size());
  for (size_t i = 0; i < z.size(); ++i) p[i] = z[i] == kDropped ? 0.0 : std::exp(z[i] - top);
  double total = std::accumulate(p.begin(), p.end(), 0.0);
  if (options.top_p < 1) {
    std::vector<int64_t> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return p[a] > p[b]; });
    double kept = 0;
    size_t k = 0;
    while (k < order.size() && (k == 0 || kept < options.top_p * total)) kept += p[order[k++]];
    for (size_t i = k; i < order.size(); ++i) p[order[i]] = 0;
    total = kept;
  }
  const double u = std::generate_canonical<double, 53>(generator) * total;
  double cumulative = 0;
  int64_t last = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (p[i] == 0) continue;
    cumulative += p[i];
    last = i;
    if (u < cumulative) return i;
  }
  return last;  // u rounded to the total
}

}  // namespace mlc
