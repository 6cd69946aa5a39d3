// Pipeline schedule generators (ir/pipeline_schedule.h): each makes every
// rank's order of computations, then add_communication inserts the sends and
// receives where consecutive stages are on different ranks.
#include "ir/pipeline_schedule.h"

#include <algorithm>
#include <climits>
#include <deque>
#include <tuple>

namespace mlc {

namespace {

using Kind = PipelineActionKind;
using Orders = std::vector<std::vector<PipelineAction>>;

// Limits that keep a schedule's size small; larger ones are errors.
constexpr int kMaxPipelineDim = 4096;
constexpr int64_t kMaxPipelinePairs = 1 << 20;  // stages × micro-batches

// 1F1B's order on rank r of p (one stage per rank): min(p-1-r, m) warm-up
// forwards, then a forward and a `backward` (B, or I for ZB-H1) alternately,
// then the remaining backwards.
std::vector<PipelineAction> one_f_one_b_order(int p, int m, int r, Kind backward) {
  int warmup = std::min(p - 1 - r, m);
  std::vector<PipelineAction> out;
  for (int mb = 0; mb < warmup; ++mb) out.push_back({Kind::F, r, mb});
  for (int k = 0; k < m - warmup; ++k) {
    out.push_back({Kind::F, r, warmup + k});
    out.push_back({backward, r, k});
  }
  for (int mb = m - warmup; mb < m; ++mb) out.push_back({backward, r, mb});
  return out;
}

Orders gpipe_orders(int p, int m) {
  Orders out(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    for (int mb = 0; mb < m; ++mb) out[r].push_back({Kind::F, r, mb});
    for (int mb = 0; mb < m; ++mb) out[r].push_back({Kind::B, r, mb});
  }
  return out;
}

Orders one_f_one_b_orders(int p, int m) {
  Orders out;
  for (int r = 0; r < p; ++r) out.push_back(one_f_one_b_order(p, m, r, Kind::B));
  return out;
}

// Megatron-LM's interleaved order: the k-th forward of rank r runs chunk
// (k mod p·v)/p (virtual stage chunk·p + r) on micro-batch (k div p·v)·p +
// k mod p; backwards the same with chunks reversed.
Orders interleaved_orders(int p, int m, int v) {
  Orders out(static_cast<size_t>(p));
  int total = m * v, group = p * v;
  for (int r = 0; r < p; ++r) {
    auto action = [&](Kind kind, int k) {
      int chunk = (k % group) / p;
      if (kind == Kind::B) chunk = v - 1 - chunk;
      return PipelineAction{kind, chunk * p + r, (k / group) * p + k % p};
    };
    int warmup = m == p ? total : std::min(total, 2 * (p - 1 - r) + (v - 1) * p);
    for (int k = 0; k < warmup; ++k) out[r].push_back(action(Kind::F, k));
    for (int k = 0; k < total - warmup; ++k) {
      out[r].push_back(action(Kind::F, warmup + k));
      out[r].push_back(action(Kind::B, k));
    }
    for (int k = total - warmup; k < total; ++k) out[r].push_back(action(Kind::B, k));
  }
  return out;
}

// ZB-H1 by list scheduling in unit time (F = I = W = 1): at each time a free
// rank runs the next F or I of its 1F1B order if its inputs are done (an F
// only while fewer than p micro-batches are stashed), else its oldest W whose
// I is done, else waits.
Orders zb1p_orders(int p, int m) {
  Orders out(static_cast<size_t>(p));
  Orders critical;
  for (int r = 0; r < p; ++r) critical.push_back(one_f_one_b_order(p, m, r, Kind::I));
  auto at = [m](int s, int mb) { return static_cast<size_t>(s) * m + mb; };
  std::vector<int64_t> f_end(static_cast<size_t>(p) * m, INT64_MAX), i_end = f_end;
  std::vector<size_t> next(p, 0);
  std::vector<std::deque<int>> pending_w(p);
  std::vector<int> stashed(p, 0);
  std::vector<int64_t> free_at(p, 0);
  for (int64_t t = 0;; ++t) {
    bool done = true;
    for (int r = 0; r < p; ++r) {
      if (next[r] < critical[r].size() || !pending_w[r].empty()) done = false;
      if (free_at[r] > t) continue;
      if (next[r] < critical[r].size()) {
        const PipelineAction& a = critical[r][next[r]];
        bool ready = a.kind == Kind::F
                         ? (r == 0 || f_end[at(r - 1, a.microbatch)] <= t) && stashed[r] < p
                         : f_end[at(r, a.microbatch)] <= t && (r == p - 1 || i_end[at(r + 1, a.microbatch)] <= t);
        if (ready) {
          (a.kind == Kind::F ? f_end : i_end)[at(r, a.microbatch)] = t + 1;
          if (a.kind == Kind::F) ++stashed[r];
          else pending_w[r].push_back(a.microbatch);
          out[r].push_back(a);
          ++next[r];
          free_at[r] = t + 1;
          continue;
        }
      }
      if (!pending_w[r].empty() && i_end[at(r, pending_w[r].front())] <= t) {
        out[r].push_back({Kind::W, r, pending_w[r].front()});
        pending_w[r].pop_front();
        --stashed[r];
        free_at[r] = t + 1;
      }
    }
    if (done) break;
  }
  return out;
}

// The receive of the message a compute action's output becomes, and the
// stage that consumes it; nullopt-like {false} when the output stays on the
// rank or leaves the pipeline.
struct Message {
  PipelineAction send, recv, consumer;
  int to = 0;
};
bool outgoing(const PipelineSchedule& s, const PipelineAction& a, Message& msg) {
  int S = s.stages(), r = s.rank_of_stage(a.stage);
  if (a.kind == Kind::F && a.stage + 1 < S && s.rank_of_stage(a.stage + 1) != r) {
    msg = {{Kind::SEND_F, a.stage, a.microbatch}, {Kind::RECV_F, a.stage, a.microbatch},
           {Kind::F, a.stage + 1, a.microbatch}, s.rank_of_stage(a.stage + 1)};
    return true;
  }
  if ((a.kind == Kind::B || a.kind == Kind::I) && a.stage > 0 && s.rank_of_stage(a.stage - 1) != r) {
    msg = {{Kind::SEND_B, a.stage, a.microbatch}, {Kind::RECV_B, a.stage, a.microbatch},
           {a.kind, a.stage - 1, a.microbatch}, s.rank_of_stage(a.stage - 1)};
    return true;
  }
  return false;
}

// `s.actions` holds computations only; adds each send right after the action
// whose output it sends, and each receive before the first computation that
// needs it or a later message of its channel.
void add_communication(PipelineSchedule& s) {
  int p = s.ranks;
  // Position of every computation in its rank's order, by (kind, stage, mb).
  auto key = [&](const PipelineAction& a) {
    return (static_cast<size_t>(a.kind) * s.stages() + a.stage) * s.microbatches + a.microbatch;
  };
  std::vector<size_t> position(4 * static_cast<size_t>(s.stages()) * s.microbatches, 0);
  for (const auto& order : s.actions)
    for (size_t i = 0; i < order.size(); ++i) position[key(order[i])] = i;
  // Per channel (from, to), the messages in send order with their consumers' positions.
  std::vector<std::vector<std::pair<PipelineAction, size_t>>> channel(static_cast<size_t>(p) * p);
  Orders out(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r)
    for (const PipelineAction& a : s.actions[r]) {
      out[r].push_back(a);
      Message msg;
      if (!outgoing(s, a, msg)) continue;
      out[r].push_back(msg.send);
      channel[static_cast<size_t>(r) * p + msg.to].push_back({msg.recv, position[key(msg.consumer)]});
    }
  for (int to = 0; to < p; ++to) {
    // (place before, from, index in channel, receive)
    std::vector<std::tuple<size_t, int, size_t, PipelineAction>> receives;
    for (int from = 0; from < p; ++from) {
      auto& msgs = channel[static_cast<size_t>(from) * p + to];
      size_t before = SIZE_MAX;
      for (size_t k = msgs.size(); k-- > 0;) {
        before = std::min(before, msgs[k].second);
        receives.push_back({before, from, k, msgs[k].first});
      }
    }
    std::sort(receives.begin(), receives.end(), [](const auto& x, const auto& y) {
      return std::tie(std::get<0>(x), std::get<1>(x), std::get<2>(x)) <
             std::tie(std::get<0>(y), std::get<1>(y), std::get<2>(y));
    });
    std::vector<PipelineAction> merged;
    size_t next = 0, compute = 0;
    for (const PipelineAction& a : out[to]) {
      if (is_compute(a.kind)) {
        for (; next < receives.size() && std::get<0>(receives[next]) == compute; ++next)
          merged.push_back(std::get<3>(receives[next]));
        ++compute;
      }
      merged.push_back(a);
    }
    out[to] = std::move(merged);
  }
  s.actions = std::move(out);
}

Status check_parameters(PipelineScheduleKind kind, int p, int m, int v) {
  std::string name(pipeline_schedule_kind_name(kind));
  if (p < 1 || p > kMaxPipelineDim)
    return make_error("parallel.pipeline.stages: expected 1 to " + std::to_string(kMaxPipelineDim) +
                      " pipeline ranks, got " + std::to_string(p));
  if (m < 1 || m > kMaxPipelineDim)
    return make_error("parallel.pipeline.microbatches: expected 1 to " + std::to_string(kMaxPipelineDim) +
                      " micro-batches, got " + std::to_string(m));
  if (v < 1 || v > kMaxPipelineDim)
    return make_error("parallel.pipeline.virtual_stages: expected 1 to " + std::to_string(kMaxPipelineDim) +
                      " stages per rank, got " + std::to_string(v));
  if (int64_t(p) * v * m > kMaxPipelinePairs)
    return make_error("parallel.pipeline.microbatches: " + std::to_string(p * v) + " stages × " +
                      std::to_string(m) + " micro-batches is more than " + std::to_string(kMaxPipelinePairs) +
                      " (stage, micro-batch) pairs");
  if (kind == PipelineScheduleKind::interleaved) {
    if (v < 2)
      return make_error("parallel.pipeline.virtual_stages: interleaved needs at least 2 stages per rank, got " +
                        std::to_string(v));
    if (m % p != 0)
      return make_error("parallel.pipeline.microbatches: interleaved needs a multiple of the " +
                        std::to_string(p) + " pipeline ranks, got " + std::to_string(m));
    return {};
  }
  if (v != 1)
    return make_error("parallel.pipeline.virtual_stages: " + name + " runs one stage per rank, got " +
                      std::to_string(v));
  if (kind != PipelineScheduleKind::gpipe && m < p)
    return make_error("parallel.pipeline.microbatches: " + name +
                      " needs at least as many micro-batches as stages (" + std::to_string(m) + " < " +
                      std::to_string(p) + ")");
  return {};
}

}  // namespace

Expected<PipelineSchedule> make_pipeline_schedule(PipelineScheduleKind kind, int ranks, int microbatches,
                                                  int virtual_stages) {
  MLC_CHECK_OK(check_parameters(kind, ranks, microbatches, virtual_stages));
  PipelineSchedule s{ranks, virtual_stages, microbatches, kind, {}};
  switch (kind) {
    case PipelineScheduleKind::gpipe: s.actions = gpipe_orders(ranks, microbatches); break;
    case PipelineScheduleKind::one_f_one_b: s.actions = one_f_one_b_orders(ranks, microbatches); break;
    case PipelineScheduleKind::interleaved:
      s.actions = interleaved_orders(ranks, microbatches, virtual_stages);
      break;
    case PipelineScheduleKind::zb1p: s.actions = zb1p_orders(ranks, microbatches); break;
  }
  add_communication(s);
  return s;
}

}  // namespace mlc
