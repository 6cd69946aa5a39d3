#include "driver/plan_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "driver/plan_parallel.h"
#include "ir/pipeline_schedule.h"
#include "passes/sharding.h"

namespace mlc {

namespace {

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t k = 1; k <= n; ++k)
    if (n % k == 0) d.push_back(k);
  return d;
}

Mesh make_mesh(int dp, int tp, int pp) {
  Mesh m;
  if (dp > 1) m.axes.push_back({"dp", dp});
  if (tp > 1) m.axes.push_back({"tp", tp});
  if (pp > 1) m.axes.push_back({"pp", pp});
  return m;
}

double link_us(double bytes) { return kCollectiveLatencyUs + bytes / kLinkBytesPerUs; }

// The largest parts of a plan's step, one line.
std::string reason_of(const RankedPlan& p) {
  std::vector<std::pair<double, std::string>> parts = {
      {p.gemm_ms, format_line("GEMMs %.3g ms", p.gemm_ms)},
      {p.kernel_ms, format_line("memory-bound kernels %.3g ms", p.kernel_ms)},
      {p.overhead_ms, format_line("instruction overhead %.3g ms", p.overhead_ms)}};
  if (p.pp > 1) parts.push_back({p.idle_ms, format_line("bubble %.2f (%.3g ms idle)", p.bubble, p.idle_ms)});
  for (const auto& [axis, ms] : p.comm_ms)
    if (ms > 0) parts.push_back({ms, format_line("%s communication %.3g ms", axis.c_str(), ms)});
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string r;
  for (size_t i = 0; i < parts.size() && i < 3; ++i)
    if (parts[i].first > 0) r += (r.empty() ? "" : ", ") + parts[i].second;
  return r;
}

class Search {
 public:
  Search(PlanEstimator& e, const SearchOptions& o) : e_(e), o_(o) {}

  // Data and tensor parallelism: one call of the sharded @train_step.
  Expected<RankedPlan> flat(int dp, int tp, int zero, bool sp) {
    RankedPlan p = base(dp, tp, 1, zero, sp);
    MLC_TRY(StepFigures f, e_.sharded_step(p.plan.mesh, zero, sp));
    const CallTime s = call_time(f.cost, o_.rates);
    p.gemm_ms = s.gemm / 1e3, p.kernel_ms = s.memory / 1e3, p.overhead_ms = s.overhead / 1e3;
    for (const auto& [axis, us] : f.axis_us) p.comm_ms[axis] = us / 1e3;
    p.step_ms = (s.compute() + s.collectives) / 1e3;
    p.work_ms = s.compute() / 1e3 * dp * tp;
    p.ranks.push_back({f.parameters, f.optimizer_state, f.arena, 0, f.inputs});
    return p;
  }

  Expected<RankedPlan> piped(int dp, int tp, int pp, int zero, bool sp, int m, PipelineScheduleKind kind, int v) {
    RankedPlan p = base(dp, tp, pp, zero, sp);
    p.plan.micro_batches = m;
    p.plan.schedule = kind;
    p.plan.virtual_stages = v;
    const int stages = pp * v;
    const int64_t micro = e_.batch() / dp / m;
    MLC_TRY(PlanEstimator::Pipeline pipe, e_.pipeline_stages(stages, micro));
    MLC_TRY(PipelineSchedule schedule, make_pipeline_schedule(kind, pp, m, v));
    const HostRates& r = o_.rates;
    // Beside tp: what tp does to the whole step on one data rank's worth of
    // work (its compute, its tensors' bytes, its arena, its collectives), from
    // the tp-sharded @train_step against one device's at the model's batch.
    MLC_TRY(StepFigures one, e_.sharded_step(Mesh{}, 0, false));
    double compute_ratio = 1, param_ratio = 1, state_ratio = 1, arena_ratio = 1, tp_us = 0;
    if (tp > 1) {
      MLC_TRY(StepFigures with, e_.sharded_step(make_mesh(1, tp, 1), 0, sp));
      compute_ratio = call_time(with.cost, r).compute() / call_time(one.cost, r).compute();
      param_ratio = with.parameters / one.parameters;
      state_ratio = one.optimizer_state > 0 ? with.optimizer_state / one.optimizer_state : 1;
      arena_ratio = with.arena / one.arena;
      tp_us = with.axis_us["tp"] / dp;  // collectives of a data rank's tokens
    }
    // Beside dp: ZeRO shards the optimizer state (1, 2) and the parameters (3) over it.
    if (zero >= 1) state_ratio /= dp;
    if (zero == 3) param_ratio /= dp;
    auto us = [&](const CallCost& c) { return call_time(c, r).compute() * compute_ratio; };
    double whole = 0, sent = 0;
    for (const StageFigures& st : pipe.stages) {
      whole += us(st.forward) + us(st.backward);
      sent = std::max(sent, st.sent_bytes);
    }
    PipelineDurations d;
    for (const StageFigures& st : pipe.stages) {
      // tp's collectives of one micro-batch, in the stage's share of the step's work.
      const double tp_mb = whole > 0 ? tp_us * (us(st.forward) + us(st.backward)) / whole / m : 0;
      auto ns = [](double x) { return std::max<int64_t>(1, std::llround(x * 1e3)); };
      d.per_stage.push_back({ns(us(st.forward) + tp_mb / 3), ns(us(st.backward) + 2 * tp_mb / 3),
                             ns(us(st.input_grad) + tp_mb / 3), ns(us(st.weight_grad) + tp_mb / 3)});
    }
    d.send_latency = std::llround(link_us(sent) * 1e3);
    MLC_TRY(PipelineTimeline t, simulate_pipeline_schedule(schedule, d));
    const bool split_backward = kind == PipelineScheduleKind::zb1p;
    double update_us = 0, data_us = 0;
    CallTime busiest, slowest_update;
    int64_t most_busy = -1;
    for (int rank = 0; rank < pp; ++rank) {
      PredictedRank pr;
      double rank_update = 0, other = 0, own_shared = 0, grads = 0, tensors = 0;
      CallTime parts, update;
      auto add = [&](CallTime& into, const CallCost& c, double times) {
        const CallTime x = call_time(c, r);
        into.gemm += x.gemm * times * compute_ratio, into.memory += x.memory * times * compute_ratio,
            into.overhead += x.overhead * times * compute_ratio;
      };
      for (int s = rank; s < stages; s += pp) {
        const StageFigures& st = pipe.stages[static_cast<size_t>(s)];
        pr.parameters += st.parameters * param_ratio;
        pr.optimizer_state += st.optimizer_state * state_ratio;
        pr.arena += (split_backward ? st.arena_split : st.arena_whole) * arena_ratio;
        pr.schedule_buffers += m * (st.received + st.seeds) + st.gradient_sums * param_ratio;
        own_shared += st.shared_gradients;
        other = std::max(other, st.other_buffers);
        grads += st.gradient_sums * (param_ratio * (zero == 3 ? dp : 1));
        tensors += st.parameter_tensors;
        rank_update += us(st.update);
        add(update, st.update, 1);
        if (split_backward) {
          for (const CallCost* c : {&st.forward, &st.input_grad, &st.weight_grad}) add(parts, *c, m);
        } else {
          for (const CallCost* c : {&st.forward, &st.backward}) add(parts, *c, m);
        }
      }
      pr.schedule_buffers += (pipe.shared_gradients - own_shared) * param_ratio + other;
      pr.inputs = one.inputs / dp;
      // The data axis: the rank's gradients reduced once per step (all_reduce;
      // with ZeRO reduce_scatter and the updated parameters' all_gather), and
      // with ZeRO 3 its parameters gathered for every micro-batch's forward and backward.
      if (dp > 1) {
        double bytes = zero == 0 ? static_cast<double>(collective_bytes(OpCode::AllReduce, dp, int64_t(grads)))
                                 : static_cast<double>(collective_bytes(OpCode::ReduceScatter, dp, int64_t(grads)) +
                                                       collective_bytes(OpCode::AllGather, dp, int64_t(grads / dp)));
        double calls = tensors * (zero == 0 ? 1 : 2);
        if (zero == 3) {
          bytes += 2.0 * m * static_cast<double>(collective_bytes(OpCode::AllGather, dp, int64_t(grads / dp)));
          calls += 2.0 * m * tensors;
        }
        data_us = std::max(data_us, calls * kCollectiveLatencyUs + bytes / kLinkBytesPerUs);
      }
      p.work_ms += (parts.compute() + update.compute()) / 1e3 * dp * tp;
      if (rank_update > update_us) update_us = rank_update, slowest_update = update;
      if (t.busy[static_cast<size_t>(rank)] > most_busy) most_busy = t.busy[static_cast<size_t>(rank)], busiest = parts;
      p.ranks.push_back(pr);
    }
    // The stages' coupling: shared gradients and squared norms, summed over the ranks.
    double coupling_us = 0;
    if (pipe.shared_gradients > 0) coupling_us += link_us(2 * pipe.shared_gradients * param_ratio);
    for (const StageFigures& st : pipe.stages)
      if (st.other_buffers > 4) {
        coupling_us += link_us(2 * (st.other_buffers - 4));
        break;
      }
    const double makespan_us = static_cast<double>(t.makespan) / 1e3;
    p.bubble = t.bubble_fraction;
    p.idle_ms = std::max(0.0, makespan_us / 1e3 - busiest.compute() / 1e3);
    p.gemm_ms = (busiest.gemm + slowest_update.gemm) / 1e3;
    p.kernel_ms = (busiest.memory + slowest_update.memory) / 1e3;
    p.overhead_ms = (busiest.overhead + slowest_update.overhead) / 1e3;
    p.comm_ms["pp"] = coupling_us / 1e3;
    if (tp > 1) p.comm_ms["tp"] = tp_us / 1e3;
    if (dp > 1) p.comm_ms["dp"] = data_us / 1e3;
    p.step_ms = (makespan_us + update_us + coupling_us + data_us) / 1e3;
    return p;
  }

 private:
  RankedPlan base(int dp, int tp, int pp, int zero, bool sp) {
    RankedPlan p;
    p.dp = dp, p.tp = tp, p.pp = pp;
    ParallelFlags flags;
    flags.mesh = make_mesh(dp, tp, pp);
    flags.zero = zero;
    flags.sequence_parallel = sp;
    p.plan = make_parallel_plan(flags, e_.model().config().parallel);
    p.plan.virtual_stages = 1;
    p.plan.micro_batches = 0;
    p.plan.split_before.clear();
    p.runnable = p.plan.validate().ok();
    return p;
  }

  PlanEstimator& e_;
  const SearchOptions& o_;
};

}  // namespace

std::string RankedPlan::name() const {
  std::string s = plan.mesh.empty() ? "one device" : plan.mesh.str();
  if (dp > 1) s += " zero=" + std::to_string(plan.zero);
  if (tp > 1 && plan.tensor_parallel.sequence_parallel) s += " sp";
  if (pp > 1) {
    s += " m=" + std::to_string(plan.micro_batches) + " " + std::string(pipeline_schedule_kind_name(plan.schedule));
    if (plan.virtual_stages > 1) s += " v=" + std::to_string(plan.virtual_stages);
  }
  return s;
}

nlohmann::ordered_json RankedPlan::json() const {
  nlohmann::ordered_json ranks_json = nlohmann::ordered_json::array();
  for (const PredictedRank& r : ranks)
    ranks_json.push_back({{"parameters", r.parameters}, {"optimizer_state", r.optimizer_state},
                          {"train_step_arena", r.arena}, {"schedule_buffers", r.schedule_buffers},
                          {"batch", r.inputs}, {"total", r.total()}});
  return {{"plan", name()},
          {"mesh", plan.mesh.str()},
          {"zero", plan.zero},
          {"sequence_parallel", plan.tensor_parallel.sequence_parallel},
          {"microbatches", plan.micro_batches},
          {"schedule", pipeline_schedule_kind_name(plan.schedule)},
          {"virtual_stages", plan.virtual_stages},
          {"runnable", runnable},
          {"step_ms", step_ms},
          {"parts_ms", {{"gemm", gemm_ms}, {"memory_bound", kernel_ms}, {"instruction_overhead", overhead_ms},
                        {"idle", idle_ms}, {"communication", comm_ms}}},
          {"bubble", bubble},
          {"work_ms", work_ms},
          {"peak_bytes_per_rank", peak_bytes},
          {"ranks", ranks_json},
          {"reason", reason}};
}

Expected<SearchResult> search_plans(PlanEstimator& e, const SearchOptions& o) {
  const auto t0 = std::chrono::steady_clock::now();
  SearchResult out;
  out.extrapolated_copies = e.extrapolated_copies();
  const int64_t n = o.devices, batch = e.batch();
  const bool has_tp = !e.model().config().parallel.tensor_parallel.empty();
  const int max_stages = e.max_stages();
  // The plans, then what costing them needs built (on every core at once).
  struct Spec {
    int dp, tp, pp, zero;
    bool sp;
    int m = 0, v = 1;
    PipelineScheduleKind kind = PipelineScheduleKind::one_f_one_b;
  };
  std::vector<Spec> specs;
  std::vector<std::tuple<Mesh, int, bool>> steps;
  std::vector<std::pair<int, int64_t>> pipelines;
  for (int64_t pp : divisors(n)) {
    if (pp > max_stages) continue;
    for (int64_t tp : divisors(n / pp)) {
      if (tp > 1 && !has_tp) continue;
      const int64_t dp = n / pp / tp;
      if (batch % dp != 0) continue;
      const int idp = static_cast<int>(dp), itp = static_cast<int>(tp), ipp = static_cast<int>(pp);
      for (int zero = 0; zero <= (dp > 1 ? 3 : 0); ++zero)
        for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp) {
          if (pp == 1) {
            specs.push_back({idp, itp, 1, zero, sp != 0});
            steps.push_back({make_mesh(idp, itp, 1), zero, sp != 0});
            continue;
          }
          steps.push_back({Mesh{}, 0, false});
          if (tp > 1) steps.push_back({make_mesh(1, itp, 1), 0, sp != 0});
          for (int64_t m : divisors(batch / dp)) {
            using K = PipelineScheduleKind;
            std::vector<std::pair<K, int>> schedules = {{K::gpipe, 1}};
            if (m >= pp) schedules.insert(schedules.end(), {{K::one_f_one_b, 1}, {K::zb1p, 1}});
            for (int v = 2; m % pp == 0 && pp * v <= max_stages; ++v) schedules.push_back({K::interleaved, v});
            for (const auto& [kind, v] : schedules) {
              specs.push_back({idp, itp, ipp, zero, sp != 0, static_cast<int>(m), v, kind});
              pipelines.push_back({ipp * v, batch / dp / m});
            }
          }
        }
    }
  }
  out.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  e.prepare(steps, pipelines, out.threads);
  Search search(e, o);
  for (const Spec& s : specs) {
    ++out.enumerated;
    Expected<RankedPlan> costed = s.pp == 1 ? search.flat(s.dp, s.tp, s.zero, s.sp)
                                            : search.piped(s.dp, s.tp, s.pp, s.zero, s.sp, s.m, s.kind, s.v);
    if (!costed) {
      RankedPlan named;
      named.dp = s.dp, named.tp = s.tp, named.pp = s.pp;
      named.plan.mesh = make_mesh(s.dp, s.tp, s.pp);
      named.plan.zero = s.zero;
      named.plan.tensor_parallel.sequence_parallel = s.sp;
      named.plan.micro_batches = s.m;
      named.plan.schedule = s.kind;
      named.plan.virtual_stages = s.v;
      out.failed.push_back({named.name(), costed.error().message});
      continue;
    }
    RankedPlan& p = *costed;
    if (o.runnable_only && !p.runnable) continue;
    for (const PredictedRank& r : p.ranks) p.peak_bytes = std::max(p.peak_bytes, r.total());
    if (o.memory_cap > 0 && p.peak_bytes > static_cast<double>(o.memory_cap)) {
      ++out.over_cap;
      continue;
    }
    p.reason = reason_of(p);
    out.plans.push_back(std::move(p));
  }
  std::stable_sort(out.plans.begin(), out.plans.end(), [](const RankedPlan& a, const RankedPlan& b) {
    if (a.runnable != b.runnable) return a.runnable;
    if (a.step_ms != b.step_ms) return a.step_ms < b.step_ms;
    return a.peak_bytes < b.peak_bytes;
  });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

std::string search_text(const PlanEstimator& e, const SearchResult& r, const SearchOptions& o, size_t top) {
  const ModelConfig& c = e.model().config();
  const std::string cap = o.memory_cap > 0 ? "memory cap " + human_bytes(o.memory_cap) + " per rank" : "no memory cap";
  std::string t = format_line("plan search: %s, batch %lld, %lld devices, %s\n", c.name.c_str(),
                              static_cast<long long>(e.batch()), static_cast<long long>(o.devices), cap.c_str());
  t += format_line("  host: f32 GEMM %.1f GFLOP/s, memory %.1f GB/s, %.2f us per instruction, links %.0f us + "
                   "%.0f GB/s (%s; %d thread%s)\n",
                   o.rates.gemm_gflops, o.rates.memory_gbps, o.rates.instruction_us, kCollectiveLatencyUs,
                   kLinkBytesPerUs / 1e3, o.rates.source.c_str(), o.rates.threads, o.rates.threads == 1 ? "" : "s");
  if (r.extrapolated_copies)
    t += format_line("  identical layers: the %lld blocks costed from models of 1, 2 and 4 blocks\n",
                     static_cast<long long>(r.extrapolated_copies));
  t += format_line("  %d plans enumerated and costed in %.2f s on %d threads: %zu kept, %d over the memory cap, "
                   "%zu could not be costed%s\n",
                   r.enumerated, r.seconds, r.threads, r.plans.size(), r.over_cap, r.failed.size(),
                   o.runnable_only ? " (runnable plans only)" : "; runnable plans first");
  if (!r.failed.empty())
    t += "    first: " + r.failed.front().first + ": " + r.failed.front().second.substr(0, 300) + "\n";
  t += format_line("  %-3s %-40s %-9s %10s %12s  %s\n", "#", "plan", "runnable", "step ms", "peak/rank", "why");
  for (size_t i = 0; i < r.plans.size() && i < top; ++i) {
    const RankedPlan& p = r.plans[i];
    t += format_line("  %-3zu %-40s %-9s %10.3f %12s  %s\n", i + 1, p.name().c_str(), p.runnable ? "yes" : "no",
                     p.step_ms, human_bytes(static_cast<int64_t>(p.peak_bytes)).c_str(), p.reason.c_str());
    std::string ranks;
    for (size_t k = 0; k < p.ranks.size(); ++k)
      ranks += (k ? ", " : "") + human_bytes(static_cast<int64_t>(p.ranks[k].total()));
    const PredictedRank& r0 = p.ranks.front();
    auto bytes = [](double b) { return human_bytes(static_cast<int64_t>(b)); };
    t += format_line("      memory per rank: %s (rank 0: parameters %s, optimizer state %s, arena %s, schedule "
                     "buffers %s, batch %s)\n",
                     ranks.c_str(), bytes(r0.parameters).c_str(), bytes(r0.optimizer_state).c_str(),
                     bytes(r0.arena).c_str(), bytes(r0.schedule_buffers).c_str(), bytes(r0.inputs).c_str());
  }
  return t;
}

nlohmann::ordered_json search_json(const PlanEstimator& e, const SearchResult& r, const SearchOptions& o,
                                   size_t top) {
  nlohmann::ordered_json plans = nlohmann::ordered_json::array();
  for (size_t i = 0; i < r.plans.size() && i < top; ++i) plans.push_back(r.plans[i].json());
  nlohmann::ordered_json failed = nlohmann::ordered_json::array();
  for (const auto& [plan, why] : r.failed) failed.push_back({{"plan", plan}, {"error", why}});
  return {{"model", e.model().config().name},
          {"batch", e.batch()},
          {"devices", o.devices},
          {"memory_cap", o.memory_cap},
          {"host", {{"gemm_gflops", o.rates.gemm_gflops}, {"memory_gbps", o.rates.memory_gbps},
                    {"instruction_us", o.rates.instruction_us}, {"threads", o.rates.threads},
                    {"source", o.rates.source}}},
          {"extrapolated_copies", r.extrapolated_copies},
          {"search_seconds", r.seconds},
          {"threads", r.threads},
          {"enumerated", r.enumerated},
          {"kept", r.plans.size()},
          {"over_cap", r.over_cap},
          {"failed", failed},
          {"plans", plans}};
}

}  // namespace mlc
