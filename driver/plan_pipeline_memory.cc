#include "driver/plan_pipeline_memory.h"

#include <algorithm>
#include <map>

#include "driver/pipeline_step_schedule.h"

namespace mlc {

namespace {

bool is_received(const std::string& buffer) {
  return buffer.starts_with("s") && buffer.find(".mb") != std::string::npos && buffer.find(".in.") != std::string::npos;
}
bool is_seed(const std::string& buffer) {
  return buffer.starts_with("s") && buffer.find(".mb") != std::string::npos && buffer.ends_with(".grad");
}

// The schedule's buffers that StepRunner::bind makes (those a call binds),
// with their bytes, as bind types them.
Expected<std::map<std::string, int64_t>> bound_buffers(const StepSchedule& schedule, const PipelineRankView& view) {
  std::map<std::string, const StepSchedule::Buffer*> by_name;
  for (const StepSchedule::Buffer& b : schedule.buffers) by_name.emplace(b.name, &b);
  std::map<std::string, int64_t> made;
  auto bind = [&](const std::string& name, const TensorType* arg) -> Status {
    auto it = by_name.find(name);
    if (it == by_name.end() || made.count(name)) return {};
    const StepSchedule::Buffer& b = *it->second;
    if (!b.type && !arg) return make_error("mlc internal error: schedule buffer '" + name + "' has no type");
    made[name] = (b.type ? *b.type : *arg).num_bytes();
    return {};
  };
  for (const StepSchedule::Call& c : schedule.calls) {
    if (c.kind != StepSchedule::Kind::function) {
      if (c.kind != StepSchedule::Kind::send || c.from_results.empty()) MLC_CHECK_OK(bind(c.buffer, nullptr));
      continue;
    }
    MLC_TRY(Signature sig, view.signature(c.function, c.batch));
    for (const Signature::Arg& a : sig.args) {
      bool from_result = false;
      for (const StepSchedule::FromResult& r : c.from_results) from_result |= r.arg == a.name;
      if (from_result) continue;
      std::string name = a.name;
      for (const auto& [arg, buffer] : c.buffer_args)
        if (arg == a.name) name = buffer;
      MLC_CHECK_OK(bind(name, &a.type));
    }
  }
  return made;
}

}  // namespace

Expected<std::vector<PlannedPipelineRank>> plan_pipeline_ranks(const Program& program, int64_t batch) {
  MLC_TRY(PipelineSchedule schedule, program.pipeline_schedule());
  const PipelineRankView any = PipelineRankView::planned(program, 0);
  MLC_TRY(PipelineHolders holders, pipeline_tensor_holders(any, batch));
  // Types and kinds of the tensors the stages hold.
  std::map<std::string, std::pair<int64_t, bool>> tensors;  // name -> bytes, is optimizer state
  const int64_t micro = batch / schedule.microbatches;
  for (int s = 0; s < schedule.stages(); ++s)
    for (const char* fn : {"loss_grad", "apply_update"}) {
      MLC_TRY(Signature sig, any.signature("stage" + std::to_string(s) + "." + fn, micro));
      for (const Signature::Arg& a : sig.args)
        if (holders.count(a.name)) tensors[a.name] = {a.type.num_bytes(), a.kind == ArgKind::state};
    }
  std::map<std::pair<std::string, int64_t>, PlannedStepFunction> lowered;  // shared by the ranks
  std::vector<PlannedPipelineRank> ranks;
  for (int r = 0; r < schedule.ranks; ++r) {
    const PipelineRankView view = PipelineRankView::planned(program, r);
    MLC_TRY(StepSchedule steps, build_pipeline_step_schedule(view, batch));
    PlannedPipelineRank out;
    out.rank = r;
    for (int s = r; s < schedule.stages(); s += schedule.ranks) out.stages.push_back(s);
    for (const auto& [name, held] : holders) {
      if (std::find(held.begin(), held.end(), r) == held.end()) continue;
      auto it = tensors.find(name);
      if (it == tensors.end()) return make_error("mlc internal error: pipeline plan: no type for '" + name + "'");
      (it->second.second ? out.optimizer_state : out.parameters) += it->second.first;
    }
    for (const StepSchedule::Call& c : steps.calls) {
      if (c.kind != StepSchedule::Kind::function) continue;
      auto at = std::find_if(out.functions.begin(), out.functions.end(),
                             [&](const PlannedStepFunction& f) { return f.name == c.function && f.batch == c.batch; });
      if (at != out.functions.end()) {
        ++at->calls;
        continue;
      }
      auto& known = lowered[{c.function, c.batch}];
      if (known.name.empty()) {
        MLC_TRY(const Function* f, program.ir(c.function, c.batch));
        MLC_TRY(LoweredFunction l, lower_for_plan(*f));
        known = {c.function, c.batch, 0, l.plan.arena_bytes, call_cost(*f, l)};
      }
      out.functions.push_back(known);
      out.functions.back().calls = 1;
      out.arena += known.arena;
    }
    MLC_TRY(auto buffers, bound_buffers(steps, view));
    for (const auto& [name, bytes] : buffers) {
      if (is_received(name)) out.received += bytes;
      else if (is_seed(name)) out.seeds += bytes;
      else if (name.ends_with(".grad")) out.gradient_sums += bytes;
      else out.other_buffers += bytes;
    }
    ranks.push_back(std::move(out));
  }
  return ranks;
}

}  // namespace mlc
