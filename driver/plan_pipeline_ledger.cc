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
    if (mesh.axes[k].name == "pp") view.axis = k;
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
  const int64_t micro = batch / view.data_ranks / schedule.microbatches;

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

  // The step's all_reduces, in the order the schedules make them.
  std::set<std::string> over_pp;  // made by every pipeline rank: one entry each
  for (int r = 0; r < p; ++r) {
    const StepSchedule& step = steps[static_cast<size_t>(r)];
    std::map<std::string, TensorType> types;
    for (const StepSchedule::Buffer& b : step.buffers)
      if (b.type) types.emplace(b.name, *b.type);
    for (const StepSchedule::Call& c : step.calls) {
      if (c.kind != StepSchedule::Kind::all_reduce) continue;
      const MeshAxis& axis = mesh.axes.at(static_cast<size_t>(c.axis));
      const bool pipeline = axis.name == "pp";
      if (pipeline && !over_pp.insert(c.buffer).second) continue;
      auto type = types.find(c.buffer);
      if (type == types.end())
        return make_error("mlc internal error: pipeline ledger: no type for buffer '" + c.buffer + "'");
      PipelineLedgerEntry e;
      e.collective = "all_reduce";
      e.axis = axis.name;
      e.rank = pipeline ? -1 : r;
      e.type = type->second;
      e.bytes = collective_bytes(OpCode::AllReduce, axis.size, e.type.num_bytes());
      e.estimated_us = link_us(e.bytes);
      e.value = "%" + c.buffer;
      if (!pipeline) {
        e.consumer = "rank " + std::to_string(r) + "'s gradient sum added over " + axis.name +
                     " (its replicas), before the update";
      } else if (c.buffer == kGradNormsArg) {
        e.consumer = "global-norm clipping: every stage's squared gradient norms summed over pp";
      } else {
        const std::string param = c.buffer.substr(0, c.buffer.size() - std::string(".grad").size());
        e.consumer = "shared " + param + " (tied): its stages' gradient parts summed over pp, before their updates";
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
  loss.consumer = "each rank's mean loss (0 but on the last stage's) summed over all " +
                  std::to_string(mesh.num_devices()) + " ranks, divided by the " + std::to_string(view.data_ranks) +
                  " replica" + (view.data_ranks == 1 ? "" : "s");
  ledger.push_back(loss);
  for (size_t i = 0; i < ledger.size(); ++i) ledger[i].id = static_cast<int>(i);
  return ledger;
}

PipelineLedgerReport pipeline_ledger_report(const std::vector<PipelineLedgerEntry>& ledger, int pipeline_ranks,
                                            int64_t replicas, int64_t micro_batch) {
  PipelineLedgerReport r;
  std::vector<std::string> axes;  // in order of first appearance
  for (const PipelineLedgerEntry& e : ledger)
    if (std::find(axes.begin(), axes.end(), e.axis) == axes.end()) axes.push_back(e.axis);
  struct Sum {
    int64_t bytes = 0, sends = 0, all_reduces = 0;
    double us = 0;
    void add(const PipelineLedgerEntry& e, int64_t times) {
      bytes += e.step_bytes() * times, us += e.step_us() * times;
      (e.collective == "send/recv" ? sends : all_reduces) += e.per_step * times;
    }
    nlohmann::ordered_json json() const {
      return {{"bytes", bytes}, {"sends", sends}, {"all_reduces", all_reduces}, {"collectives", sends + all_reduces},
              {"estimated_us", us}};
    }
    std::string str() const {
      std::string what;
      if (sends) what = std::to_string(sends) + " send" + (sends == 1 ? "" : "s");
      if (all_reduces)
        what += (what.empty() ? "" : " + ") + std::to_string(all_reduces) + " all_reduce" + (all_reduces == 1 ? "" : "s");
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
      for (const PipelineLedgerEntry& e : ledger)
        if (e.axis == axis && e.sends_from(rank)) {
          s.add(e, 1);
          totals[axis].add(e, replicas);
        }
      if (!s.bytes && !s.sends && !s.all_reduces) continue;
      jaxes[axis] = s.json();
      r.text += format_line("      rank %-3d %-6s %s\n", rank, axis.c_str(), s.str().c_str());
    }
    r.communication["ranks"].push_back({{"rank", rank}, {"axes", jaxes}});
  }
  // The step over every device: each pipeline rank's figures times its replicas.
  const int64_t devices = pipeline_ranks * replicas;
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
    } else {
      j["rank"] = e.rank >= 0 ? nlohmann::ordered_json(e.rank) : nlohmann::ordered_json("all");
      where = e.rank >= 0 ? format_line("rank %d's replicas", e.rank) : std::string("every rank");
    }
    j["type"] = e.type.str();
    j["bytes"] = e.bytes;
    j["per_step"] = e.per_step;
    j["bytes_per_step"] = e.step_bytes();
    j["estimated_us"] = e.estimated_us;
    j["estimated_us_per_step"] = e.step_us();
    r.ledger.push_back(std::move(j));
    r.text += format_line("      #%-3d %-14s %-5s %-28s %-16s %10s %7.1f us", e.id, e.collective.c_str(), e.axis.c_str(),
                          where.c_str(), e.type.str().c_str(), human_bytes(e.bytes).c_str(), e.estimated_us);
    if (e.per_step != 1)
      r.text += format_line("  x%d per step: %s, %.1f us", e.per_step, human_bytes(e.step_bytes()).c_str(), e.step_us());
    r.text += "\n           value " + e.value + "; for " + e.consumer + "\n";
  }
  return r;
}

}  // namespace mlc
