#include "runtime/sampler.h"

#include <numeric>
#include <random>
#include <utility>

namespace mlc::rt {

std::vector<int64_t> randperm(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 gen(static_cast<std::mt19937::result_type>(seed));
  for (int64_t i = 0; i + 1 < n; ++i) {
    int64_t z = static_cast<int64_t>(gen() % static_cast<uint64_t>(n - i));
    std::swap(order[i], order[i + z]);
  }
  return order;
}

std::vector<int64_t> epoch_order(int64_t n, bool shuffle, uint64_t seed, int64_t epoch) {
  if (shuffle) return randperm(n, seed + static_cast<uint64_t>(epoch));
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  return order;
}

}  // namespace mlc::rt
