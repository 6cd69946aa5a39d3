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

int64_t distributed_num_samples(int64_t n, int64_t replicas, bool drop_last) {
  // PyTorch: ceil((n - replicas) / replicas) when drop_last and n % replicas,
  // which is floor(n / replicas).
  return drop_last ? n / replicas : (n + replicas - 1) / replicas;
}

std::vector<int64_t> distributed_indices(const std::vector<int64_t>& order, int64_t replicas, int64_t rank,
                                         bool drop_last) {
  const int64_t n = static_cast<int64_t>(order.size());
  const int64_t per_rank = distributed_num_samples(n, replicas, drop_last);
  std::vector<int64_t> mine;
  mine.reserve(static_cast<size_t>(per_rank));
  for (int64_t k = 0; k < per_rank && n > 0; ++k) mine.push_back(order[static_cast<size_t>((rank + k * replicas) % n)]);
  return mine;
}

}  // namespace mlc::rt
