#include "driver/step_schedule.h"

#include "driver/pipeline_step_schedule.h"
#include "driver/program.h"

namespace mlc {

std::string optimizer_state_function(int64_t grad_accumulation_steps) {
  return grad_accumulation_steps == 1 ? "train_step" : "apply_update";
}

Expected<StepSchedule> build_step_schedule(const Rank& rank, int64_t batch, int64_t grad_accumulation_steps) {
  const int64_t k = grad_accumulation_steps;
  if (pipeline_axis(rank) && k == 1) return build_pipeline_step_schedule(rank, batch);
  StepSchedule s;
  const std::vector<PhaseConfig>& phases = rank.functions->program().config().train.phases;
  if (!phases.empty()) {
    if (k != 1 || rank.world)
      return make_error("mlc internal error: a model trained in phases has no step schedule with " +
                        std::to_string(k) + " micro-batches" + (rank.world ? " on mesh " + rank.mesh.str() : ""));
    for (const PhaseConfig& p : phases) s.calls.push_back({phase_function(p, "train_step"), batch, 0, {}, 0});
    s.sum_losses = true;
    return s;
  }
  if (k == 1) {
    s.calls.push_back({"train_step", batch, 0, {}, 0});
    return s;
  }
  // The user's mistakes are check_grad_accumulation's (driver/train.h), before any schedule is built.
  if (k < 1 || batch % k || rank.world)
    return make_error("mlc internal error: no step schedule for " + std::to_string(k) + " micro-batches of a batch of " +
                      std::to_string(batch) + (rank.world ? " on mesh " + rank.mesh.str() : std::string()));
  const int64_t micro = batch / k;
  MLC_TRY(Signature loss_grad, rank.functions->signature("loss_grad", micro));
  s.micro_batches = k;
  // The gradient sums, named as @accumulate_grads and @apply_update name them.
  std::vector<StepSchedule::FromResult> grads;
  size_t result = 1;  // @loss_grad's results: the loss, then a gradient per {param} argument
  for (const Signature::Arg& a : loss_grad.args)
    if (a.kind == ArgKind::param) {
      s.buffers.push_back({a.name + ".grad", 0, true});
      grads.push_back({a.name + ".micro_grad", 0, result++});
    }
  s.buffers.push_back({"grad_scale", 1.0 / static_cast<double>(k), false});
  for (int64_t j = 0; j < k; ++j) {
    const size_t at = s.calls.size();
    s.calls.push_back({"loss_grad", micro, j, {}, 0});
    for (StepSchedule::FromResult& g : grads) g.call = at;
    s.calls.push_back({"accumulate_grads", micro, j, grads, std::nullopt});
  }
  s.calls.push_back({"apply_update", micro, 0, {}, std::nullopt});
  return s;
}

}  // namespace mlc
