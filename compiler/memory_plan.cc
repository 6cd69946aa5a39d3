#include "compiler/memory_plan.h"

#include <algorithm>
#include <numeric>
#include <random>

namespace mlc {

namespace {

int64_t rounded(int64_t bytes, int64_t alignment) { return (bytes + alignment - 1) / alignment * alignment; }

bool overlap(const PlannedBuffer& a, const PlannedBuffer& b) { return a.first <= b.last && b.first <= a.last; }

}  // namespace

MemoryPlan plan_memory(std::vector<PlannedBuffer>& buffers, int num_instructions, int64_t alignment) {
  MemoryPlan plan;
  // Live bytes per instruction (first = -1 counts from 0; last = n up to n - 1),
  // by a difference array over [0, n).
  const int n = std::max(num_instructions, 1);
  std::vector<int64_t> delta(n + 1, 0);
  for (const PlannedBuffer& b : buffers) {
    int lo = std::clamp(b.first, 0, n - 1), hi = std::clamp(b.last, 0, n - 1);
    delta[lo] += rounded(b.bytes, alignment);
    delta[hi + 1] -= rounded(b.bytes, alignment);
  }
  int64_t live = 0;
  for (int i = 0; i < n; ++i) {
    live += delta[i];
    if (live > plan.lower_bound) {
      plan.lower_bound = live;
      plan.peak_instruction = i;
    }
  }

  // Greedy packings, the smallest arena wins: largest buffer first or
  // earliest first (ties: larger first), each buffer in the first gap that
  // fits between the placed buffers it overlaps in time, or the tightest.
  std::vector<int> by_size(buffers.size()), by_time(buffers.size());
  std::iota(by_size.begin(), by_size.end(), 0);
  std::iota(by_time.begin(), by_time.end(), 0);
  std::stable_sort(by_size.begin(), by_size.end(), [&](int a, int b) {
    if (buffers[a].bytes != buffers[b].bytes) return buffers[a].bytes > buffers[b].bytes;
    return buffers[a].first < buffers[b].first;
  });
  std::stable_sort(by_time.begin(), by_time.end(), [&](int a, int b) {
    if (buffers[a].first != buffers[b].first) return buffers[a].first < buffers[b].first;
    return buffers[a].bytes > buffers[b].bytes;
  });
  // Then, for schedules small enough, orders drawn from a fixed-seed generator
  // (random among equal sizes, then entirely random): cheap, deterministic,
  // and often better where a large short-lived buffer sits between long ones.
  std::vector<std::vector<int>> orders = {by_size, by_time};
  if (buffers.size() <= 4096) {
    std::mt19937_64 rng(0x6d6c63);
    for (int t = 0; t < 48; ++t) {
      std::vector<int> o = by_time;
      std::shuffle(o.begin(), o.end(), rng);
      if (t < 24)
        std::stable_sort(o.begin(), o.end(), [&](int a, int b) { return buffers[a].bytes > buffers[b].bytes; });
      orders.push_back(std::move(o));
    }
  }
  // No packing is smaller than the most bytes live at one instruction (of
  // the buffers' own intervals, unclamped: those live at once overlap in time
  // and so in no memory), so a packing that reaches it ends the search with
  // the arena and offsets the remaining strategies could not have improved.
  int64_t floor = 0;
  if (!buffers.empty()) {
    int lo = buffers[0].first, hi = buffers[0].last;
    for (const PlannedBuffer& b : buffers) lo = std::min(lo, b.first), hi = std::max(hi, b.last);
    std::vector<int64_t> d(static_cast<size_t>(hi - lo) + 2, 0);
    for (const PlannedBuffer& b : buffers)
      if (b.first <= b.last) {
        d[static_cast<size_t>(b.first - lo)] += rounded(b.bytes, alignment);
        d[static_cast<size_t>(b.last - lo) + 1] -= rounded(b.bytes, alignment);
      }
    int64_t at = 0;
    for (int64_t x : d) floor = std::max(floor, at += x);
  }
  std::vector<int64_t> best_offsets;
  int64_t best = -1;
  for (size_t strategy = 0; strategy < 2 * orders.size() && best != floor; ++strategy) {
    const std::vector<int>* order = &orders[strategy / 2];
    const bool best_fit = strategy % 2;
    std::vector<int64_t> offsets(buffers.size(), 0);
    std::vector<int> placed;
    std::vector<std::pair<int64_t, int64_t>> busy;  // [offset, end) of placed buffers overlapping in time
    int64_t arena = 0;
    for (int idx : *order) {
      const PlannedBuffer& b = buffers[idx];
      const int64_t size = rounded(b.bytes, alignment);
      if (size == 0) continue;
      busy.clear();
      for (int p : placed)
        if (overlap(buffers[p], b)) busy.emplace_back(offsets[p], offsets[p] + rounded(buffers[p].bytes, alignment));
      std::sort(busy.begin(), busy.end());
      // Gaps between the busy ranges: the first that fits, or the tightest.
      int64_t offset = -1, gap_start = 0, tightest = -1;
      for (const auto& [lo, hi] : busy) {
        if (lo - gap_start >= size) {
          if (!best_fit) {
            offset = gap_start;
            break;
          }
          if (tightest < 0 || lo - gap_start < tightest) {
            tightest = lo - gap_start;
            offset = gap_start;
          }
        }
        gap_start = std::max(gap_start, hi);
      }
      if (offset < 0) offset = gap_start;
      offsets[idx] = offset;
      arena = std::max(arena, offset + size);
      placed.push_back(idx);
    }
    if (best < 0 || arena < best) {
      best = arena;
      best_offsets = std::move(offsets);
    }
  }
  for (size_t i = 0; i < buffers.size(); ++i) buffers[i].offset = best_offsets[i];
  plan.arena_bytes = std::max<int64_t>(best, 0);
  const std::vector<int>& order = by_size;
  if (plan.peak_instruction >= 0) {
    for (int idx : order) {
      const PlannedBuffer& b = buffers[idx];
      int lo = std::clamp(b.first, 0, n - 1), hi = std::clamp(b.last, 0, n - 1);
      if (b.bytes > 0 && lo <= plan.peak_instruction && plan.peak_instruction <= hi) plan.live_at_peak.push_back(idx);
    }
  }
  return plan;
}

}  // namespace mlc
