// Validating and timing pipeline schedules (ir/pipeline_schedule.h). Both run
// the schedule the same way: every rank's actions in order, each as soon as
// the actions it needs have run.
#include <algorithm>
#include <optional>

#include "ir/pipeline_schedule.h"

namespace mlc {

namespace {

using Kind = PipelineActionKind;

// Where an action's completion is recorded: B and I share a slot (a stage's
// input gradient, which either makes), so that a consumer needs not know
// which the schedule uses.
enum Slot : size_t { kForward, kGrad, kWeight, kSendF, kRecvF, kSendB, kRecvB, kSlots };

Slot slot_of(Kind k) {
  switch (k) {
    case Kind::F: return kForward;
    case Kind::B:
    case Kind::I: return kGrad;
    case Kind::W: return kWeight;
    case Kind::SEND_F: return kSendF;
    case Kind::RECV_F: return kRecvF;
    case Kind::SEND_B: return kSendB;
    case Kind::RECV_B: return kRecvB;
  }
  return kForward;
}

std::string at(int rank, size_t index, const PipelineAction& a) {
  return "rank " + std::to_string(rank) + ", action " + std::to_string(index) + " " + a.str();
}

Error schedule_error(const std::string& message) { return make_error("pipeline schedule: " + message); }

// The schedule's actions indexed by (slot, stage, micro-batch): which action
// fills each slot and where.
struct Index {
  const PipelineSchedule& s;
  struct Entry {
    bool present = false;
    PipelineAction action;
    int rank = 0;
    size_t position = 0;
  };
  std::vector<Entry> entries;

  explicit Index(const PipelineSchedule& schedule)
      : s(schedule), entries(kSlots * static_cast<size_t>(schedule.stages()) * schedule.microbatches) {}
  size_t key(Slot slot, int stage, int mb) const {
    return (static_cast<size_t>(slot) * s.stages() + stage) * s.microbatches + mb;
  }
  const Entry& get(Slot slot, int stage, int mb) const { return entries[key(slot, stage, mb)]; }
  Entry& get(Slot slot, int stage, int mb) { return entries[key(slot, stage, mb)]; }
  const Entry& get(const PipelineAction& a) const { return get(slot_of(a.kind), a.stage, a.microbatch); }
};

// The rank an action belongs on; for a send or receive also the peer and
// whether the stage has a neighbour on another rank in that direction.
struct Home {
  int rank = 0;
  int peer = -1;
  bool valid = true;
};
Home home_of(const PipelineSchedule& s, const PipelineAction& a) {
  int S = s.stages();
  auto across = [&](int from, int to, bool on_sender) {
    Home h;
    h.valid = to >= 0 && to < S && s.rank_of_stage(from) != s.rank_of_stage(to);
    if (!h.valid) return h;
    h.rank = s.rank_of_stage(on_sender ? from : to);
    h.peer = s.rank_of_stage(on_sender ? to : from);
    return h;
  };
  switch (a.kind) {
    case Kind::SEND_F: return across(a.stage, a.stage + 1, true);
    case Kind::RECV_F: return across(a.stage, a.stage + 1, false);
    case Kind::SEND_B: return across(a.stage, a.stage - 1, true);
    case Kind::RECV_B: return across(a.stage, a.stage - 1, false);
    default: return {s.rank_of_stage(a.stage), -1, true};
  }
}

// What an action needs before it can run, as (slot, stage, micro-batch).
struct Need {
  Slot slot;
  int stage;
};
std::vector<Need> needs_of(const PipelineSchedule& s, const PipelineAction& a) {
  int S = s.stages(), r = s.rank_of_stage(a.stage);
  switch (a.kind) {
    case Kind::F:
      if (a.stage == 0) return {};
      return {{s.rank_of_stage(a.stage - 1) == r ? kForward : kRecvF, a.stage - 1}};
    case Kind::B:
    case Kind::I:
      if (a.stage == S - 1) return {{kForward, a.stage}};
      return {{kForward, a.stage}, {s.rank_of_stage(a.stage + 1) == r ? kGrad : kRecvB, a.stage + 1}};
    case Kind::W: return {{kGrad, a.stage}};
    case Kind::SEND_F: return {{kForward, a.stage}};
    case Kind::SEND_B: return {{kGrad, a.stage}};
    case Kind::RECV_F: return {{kSendF, a.stage}};
    case Kind::RECV_B: return {{kSendB, a.stage}};
  }
  return {};
}

int64_t duration_of(const PipelineAction& a, const PipelineDurations& d) {
  if (!d.per_stage.empty()) {
    const std::array<int64_t, 4>& own = d.per_stage[static_cast<size_t>(a.stage)];
    switch (a.kind) {
      case Kind::F: return own[0];
      case Kind::B: return own[1];
      case Kind::I: return own[2];
      case Kind::W: return own[3];
      default: return 0;
    }
  }
  const int64_t scale = d.stage_scale.empty() ? 1 : d.stage_scale[static_cast<size_t>(a.stage)];
  switch (a.kind) {
    case Kind::F: return scale * d.forward;
    case Kind::B: return scale * d.backward;
    case Kind::I: return scale * d.input_grad;
    case Kind::W: return scale * d.weight_grad;
    default: return 0;
  }
}

// Checks 1-4 of validate_pipeline_schedule; fills `index`.
Status check_structure(const PipelineSchedule& s, Index& index) {
  if (s.actions.size() != static_cast<size_t>(s.ranks))
    return schedule_error(std::to_string(s.actions.size()) + " action lists for " + std::to_string(s.ranks) +
                          " ranks");
  int S = s.stages(), m = s.microbatches;
  // 1. ranges, homes, duplicates.
  for (int r = 0; r < s.ranks; ++r)
    for (size_t i = 0; i < s.actions[r].size(); ++i) {
      const PipelineAction& a = s.actions[r][i];
      if (a.stage < 0 || a.stage >= S)
        return schedule_error(at(r, i, a) + ": stage out of range (" + std::to_string(S) + " stages)");
      if (a.microbatch < 0 || a.microbatch >= m)
        return schedule_error(at(r, i, a) + ": micro-batch out of range (" + std::to_string(m) + " micro-batches)");
      Home h = home_of(s, a);
      if (!h.valid)
        return schedule_error(at(r, i, a) + ": no stage on another rank to " +
                              (a.kind == Kind::SEND_F || a.kind == Kind::SEND_B ? "send to" : "receive from"));
      if (h.rank != r)
        return schedule_error(at(r, i, a) + ": belongs on rank " + std::to_string(h.rank));
      Index::Entry& e = index.get(slot_of(a.kind), a.stage, a.microbatch);
      if (e.present && e.action == a)
        return schedule_error(at(r, i, a) + ": appears twice (first as action " + std::to_string(e.position) + ")");
      if (e.present)
        return schedule_error(at(r, i, a) + ": the rank also has " + e.action.str() + " (action " +
                              std::to_string(e.position) + "); a stage's micro-batch has either B, or I and W");
      e = {true, a, r, i};
    }
  // 2. every (stage, micro-batch) complete, in order.
  for (int st = 0; st < S; ++st)
    for (int mb = 0; mb < m; ++mb) {
      std::string pair = "stage " + std::to_string(st) + ", micro-batch " + std::to_string(mb);
      std::string suffix = std::to_string(st) + "." + std::to_string(mb);
      const auto &f = index.get(kForward, st, mb), &g = index.get(kGrad, st, mb), &w = index.get(kWeight, st, mb);
      if (!f.present) return schedule_error(pair + " has no forward F" + suffix);
      if (!g.present)
        return schedule_error(pair + " has no backward (B" + suffix + ", or I" + suffix + " and W" + suffix + ")");
      bool split = g.action.kind == Kind::I;
      if (split && !w.present) return schedule_error(pair + " has I" + suffix + " but no W" + suffix);
      if (!split && w.present)
        return schedule_error(pair + " has W" + suffix + " after a full backward B" + suffix + " (W goes with I)");
      if (g.position < f.position)
        return schedule_error(at(g.rank, g.position, g.action) + " comes before its forward (action " +
                              std::to_string(f.position) + ")");
      if (split && w.position < g.position)
        return schedule_error(at(w.rank, w.position, w.action) + " comes before its I" + suffix + " (action " +
                              std::to_string(g.position) + ")");
    }
  // 3. sends and receives in pairs; inputs from other ranks received.
  for (int r = 0; r < s.ranks; ++r)
    for (size_t i = 0; i < s.actions[r].size(); ++i) {
      const PipelineAction& a = s.actions[r][i];
      if (!is_compute(a.kind)) {
        bool send = a.kind == Kind::SEND_F || a.kind == Kind::SEND_B;
        Kind other = a.kind == Kind::SEND_F   ? Kind::RECV_F
                     : a.kind == Kind::RECV_F ? Kind::SEND_F
                     : a.kind == Kind::SEND_B ? Kind::RECV_B
                                              : Kind::SEND_B;
        PipelineAction match{other, a.stage, a.microbatch};
        if (!index.get(match).present)
          return schedule_error(at(r, i, a) + " has no matching " + match.str() + " on rank " +
                                std::to_string(home_of(s, a).peer) + (send ? "" : " to receive from"));
        continue;
      }
      for (const Need& n : needs_of(s, a))
        if (n.slot == kRecvF || n.slot == kRecvB) {
          PipelineAction recv{n.slot == kRecvF ? Kind::RECV_F : Kind::RECV_B, n.stage, a.microbatch};
          if (!index.get(recv).present)
            return schedule_error(at(r, i, a) + " needs " + recv.str() + ", which rank " + std::to_string(r) +
                                  " does not have");
        }
    }
  // 4. every channel in order.
  std::vector<std::vector<PipelineAction>> sends(static_cast<size_t>(s.ranks) * s.ranks), recvs = sends;
  for (int r = 0; r < s.ranks; ++r)
    for (const PipelineAction& a : s.actions[r]) {
      if (a.kind == Kind::SEND_F || a.kind == Kind::SEND_B)
        sends[static_cast<size_t>(r) * s.ranks + home_of(s, a).peer].push_back(a);
      if (a.kind == Kind::RECV_F || a.kind == Kind::RECV_B)
        recvs[static_cast<size_t>(home_of(s, a).peer) * s.ranks + r].push_back(a);
    }
  for (int from = 0; from < s.ranks; ++from)
    for (int to = 0; to < s.ranks; ++to) {
      const auto& sent = sends[static_cast<size_t>(from) * s.ranks + to];
      const auto& got = recvs[static_cast<size_t>(from) * s.ranks + to];
      for (size_t k = 0; k < sent.size() && k < got.size(); ++k)
        if (sent[k].stage != got[k].stage || sent[k].microbatch != got[k].microbatch ||
            (sent[k].kind == Kind::SEND_F) != (got[k].kind == Kind::RECV_F))
          return schedule_error("rank " + std::to_string(from) + "'s message " + std::to_string(k) + " to rank " +
                                std::to_string(to) + " is " + sent[k].str() + " but rank " + std::to_string(to) +
                                " receives " + got[k].str() + " as message " + std::to_string(k) +
                                " from it (receives from a rank must be in the order of its sends)");
    }
  return {};
}

// 5. Runs the schedule; `times` gets each rank's timed actions. On a
// deadlock, the Error names every blocked rank.
Status run(const PipelineSchedule& s, const Index& index, const PipelineDurations& d,
           std::vector<std::vector<PipelineTimedAction>>& times) {
  std::vector<int64_t> end(index.entries.size(), -1);
  std::vector<int64_t> clock(s.ranks, 0);
  times.assign(s.ranks, {});
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < s.ranks; ++r) {
      for (size_t i = times[r].size(); i < s.actions[r].size(); ++i) {
        const PipelineAction& a = s.actions[r][i];
        int64_t ready = clock[r];
        bool blocked = false;
        for (const Need& n : needs_of(s, a)) {
          int64_t e = end[index.key(n.slot, n.stage, a.microbatch)];
          if (e < 0) blocked = true;
          ready = std::max(ready, e + (n.slot == kSendF || n.slot == kSendB ? d.send_latency : 0));
        }
        if (blocked) break;
        clock[r] = ready + duration_of(a, d);
        end[index.key(slot_of(a.kind), a.stage, a.microbatch)] = clock[r];
        times[r].push_back({a, ready, clock[r]});
        progress = true;
      }
    }
  }
  std::string waits;
  for (int r = 0; r < s.ranks; ++r) {
    size_t i = times[r].size();
    if (i == s.actions[r].size()) continue;
    const PipelineAction& a = s.actions[r][i];
    for (const Need& n : needs_of(s, a)) {
      if (end[index.key(n.slot, n.stage, a.microbatch)] >= 0) continue;
      const Index::Entry& e = index.get(n.slot, n.stage, a.microbatch);
      waits += std::string(waits.empty() ? "" : "; ") + "rank " + std::to_string(r) + " waits at " + a.str() +
               " (action " + std::to_string(i) + ") for " + e.action.str() +
               (e.rank == r ? "" : " on rank " + std::to_string(e.rank));
      break;
    }
  }
  if (!waits.empty()) return schedule_error("deadlock: " + waits);
  return {};
}

}  // namespace

Status validate_pipeline_schedule(const PipelineSchedule& schedule) {
  Expected<PipelineTimeline> timeline = simulate_pipeline_schedule(schedule);
  if (!timeline) return timeline.take_error();
  return {};
}

Expected<PipelineTimeline> simulate_pipeline_schedule(const PipelineSchedule& s, const PipelineDurations& d) {
  if (s.ranks < 1 || s.virtual_stages < 1 || s.microbatches < 1)
    return schedule_error("expected at least 1 rank, stage per rank and micro-batch, got p=" +
                          std::to_string(s.ranks) + " v=" + std::to_string(s.virtual_stages) +
                          " m=" + std::to_string(s.microbatches));
  if (!d.stage_scale.empty() && d.stage_scale.size() != static_cast<size_t>(s.stages()))
    return schedule_error(std::to_string(d.stage_scale.size()) + " stage durations for " +
                          std::to_string(s.stages()) + " stages");
  if (!d.per_stage.empty() && d.per_stage.size() != static_cast<size_t>(s.stages()))
    return schedule_error(std::to_string(d.per_stage.size()) + " stage durations for " +
                          std::to_string(s.stages()) + " stages");
  Index index(s);
  MLC_CHECK_OK(check_structure(s, index));
  PipelineTimeline t;
  MLC_CHECK_OK(run(s, index, d, t.ranks));
  int64_t total_busy = 0;
  for (const auto& rank : t.ranks) {
    int64_t busy = 0;
    int stashed = 0, peak = 0;
    for (const PipelineTimedAction& a : rank) {
      busy += a.end - a.start;
      t.makespan = std::max(t.makespan, a.end);
      if (a.action.kind == Kind::F) peak = std::max(peak, ++stashed);
      if (a.action.kind == Kind::B || a.action.kind == Kind::W) --stashed;
    }
    t.busy.push_back(busy);
    t.peak_stashed.push_back(peak);
    total_busy += busy;
  }
  int64_t total_idle = 0;
  for (int64_t busy : t.busy) {
    t.idle.push_back(t.makespan - busy);
    total_idle += t.makespan - busy;
  }
  t.bubble_fraction = total_busy > 0 ? double(total_idle) / double(total_busy) : 0.0;
  return t;
}

}  // namespace mlc
