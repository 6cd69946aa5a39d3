// Example order for training: PyTorch's sampler semantics.
//
// `randperm(n, seed)` equals torch.randperm(n, generator=torch.Generator()
// .manual_seed(seed)) on CPU (a Fisher-Yates shuffle driven by 32-bit mt19937
// draws), so a shuffled epoch e with seed s visits examples in the order of
// DistributedSampler(shuffle=True, seed=s, num_replicas=1) after set_epoch(e).
#pragma once

#include <cstdint>
#include <vector>

namespace mlc::rt {

std::vector<int64_t> randperm(int64_t n, uint64_t seed);

// The order of epoch `epoch`: 0..n-1, or randperm(n, seed + epoch) when shuffling.
std::vector<int64_t> epoch_order(int64_t n, bool shuffle, uint64_t seed, int64_t epoch);

}  // namespace mlc::rt
