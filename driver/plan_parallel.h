// The parallel part of `mlc plan MODEL.json --mesh ...` (docs/architecture.md, Parallelism):
// where every parameter and optimizer-state tensor lives, what one device
// holds, what a step sends per mesh axis, and the collective ledger: every
// collective the sharding pass inserted into @train_step, with the value it
// moves (producer, location, layer), its consumer, the placements before and
// after, bytes, estimated time and the alternative it beat.
#pragma once

#include <cstdio>
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
  // Per device: its parts of the parameters and optimizer state, the
  // gradients the reductions leave on it, its share of the batch.
  int64_t param_bytes = 0, grad_bytes = 0, state_bytes = 0, input_bytes = 0;
};

// `step`: the sharded @train_step; `ledger`: its entries; `zero`: the ZeRO
// stage; `arena_bytes`: the arena of the compiled `step` (one device's, as
// each rank of `mlc run --mesh` allocates it).
ParallelReport parallel_report(const Function& step, const std::vector<LedgerEntry>& ledger, const Mesh& mesh,
                               int zero, int64_t arena_bytes);

// "1.5 KiB", "2.00 MiB", "12 B".
std::string human_bytes(int64_t bytes);

// printf into a string: a line of the plan reports (at most 511 bytes).
template <class... Args>
std::string format_line(const char* fmt, Args... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

}  // namespace mlc
