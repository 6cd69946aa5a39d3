#include "compiler/memory_plan.h"

#include <algorithm>
#include <numeric>

namespace mlc {

namespace {

int64_t rounded(int64_t bytes) {
  return std::max<int64_t>(kArenaAlignment, (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment);
}

bool overlap(const PlannedBuffer& a, const PlannedBuffer& b) { return a.first <= b.last && b.first <= a.last; }

}  // namespace

MemoryPlan plan_memory(std::vector<PlannedBuffer>& buffers, int num_instructions) {
  MemoryPlan plan;
  // Live bytes per instruction (first = -1 counts from 0; last = n up to n - 1),
  // by a difference array over [0, n).
  const int n = std::max(num_instructions, 1);
  std::vector<int64_t> delta(n + 1, 0);
  for (const PlannedBuffer& b : buffers) {
    int lo = std::clamp(b.first, 0, n - 1), hi = std::clamp(b.last, 0, n - 1);
    delta[lo] += rounded(b.bytes);
    delta[hi + 1] -= rounded(b.bytes);
  }
  int64_t live = 0;
  for (int i = 0; i < n; ++i) {
    live += delta[i];
    if (live > plan.lower_bound) {
      plan.lower_bound = live;
      plan.peak_instruction = i;
    }
  }

  std::vector<int> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::vector<int> placed;
  std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of placed buffers overlapping in time
  for (int idx : order) {
    PlannedBuffer& b = buffers[idx];
    const int64_t size = rounded(b.bytes);
    busy.clear();
    for (int p : placed)
      if (overlap(buffers[p], b)) busy.emplace_back(buffers[p].offset, buffers[p].offset + rounded(buffers[p].bytes));
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (lo - offset >= size) break;
      offset = std::max(offset, hi);
    }
    b.offset = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + size);
    placed.push_back(idx);
  }
  if (plan.peak_instruction >= 0) {
    for (int idx : order) {
      const PlannedBuffer& b = buffers[idx];
      int lo = std::clamp(b.first, 0, n - 1), hi = std::clamp(b.last, 0, n - 1);
      if (lo <= plan.peak_instruction && plan.peak_instruction <= hi) plan.live_at_peak.push_back(idx);
    }
  }
  return plan;
}

}  // namespace mlc
