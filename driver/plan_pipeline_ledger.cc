#include "driver/plan_pipeline_ledger.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "driver/plan_parallel.h"
#include "ir/op_code.h"
#include "passes/optimizer.h"
#include "passes/pipeline_split.h"
#include "passes/sharding.h"

namespace mlc {

bool PipelineLedgerEntry::sends_from(int pipeline_rank) const {
  if (collective == "send/recv") return from_rank == pipeline_rank;
  return rank < 0 || rank == pipeline_rank;
}

namespace {

std::string stage_fn(int stage, const char* name) { return "stage" + std::to_string(stage) + "." + name; }

double link_us(int64_t bytes) { return kCollectiveLatencyUs + static_cast<double>(bytes) / kLinkBytesPerUs; }

// K of an argument named pipe.in.K; -1 for any other name.
int received_index(const std::string& name) {
  const std::string prefix = pipeline_received_name(0).substr(0, pipeline_received_name(0).size() - 1);
  if (!name.starts_with(prefix)) return -1;
  int k = -1;
  const char* end = name.data() + name.size();
  auto [at, ec] = std::from_chars(name.data() + prefix.size(), end, k);
  return ec == std::errc() && at == end ? k : -1;
}

// Stage `stage`'s sent value `k` as the ledger names it: its producer,
// followed back through the stages that send it along.
Expected<std::string> sent_value_name(const Program& program, int stage, size_t k, int64_t micro) {
  for (int s = stage; s >= 0; --s) {
    MLC_TRY(const Function* f, program.ir(stage_fn(s, "forward"), micro));
    if (k >= f->results.size())
      return make_error("mlc internal error: pipeline ledger: stage " + std::to_string(s) + " sends no value " +
                        std::to_string(k));
    const Value* v = f->results[k];
    // A collective the sharding pass inserted moves the value its operand is.
    while (v->producer && v->producer->meta.ledger >= 0 && !v->producer->operands.empty())
      v = v->producer->operands[0];
    if (v->producer) return describe_op(*v->producer);
    const int along = received_index(v->name);
    if (along < 0) return "%" + v->name;
    k = static_cast<size_t>(along);
  }
  return make_error("mlc internal error: pipeline ledger: the first stage sends a value it received");
}

// How many actions of `kind` the schedule has for `stage`: a send per micro-batch.
int count_actions(const PipelineSchedule& schedule, PipelineActionKind kind, int stage) {
  int n = 0;
  for (const auto& rank : schedule.actions)
    for (const PipelineAction& a : rank) n += a.kind == kind && a.stage == stage;
  return n;
}

}  // namespace

PipelineRankView planned_pipeline_view(const Program& program, int me) {
  PipelineRankView view = PipelineRankView::planned(program, me);
  const Mesh& mesh = program.parallel().mesh;
  for (size_t k = 0; k < mesh.axes.size(); ++k) {
    if (mesh.axes[k].name == "pp") {
      view.axis = k;
      continue;
    }
    view.stage_ranks *= mesh.axes[k].size;
    if (!is_data_axis(mesh.axes[k].name)) continue;
    view.data_axes.emplace_back(k, mesh.axes[k].name);
    view.data_ranks *= mesh.axes[k].size;
  }
  return view;
}

Expected<std::vector<PipelineLedgerEntry>> pipeline_ledger(const Program& program, int64_t batch) {
  MLC_TRY(PipelineSchedule schedule, program.pipeline_schedule());
  const Mesh& mesh = program.parallel().mesh;
  const int p = schedule.ranks, stages = schedule.stages();
  std::vector<PipelineLedgerEntry> ledger;
  // The step schedules first: they check that the batch divides.
  std::vector<StepSchedule> steps;
  for (int r = 0; r < p; ++r) {
    MLC_TRY(StepSchedule s, build_pipeline_step_schedule(planned_pipeline_view(program, r), batch));
    steps.push_back(std::move(s));
  }
  const PipelineRankView view = planned_pipeline_view(program, 0);
  // The stages' functions are built for the global micro-batch (sharded over
  // the axes beside pp, their signatures' types are local).
  const int64_t micro = batch / schedule.microbatches;

  // Activations forward, their gradients back: per cut, per sent value.
  for (int s = 0; s + 1 < stages; ++s) {
    MLC_TRY(Signature forward, view.signature(stage_fn(s, "forward"), micro));
    for (size_t k = 0; k < forward.results.size(); ++k) {
      MLC_TRY(std::string value, sent_value_name(program, s, k, micro));
      const TensorType& type = forward.results[k].type;
      PipelineLedgerEntry e;
      e.collective = "send/recv";
      e.axis = "pp";
      e.type = type;
      e.bytes = type.num_bytes();
      e.estimated_us = link_us(e.bytes);
      e.from_stage = s, e.to_stage = s + 1;
      e.from_rank = schedule.rank_of_stage(s), e.to_rank = schedule.rank_of_stage(s + 1);
      e.value = value;
      e.consumer = "stage " + std::to_string(s + 1) + "'s " + pipeline_received_name(k) + " (activation, F)";
      e.per_step = count_actions(schedule, PipelineActionKind::SEND_F, s);
      ledger.push_back(e);
      if (!PipelineStageProgram::has_gradient(type)) continue;
      std::swap(e.from_stage, e.to_stage);
      std::swap(e.from_rank, e.to_rank);
      e.value = "gradient of " + value;
      e.consumer = "stage " + std::to_string(s) + "'s " + pipeline_seed_name(k) + " (input gradient, B)";
      e.per_step = count_actions(schedule, PipelineActionKind::SEND_B, s + 1);
      ledger.push_back(e);
    }
  }

  // Within the stages' functions sharded over the axes beside pp (their
  // sharding ledgers: tp's collectives, the data axes' gradient reductions
  // in @apply_update, ZeRO's gathers), times their calls per step.
  for (int r = 0; r < p; ++r) {
    std::vector<std::pair<std::string, int64_t>> order;  // (function, batch) by first call
    std::map<std::pair<std::string, int64_t>, int> calls;
    for (const StepSchedule::Call& c : steps[static_cast<size_t>(r)].calls) {
      if (c.kind != StepSchedule::Kind::function) continue;
      if (!calls[{c.function, c.batch}]++) order.emplace_back(c.function, c.batch);
    }
    for (const auto& key : order) {
      MLC_TRY(const std::vector<LedgerEntry>* entries, program.stage_ledger(key.first, key.second));
      for (const LedgerEntry& x : *entries) {
        PipelineLedgerEntry e;
        e.collective = x.collective;
        e.axis = x.axis;
        e.rank = r;
        e.function = key.first;
        e.from = x.from, e.to = x.to;
        e.type = x.type;
        e.bytes = x.bytes;
        e.estimated_us = x.estimated_us;
        e.per_step = calls[key];
        e.value = x.value;
        e.consumer = x.consumer;
        ledger.push_back(std::move(e));
      }
    }
  }

  // The step schedule's all_reduces over pp, made by every pipeline rank in one order.
  std::set<std::string> made;
  for (int r = 0; r < p; ++r) {
    const StepSchedule& step = steps[static_cast<size_t>(r)];
    std::map<std::string, TensorType> types;
    for (const StepSchedule::Buffer& b : step.buffers)
      if (b.type) types.emplace(b.name, *b.type);
    for (const StepSchedule::Call& c : step.calls) {
      if (c.kind != StepSchedule::Kind::all_reduce || !made.insert(c.buffer).second) continue;
      const MeshAxis& axis = mesh.axes.at(static_cast<size_t>(c.axis));
      auto type = types.find(c.buffer);
      if (type == types.end())
        return make_error("mlc internal error: pipeline ledger: no type for buffer '" + c.buffer + "'");
      PipelineLedgerEntry e;
      e.collective = "all_reduce";
      e.axis = axis.name;
      e.type = type->second;
      e.bytes = collective_bytes(OpCode::AllReduce, axis.size, e.type.num_bytes());
      e.estimated_us = link_us(e.bytes);
      e.value = "%" + c.buffer;
      if (c.buffer == kGradNormsArg) {
        e.consumer = "global-norm clipping: every stage's squared gradient norms summed over " + axis.name;
      } else {
        const std::string param = c.buffer.substr(0, c.buffer.size() - std::string(".grad").size());
        e.consumer = "shared " + param + " (tied): its stages' gradient parts summed over " + axis.name +
                     ", before their updates";
      }
      ledger.push_back(e);
    }
  }
  // The step's loss (driver/step_runner.h): each rank's mean, summed over every rank.
  PipelineLedgerEntry loss;
  loss.collective = "all_reduce";
  loss.axis = "world";
  loss.type = TensorType{DType::f64, {}};
  loss.bytes = collective_bytes(OpCode::AllReduce, mesh.num_devices(), loss.type.num_bytes());
  loss.estimated_us = link_us(loss.bytes);
  loss.value = "the step's loss";
  loss.consumer = "each rank's mean loss (0 but on the last stage's ranks) summed over all " +
                  std::to_string(mesh.num_devices()) + " ranks, divided by the last stage's " +
                  std::to_string(view.stage_ranks) + " rank" + (view.stage_ranks == 1 ? "" : "s");
  ledger.push_back(loss);
  for (size_t i = 0; i < ledger.size(); ++i) ledger[i].id = static_cast<int>(i);
  return ledger;
}

PipelineLedgerReport pipeline_ledger_report(const std::vector<PipelineLedgerEntry>& ledger, int pipeline_ranks,
                                            int64_t stage_ranks, int64_t micro_batch) {
  PipelineLedgerReport r;
  std::vector<std::string> axes;  // in order of first appearance
  for (const PipelineLedgerEntry& e : ledger)
    if (std::find(axes.begin(), axes.end(), e.axis) == axes.end()) axes.push_back(e.axis);
  struct Sum {
    int64_t bytes = 0, sends = 0, collectives = 0;
    double us = 0;
    void add(const PipelineLedgerEntry& e, int64_t times) {
      bytes += e.step_bytes() * times, us += e.step_us() * times;
      if (e.communicates()) (e.collective == "send/recv" ? sends : collectives) += e.per_step * times;
    }
    nlohmann::ordered_json json() const {
      return {{"bytes", bytes}, {"sends", sends}, {"collectives", collectives}, {"estimated_us", us}};
    }
    std::string str() const {
      std::string what;
      if (sends) what = std::to_string(sends) + " send" + (sends == 1 ? "" : "s");
      if (collectives || !sends)
        what += (what.empty() ? "" : " + ") + std::to_string(collectives) + " collective" + (collectives == 1 ? "" : "s");
      return format_line("%10s in %s, estimated %.1f us", human_bytes(bytes).c_str(), what.c_str(), us);
    }
  };
  r.text = format_line("    communication per step and device of each pipeline rank (%.0f us latency + %.0f GB/s per "
                       "message)\n",
                       kCollectiveLatencyUs, kLinkBytesPerUs / 1e3);
  r.communication["ranks"] = nlohmann::ordered_json::array();
  std::map<std::string, Sum> totals;
  for (int rank = 0; rank < pipeline_ranks; ++rank) {
    nlohmann::ordered_json jaxes = nlohmann::ordered_json::object();
    for (const std::string& axis : axes) {
      Sum s;
      bool any = false;
      for (const PipelineLedgerEntry& e : ledger)
        if (e.axis == axis && e.sends_from(rank)) {
          any = true;
          s.add(e, 1);
          totals[axis].add(e, stage_ranks);
        }
      if (!any) continue;
      jaxes[axis] = s.json();
      r.text += format_line("      rank %-3d %-6s %s\n", rank, axis.c_str(), s.str().c_str());
    }
    r.communication["ranks"].push_back({{"rank", rank}, {"axes", jaxes}});
  }
  // The step over every device: each pipeline rank's figures times its devices.
  const int64_t devices = pipeline_ranks * stage_ranks;
  r.text += format_line("    communication per step, all %lld devices (the sum of what each sends and of the collectives "
                        "each takes part in)\n",
                        static_cast<long long>(devices));
  nlohmann::ordered_json jtotal = nlohmann::ordered_json::object();
  for (const std::string& axis : axes) {
    jtotal[axis] = totals[axis].json();
    r.text += format_line("      %-10s %s\n", axis.c_str(), totals[axis].str().c_str());
  }
  r.communication["devices"] = devices;
  r.communication["total"] = jtotal;

  r.text += format_line("    collective ledger of the pipelined step (%zu entries; a send/recv per micro-batch of %lld "
                        "example%s)\n",
                        ledger.size(), static_cast<long long>(micro_batch), micro_batch == 1 ? "" : "s");
  r.ledger = nlohmann::ordered_json::array();
  for (const PipelineLedgerEntry& e : ledger) {
    nlohmann::ordered_json j = {{"id", e.id}, {"collective", e.collective}, {"axis", e.axis}, {"value", e.value},
                                {"consumer", e.consumer}};
    std::string where;
    if (e.collective == "send/recv") {
      j["from_stage"] = e.from_stage, j["to_stage"] = e.to_stage;
      j["from_rank"] = e.from_rank, j["to_rank"] = e.to_rank;
      where = format_line("stage %d -> %d (rank %d -> %d)", e.from_stage, e.to_stage, e.from_rank, e.to_rank);
    } else if (e.rank >= 0) {
      j["rank"] = e.rank;
      j["function"] = e.function;
      j["from"] = placements_str(e.from), j["to"] = placements_str(e.to);
      where = "rank " + std::to_string(e.rank) + " @" + e.function;
    } else {
      j["rank"] = "all";
      where = "every rank";
    }
    j["type"] = e.type.str();
    j["bytes"] = e.bytes;
    j["per_step"] = e.per_step;
    j["bytes_per_step"] = e.step_bytes();
    j["estimated_us"] = e.estimated_us;
    j["estimated_us_per_step"] = e.step_us();
    r.ledger.push_back(std::move(j));
    r.text += format_line("      #%-3d %-14s %-5s %-30s %-16s %10s %7.1f us", e.id, e.collective.c_str(), e.axis.c_str(),
                          where.c_str(), e.type.str().c_str(), human_bytes(e.bytes).c_str(), e.estimated_us);
    if (e.per_step != 1)
      r.text += format_line("  x%d per step: %s, %.1f us", e.per_step, human_bytes(e.step_bytes()).c_str(), e.step_us());
    r.text += "\n           value " + e.value + "; for " + e.consumer +
              (e.from.empty() ? "" : "; " + placements_str(e.from) + " -> " + placements_str(e.to)) + "\n";
  }
  return r;
}

}  // namespace mlc
