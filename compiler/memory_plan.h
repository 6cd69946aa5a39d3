// Memory planning: buffers with lifetimes over a static schedule, packed into
// one arena.
//
// Contracts:
//  - A buffer is live over instructions [first, last] (inclusive): written by
//    instruction `first` (or before the schedule, first = -1: constants),
//    read for the last time by `last` (last = n: live until the step ends,
//    like results). Buffers live at the same instruction never share bytes, so
//    an instruction's result never overlaps its operands.
//  - Offsets are multiples of `alignment` (the target's arena alignment,
//    runtime/target.h; a power of two); sizes are rounded up to it.
//  - lower_bound is the maximum, over instructions, of the (rounded) bytes
//    live at once: no packing can use less. arena_bytes >= lower_bound.
//  - Packing is greedy (the best of largest-first, earliest-first and, up to
//    4096 buffers, 48 orders from a fixed-seed generator; each buffer in the
//    first or the tightest gap that fits between the buffers already placed
//    that it overlaps in time), deterministic: equal inputs give equal plans.
//    Quadratic in the number of buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/executable.h"

namespace mlc {

struct PlannedBuffer {
  int64_t bytes = 0;
  int first = 0, last = 0;
  int64_t offset = -1;  // set by plan_memory
};

struct MemoryPlan {
  int64_t arena_bytes = 0;
  int64_t lower_bound = 0;
  int peak_instruction = -1;       // where the live bytes reach lower_bound
  std::vector<int> live_at_peak;   // buffer indices, largest first
  double fragmentation() const {
    return lower_bound ? static_cast<double>(arena_bytes) / static_cast<double>(lower_bound) - 1 : 0;
  }
};

// Assigns every buffer's offset; `num_instructions` is the schedule length.
MemoryPlan plan_memory(std::vector<PlannedBuffer>& buffers, int num_instructions, int64_t alignment);

}  // namespace mlc
