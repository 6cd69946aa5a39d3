// Example order for training: PyTorch's sampler semantics.
//
// `randperm(n, seed)` equals torch.randperm(n, generator=torch.Generator()
// .manual_seed(seed)) on CPU (a Fisher-Yates shuffle driven by 32-bit mt19937
// draws), so a shuffled epoch e with seed s visits examples in the order of
// DistributedSampler(shuffle=True, seed=s, num_replicas=1) after set_epoch(e).
//
// `distributed_indices` is DistributedSampler's split of an epoch's order over
// `replicas` data-parallel ranks (checked against PyTorch by
// tests/runtime/sampler_test.cc on tests/oracle/distributed_sampler.py's
// recorded output).
#pragma once

#include <cstdint>
#include <vector>

namespace mlc::rt {

std::vector<int64_t> randperm(int64_t n, uint64_t seed);

// The order of epoch `epoch`: 0..n-1, or randperm(n, seed + epoch) when shuffling.
std::vector<int64_t> epoch_order(int64_t n, bool shuffle, uint64_t seed, int64_t epoch);

// Examples each of `replicas` ranks gets per epoch from a set of `n`, as
// DistributedSampler's num_samples: ceil(n / replicas), or with drop_last
// floor(n / replicas).
int64_t distributed_num_samples(int64_t n, int64_t replicas, bool drop_last);

// Rank `rank`'s (in [0, replicas)) examples of an epoch whose order over the
// whole set is `order` (epoch_order), as torch.utils.data.DistributedSampler
// gives them: the order is padded by repeating it from its start (as often as
// needed) to replicas * distributed_num_samples examples, or cut to that many
// with drop_last; the rank takes positions rank, rank + replicas, ... of it.
std::vector<int64_t> distributed_indices(const std::vector<int64_t>& order, int64_t replicas, int64_t rank,
                                         bool drop_last);

}  // namespace mlc::rt
