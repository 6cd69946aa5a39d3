#include "driver/plan_pipeline.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <numeric>
#include <optional>

#include "compiler/pass_pipeline.h"
#include "driver/plan_parallel.h"
#include "driver/plan_pipeline_ledger.h"
#include "driver/plan_pipeline_memory.h"
#include "driver/program.h"
#include "ir/pipeline_schedule.h"
#include "ir/pipeline_stages.h"

namespace mlc {

namespace {

std::string join(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

Expected<std::optional<PipelineTiming>> pipeline_timing(const ModelFile& model, const PipelineFlags& flags) {
  const ModelConfig& config = model.config();
  const PipelineConfig& section = config.parallel.pipeline;
  if (!section.given && flags.ranks == 0) {
    if (flags.microbatches > 0 || flags.schedule || flags.virtual_stages > 0)
      return make_error("--microbatches, --schedule and --virtual-stages plan a pipeline: give --mesh pp=N too, or a "
                        "\"pipeline\" in the model file's \"parallel\" section");
    return std::optional<PipelineTiming>{};
  }
  const int p = flags.ranks > 0 ? flags.ranks : section.stages;
  const int v = flags.virtual_stages > 0 ? flags.virtual_stages : section.virtual_stages;
  const int m = flags.microbatches > 0                ? flags.microbatches
                : section.microbatches_loc.known()    ? section.microbatches
                                                      : p;
  const PipelineScheduleKind kind = flags.schedule ? *flags.schedule : section.schedule;
  if (p == 1 && m == 1) return std::optional<PipelineTiming>{};
  PipelineTiming timing;
  MLC_TRY(timing.schedule, make_pipeline_schedule(kind, p, m, v));
  const int stages = timing.schedule.stages();
  if (!section.split_before.empty() && section.split_before.size() + 1 != static_cast<size_t>(stages))
    return make_error(section.loc.str() + ": error: parallel.pipeline.split_before makes " +
                      std::to_string(section.split_before.size() + 1) + " stages, but the pipeline has " +
                      std::to_string(p) + " ranks of " + std::to_string(v) + " stages");
  // The data axes beside pp replicate the pipeline: each replica takes its share of the batch.
  int64_t replicas = 1;
  for (const MeshAxis& a : flags.beside.axes)
    if (is_data_axis(a.name)) replicas *= a.size;
  timing.batch = config.trial_batch();
  const int64_t local = timing.batch / replicas;
  if (timing.batch % replicas != 0 || local % m != 0)
    return make_error("parallel.pipeline.microbatches: the batch of " + std::to_string(timing.batch) +
                      (replicas > 1 ? " (" + std::to_string(local) + " on each of " + std::to_string(replicas) +
                                          " data ranks)"
                                    : std::string()) +
                      " is not a multiple of " + std::to_string(m) + " micro-batches");
  timing.micro = local / m;
  // One micro-batch's forward and backward, on one device.
  MLC_TRY(Module module, model.build(timing.micro));
  PassPipelineOptions options;
  options.mixed_precision = config.train.mixed_precision;
  MLC_CHECK_OK(run_pass_pipeline(module, options, "autodiff"));
  MLC_TRY(timing.stages, plan_pipeline_stages(*module.find("loss"), config.layers, config.params,
                                              section.split_before, stages));
  add_pipeline_activation_bytes(*module.find("loss_grad"), config.layers, timing.stages);

  // Units of a quarter of the slowest stage's forward, coarsened by the scales' gcd.
  PipelineDurations& durations = timing.durations;
  int64_t slowest = 1;
  for (const PipelineStageInfo& s : timing.stages.stages) slowest = std::max(slowest, s.flops);
  int64_t unit = std::max<int64_t>(1, slowest / 4), g = 0;
  for (const PipelineStageInfo& s : timing.stages.stages) {
    durations.stage_scale.push_back(std::max<int64_t>(1, (s.flops + unit / 2) / unit));
    g = std::gcd(g, durations.stage_scale.back());
  }
  for (int64_t& x : durations.stage_scale) x /= g;
  timing.unit_flops = unit * g;
  MLC_TRY(timing.timeline, simulate_pipeline_schedule(timing.schedule, durations));
  timing.formula = pipeline_bubble_formula(timing.schedule, durations);
  return std::optional<PipelineTiming>{std::move(timing)};
}

Expected<std::optional<PipelineReport>> pipeline_report(const ModelFile& model, const PipelineFlags& flags) {
  MLC_TRY(std::optional<PipelineTiming> timed, pipeline_timing(model, flags));
  if (!timed) return std::optional<PipelineReport>{};
  const ModelConfig& config = model.config();
  const PipelineConfig& section = config.parallel.pipeline;
  const PipelineSchedule& schedule = timed->schedule;
  const PipelineStagePlan& plan = timed->stages;
  const PipelineDurations& durations = timed->durations;
  const PipelineTimeline& timeline = timed->timeline;
  const int p = schedule.ranks, v = schedule.virtual_stages, m = schedule.microbatches, stages = schedule.stages();
  const PipelineScheduleKind kind = schedule.kind;
  const int64_t batch = timed->batch, micro = timed->micro, unit = timed->unit_flops;
  const double formula = timed->formula;

  PipelineReport r;
  std::string& t = r.text;
  const int64_t replicas = batch / (micro * m);
  t += format_line("  pipeline            p=%d ranks, v=%d stages per rank: %d stages; m=%d micro-batches of %lld%s; %s\n",
                   p, v, stages, m, static_cast<long long>(micro),
                   replicas > 1 ? format_line(" on each of %lld replicas", static_cast<long long>(replicas)).c_str() : "",
                   std::string(pipeline_schedule_kind_name(kind)).c_str());
  t += "    runs with mlc run --mesh pp=N, whose stages recompute their forward in the backward: the stash below "
       "is a stashing pipeline's (the forward's intermediates); what each rank of the run holds is predicted at the "
       "end\n";
  t += std::string("    cuts              ") + (section.split_before.empty() ? "balanced by forward FLOPs" : "split_before") +
       "; the first stage holds the embedding, the last the head and the loss\n";
  nlohmann::ordered_json jstages = nlohmann::ordered_json::array();
  for (size_t s = 0; s < plan.stages.size(); ++s) {
    const PipelineStageInfo& st = plan.stages[s];
    t += format_line("    stage %zu (rank %d)  forward %.4g FLOPs, %lld params, activations %s per micro-batch: %s\n", s,
                schedule.rank_of_stage(static_cast<int>(s)), static_cast<double>(st.flops),
                static_cast<long long>(st.params), human_bytes(st.activation_bytes).c_str(), join(st.layers).c_str());
    jstages.push_back({{"stage", s}, {"rank", schedule.rank_of_stage(static_cast<int>(s))}, {"layers", st.layers},
                       {"forward_flops", st.flops}, {"parameters", st.params},
                       {"activation_bytes_per_microbatch", st.activation_bytes}});
  }
  nlohmann::ordered_json jcuts = nlohmann::ordered_json::array();
  for (size_t k = 0; k < plan.crossings.size(); ++k) {
    int64_t bytes = 0;
    for (const PipelineCrossing& c : plan.crossings[k]) bytes += c.bytes;
    t += format_line("    cut %zu|%zu before %s: %s per micro-batch\n", k, k + 1, config.layers[plan.cuts[k]].name.c_str(),
                human_bytes(bytes).c_str());
    nlohmann::ordered_json values = nlohmann::ordered_json::array();
    for (const PipelineCrossing& c : plan.crossings[k]) {
      const bool along = c.from_stage < static_cast<int>(k) || c.to_stage > static_cast<int>(k) + 1;
      std::string route = along ? format_line(" (stage %d to %d, sent along)", c.from_stage, c.to_stage) : "";
      t += format_line("      %s %s, %s%s\n", c.type.str().c_str(), c.producer.c_str(), human_bytes(c.bytes).c_str(),
                  route.c_str());
      values.push_back({{"type", c.type.str()}, {"producer", c.producer}, {"bytes", c.bytes},
                        {"from_stage", c.from_stage}, {"to_stage", c.to_stage}, {"sent_along", along}});
    }
    jcuts.push_back({{"before", config.layers[plan.cuts[k]].name}, {"bytes_per_microbatch", bytes}, {"values", values}});
  }
  t += format_line("    schedule          time unit %.4g FLOPs (about a quarter of the slowest stage's forward of one "
              "micro-batch or coarser); stage s takes F x its factor, B = 2F\n",
              static_cast<double>(unit));
  std::string grid = print_pipeline_schedule(schedule, timeline, durations);
  for (size_t pos = 0; pos < grid.size();) {
    size_t nl = grid.find('\n', pos);
    t += "      " + grid.substr(pos, nl - pos) + "\n";
    pos = nl == std::string::npos ? grid.size() : nl + 1;
  }
  t += format_line("    bubble            %.4f simulated, textbook %s = %.4f\n", timeline.bubble_fraction,
              std::string(pipeline_bubble_formula_text(kind)).c_str(), formula);
  nlohmann::ordered_json jranks = nlohmann::ordered_json::array();
  for (int rank = 0; rank < p; ++rank) {
    int64_t per = 0;
    for (int s = rank; s < stages; s += p) per = std::max(per, plan.stages[static_cast<size_t>(s)].activation_bytes);
    const int peak = timeline.peak_stashed[static_cast<size_t>(rank)];
    t += format_line("    rank %d            stashes at most %d micro-batches x %s = %s of activations\n", rank, peak,
                human_bytes(per).c_str(), human_bytes(peak * per).c_str());
    jranks.push_back({{"rank", rank}, {"peak_stashed_microbatches", peak}, {"activation_bytes_per_microbatch", per},
                      {"stashed_activation_bytes", peak * per}, {"busy", timeline.busy[static_cast<size_t>(rank)]},
                      {"idle", timeline.idle[static_cast<size_t>(rank)]}});
  }
  // What each rank of `mlc run --mesh pp=N` holds (driver/plan_pipeline_memory.h).
  ParallelPlan run_plan;
  run_plan.mesh = flags.beside;
  run_plan.mesh.axes.push_back({"pp", p});
  run_plan.zero = flags.zero;
  run_plan.tensor_parallel = {config.parallel.tensor_parallel, flags.sequence_parallel};
  run_plan.micro_batches = m;
  run_plan.virtual_stages = v;
  run_plan.schedule = kind;
  run_plan.split_before = section.split_before;
  const Program program = Program::from_model(model, Backend::compiled, run_plan);
  std::vector<PlannedPipelineRank> planned;
  if (p > 1) {
    MLC_TRY(planned, plan_pipeline_ranks(program, batch));
    t += flags.beside.empty()
             ? "    each rank of mlc run, predicted as it measures it (memory of rank R: ...)\n"
             : "    each pipeline rank of mlc run on " + run_plan.mesh.str() +
                   " (every rank at its pp coordinate), predicted as it measures it (memory of rank R: ...)\n";
  }
  nlohmann::ordered_json jplanned = nlohmann::ordered_json::array();
  auto bytes = [](int64_t b) { return human_bytes(b) + " (" + std::to_string(b) + " B)"; };
  for (const PlannedPipelineRank& pr : planned) {
    t += format_line("    rank %d            parameters %s, optimizer state %s, train-step arena %s, schedule buffers %s\n",
                pr.rank, bytes(pr.parameters).c_str(), bytes(pr.optimizer_state).c_str(), bytes(pr.arena).c_str(),
                bytes(pr.schedule_buffers()).c_str());
    t += format_line("                      schedule buffers: received activations %s, gradient seeds %s, gradient sums "
                "%s, other %s\n",
                human_bytes(pr.received).c_str(), human_bytes(pr.seeds).c_str(), human_bytes(pr.gradient_sums).c_str(),
                human_bytes(pr.other_buffers).c_str());
    std::string fns;
    nlohmann::ordered_json jfns = nlohmann::ordered_json::array();
    for (const PlannedStepFunction& f : pr.functions) {
      fns += format_line("%s%s x%d %s", fns.empty() ? "" : ", ", f.name.c_str(), f.calls, human_bytes(f.arena).c_str());
      jfns.push_back({{"name", f.name}, {"batch", f.batch}, {"calls", f.calls}, {"arena_bytes", f.arena},
                      {"flops", f.cost.gemm_flops + f.cost.other_flops}, {"instructions", f.cost.instructions}});
    }
    t += "                      arenas: " + fns + "\n";
    jplanned.push_back({{"rank", pr.rank}, {"stages", pr.stages}, {"parameters", pr.parameters},
                        {"optimizer_state", pr.optimizer_state}, {"train_step_arena", pr.arena},
                        {"schedule_buffers", pr.schedule_buffers()},
                        {"schedule_buffers_by_kind", {{"received_activations", pr.received},
                                                      {"gradient_seeds", pr.seeds},
                                                      {"gradient_sums", pr.gradient_sums},
                                                      {"other", pr.other_buffers}}},
                        {"functions", jfns}});
  }
  // The collective ledger of the run (driver/plan_pipeline_ledger.h).
  nlohmann::ordered_json jledger = nlohmann::ordered_json::array(), jcomm = nlohmann::ordered_json::object();
  if (p > 1) {
    MLC_TRY(std::vector<PipelineLedgerEntry> ledger, pipeline_ledger(program, batch));
    int64_t stage_ranks = 1;  // the devices of one pipeline rank
    for (const MeshAxis& a : flags.beside.axes) stage_ranks *= a.size;
    PipelineLedgerReport lr = pipeline_ledger_report(ledger, p, stage_ranks, micro);
    t += lr.text;
    jledger = std::move(lr.ledger);
    jcomm = std::move(lr.communication);
  }
  r.json = {{"implemented", true},
            {"ranks", p}, {"virtual_stages", v}, {"stages", stages}, {"microbatches", m},
            {"microbatch_size", micro}, {"schedule", pipeline_schedule_kind_name(kind)},
            {"cuts", section.split_before.empty() ? "balanced_forward_flops" : "split_before"},
            {"stage_plan", jstages}, {"crossings", jcuts},
            {"time_unit_flops", unit}, {"stage_scale", durations.stage_scale},
            {"makespan", timeline.makespan},
            {"bubble", {{"simulated", timeline.bubble_fraction}, {"formula", pipeline_bubble_formula_text(kind)},
                        {"textbook", formula}}},
            {"ranks_memory", jranks},
            {"run_ranks", jplanned},
            {"communication_per_step", jcomm},
            {"ledger", jledger},
            {"actions", pipeline_actions_str(schedule)}};
  return std::optional<PipelineReport>{std::move(r)};
}

}  // namespace mlc
