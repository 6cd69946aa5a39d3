// The parallel part of `mlc plan MODEL.json --mesh ...` (DESIGN.md §5, §8):
// where every parameter and optimizer-state tensor lives, what one device
// holds, what a step sends per mesh axis, and the collective ledger: every
// collective the sharding pass inserted into @train_step, with the value it
// moves (producer, location, layer), its consumer, the placements before and
// after, bytes, estimated time and the alternative it beat.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ir/graph.h"
#include "passes/sharding.h"

namespace mlc {

struct ParallelReport {
  nlohmann::ordered_json json;
  std::string text;
};

// `step`: the sharded @train_step; `ledger`: its entries; `zero`: the ZeRO stage.
ParallelReport parallel_report(const Function& step, const std::vector<LedgerEntry>& ledger, const Mesh& mesh,
                               int zero);

// "1.5 KiB", "2.00 MiB", "12 B".
std::string human_bytes(int64_t bytes);

}  // namespace mlc
