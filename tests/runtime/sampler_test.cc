// The samplers (runtime/sampler.h) against PyTorch: distributed_indices gives
// every rank exactly the indices torch.utils.data.DistributedSampler gives it
// (recorded by tests/oracle/distributed_sampler.py in
// tests/data/sampler/distributed_sampler.json), and the ranks' shares with
// their padding cover the epoch's order.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "runtime/sampler.h"

namespace mlc::rt {
namespace {

TEST(DistributedSampler, MatchesPyTorch) {
  std::ifstream in(std::string(MLC_SOURCE_DIR) + "/tests/data/sampler/distributed_sampler.json");
  ASSERT_TRUE(in) << "missing tests/data/sampler/distributed_sampler.json";
  const nlohmann::json recorded = nlohmann::json::parse(in);
  ASSERT_GE(recorded["cases"].size(), 10u);
  for (const nlohmann::json& c : recorded["cases"]) {
    const int64_t n = c["n"], replicas = c["replicas"], epoch = c["epoch"];
    const uint64_t seed = c["seed"];
    const bool shuffle = c["shuffle"], drop_last = c["drop_last"];
    const std::vector<int64_t> order = epoch_order(n, shuffle, seed, epoch);
    for (int64_t rank = 0; rank < replicas; ++rank) {
      std::vector<int64_t> want = c["indices"][rank].get<std::vector<int64_t>>();
      EXPECT_EQ(distributed_indices(order, replicas, rank, drop_last), want)
          << "n " << n << " replicas " << replicas << " rank " << rank << " seed " << seed << " epoch " << epoch
          << " shuffle " << shuffle << " drop_last " << drop_last;
      EXPECT_EQ(distributed_num_samples(n, replicas, drop_last), static_cast<int64_t>(want.size()));
    }
  }
}

// One replica is the epoch's order itself; the ranks' shares interleave back
// into the order followed by its padding.
TEST(DistributedSampler, SharesInterleaveIntoTheOrder) {
  const std::vector<int64_t> order = epoch_order(13, true, 3, 1);
  EXPECT_EQ(distributed_indices(order, 1, 0, false), order);
  EXPECT_EQ(distributed_indices(order, 1, 0, true), order);
  std::vector<std::vector<int64_t>> shares;
  for (int64_t r = 0; r < 4; ++r) shares.push_back(distributed_indices(order, 4, r, false));
  for (int64_t p = 0; p < 16; ++p) EXPECT_EQ(shares[p % 4][p / 4], order[p % 13]) << "position " << p;
  EXPECT_TRUE(distributed_indices({}, 2, 1, false).empty());
}

}  // namespace
}  // namespace mlc::rt
