// The figures the plan search (driver/plan_search.h) costs a plan from, per
// device, computed from the compiler's own IR and lowering (compile_kernels
// = false): a data- and tensor-parallel step (the sharded @train_step) and
// the stages of a pipeline (each stage's functions, passes/pipeline_split.h).
//
// Identical layers are costed once: for a model whose top-level repeat has
// more than 2 copies (a transformer's blocks) nothing is built at its depth.
//  - A sharded step is built at depths 1 and 2 (frontends/model_depth.h) and
//    every figure taken as affine in the depth: f(D) = f(1) + (D-1)(f(2) - f(1)).
//  - A pipeline stage is the layers before the blocks (the embedding) or not,
//    k blocks, and the layers after them (head and loss) or not. Its figures
//    are taken from shallow models cut so that their stages have those
//    shapes: depth 2 cut [pre | block | block | post] (k = 0 at either end, 1
//    in the middle), depth 2 cut [pre + block | block + post] (k = 1 at either
//    end), and at depth 4 [pre + 2 blocks | 2 blocks + post] and [pre + block
//    | 2 blocks | block + post] (k = 2): a stage of k >= 1 blocks is its
//    shape at k = 1 plus k - 1 times what the second block added to a stage
//    at its place (first, middle or last).
// The stage cuts are the runtime's (ir/pipeline_stages.h, balanced by forward
// FLOPs at the micro-batch), from the per-layer FLOPs of the depth-1 model.
// Figures linear in the depth come out exact (FLOPs, parameters, optimizer
// state, bytes moved, instructions; the arenas of the models tried so far);
// a model without one repeat of more than 2 copies is built at its own depth.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "driver/plan_cost.h"
#include "frontends/model_file.h"
#include "ir/parallel_plan.h"

namespace mlc {

// Extensive figures of one device's step or of one pipeline stage.
struct StepFigures {
  CallCost cost;  // one step's (a stage: see StageFigures)
  double parameters = 0, optimizer_state = 0, arena = 0, inputs = 0;
  std::map<std::string, double> axis_us;  // the ledger's time per mesh axis (in cost.collective_us)
  template <class F>
  void each(F f) {
    cost.each(f);
    f(parameters), f(optimizer_state), f(arena), f(inputs);
    for (auto& [axis, us] : axis_us) f(us);
  }
};

// One pipeline stage at one micro-batch.
struct StageFigures {
  // One call each: @forward (zero on the last stage, whose backward runs
  // it), @loss_grad + @accumulate_grads, zb1p's @loss_grad_input, and
  // @loss_grad_weight + @accumulate_grads; the step's end: @apply_update and
  // @grad_norms (with clipping).
  CallCost forward, backward, input_grad, weight_grad, update;
  // Arenas of the functions a rank runs for it: with @loss_grad, or with zb1p's halves.
  double arena_whole = 0, arena_split = 0;
  double parameters = 0, optimizer_state = 0;
  double received = 0, seeds = 0;  // bytes per micro-batch: its received activations, their gradient seeds
  double gradient_sums = 0;        // a sum per trainable parameter
  double shared_gradients = 0;     // of its parameters other stages read too (tied weights)
  double other_buffers = 0;        // the gradient scale and the squared norms
  double sent_bytes = 0;           // what it sends per micro-batch
  double parameter_tensors = 0;
  template <class F>
  void each(F f) {
    for (CallCost* c : {&forward, &backward, &input_grad, &weight_grad, &update}) c->each(f);
    f(arena_whole), f(arena_split), f(parameters), f(optimizer_state), f(received), f(seeds), f(gradient_sums),
        f(shared_gradients), f(other_buffers), f(sent_bytes), f(parameter_tensors);
  }
};

class PlanEstimator {
 public:
  // `text` and `path`: the model file as read (the shallow models are made from it).
  static Expected<std::unique_ptr<PlanEstimator>> create(std::string text, std::string path);

  const ModelFile& model() const { return *model_; }
  int64_t batch() const;
  // The repeat's copies when figures are extrapolated from shallow models; 0 when built at the model's depth.
  int64_t extrapolated_copies() const { return copies_ > 2 ? copies_ : 0; }
  // The most pipeline stages the model's layers allow (its cuts + 1).
  int max_stages() const;

  // The sharded @train_step of `mesh` (no pp axis; empty: one device) at the
  // model's batch, per device.
  Expected<StepFigures> sharded_step(const Mesh& mesh, int zero, bool sequence_parallel);
  // The stages of a pipeline of `stages` stages at micro-batch `micro`, as the
  // runtime cuts it, and the gradient sums of the model's shared parameters
  // (every pipeline rank keeps one for each: driver/pipeline_step_schedule.h).
  struct Pipeline {
    std::vector<StageFigures> stages;
    double shared_gradients = 0;
  };
  Expected<Pipeline> pipeline_stages(int stages, int64_t micro);

 // A build's result, kept.
  template <class T>
  struct Built {
    std::optional<T> value;
    std::string error;
  };

  // What sharded_step and pipeline_stages will be asked for, built ahead on
  // `threads` threads at once (each build has its own modules); the calls
  // then find them built, an error included.
  void prepare(const std::vector<std::tuple<Mesh, int, bool>>& steps,
               const std::vector<std::pair<int, int64_t>>& pipelines, int threads);

 private:
  PlanEstimator() = default;
  // Builds at one depth (0: the model's own), cached under a lock: what prepare runs.
  using StepKey = std::tuple<int64_t, std::string, int, bool>;                  // depth, mesh, ZeRO, sp
  using StagesKey = std::tuple<int64_t, std::vector<std::string>, int, int64_t>;  // depth, cuts, stages, micro
  Expected<StepFigures> step_at(const StepKey& key);
  Expected<Pipeline> stages_at(const StagesKey& key);
  Expected<std::vector<int64_t>> layer_flops(int64_t micro);  // forward FLOPs per top-level layer at depth 1
  const ModelFile& at(int64_t depth) const { return depth == 0 ? *model_ : *shallow_.at(depth); }
  // The builds of the shapes' shallow pipelines at a micro-batch (extrapolated models).
  std::vector<StagesKey> shape_keys(int64_t micro) const;
  Expected<std::vector<size_t>> cuts(int stages, int64_t micro);

  std::string text_, path_;
  std::unique_ptr<ModelFile> model_;
  int64_t copies_ = 0;  // of the top-level repeat; 0: none, or several of different counts
  std::map<int64_t, std::unique_ptr<ModelFile>> shallow_;  // depths 1, 2, 4 (extrapolated models)
  std::mutex mutex_;
  std::map<StepKey, Built<StepFigures>> steps_;
  std::map<StagesKey, Built<Pipeline>> stages_;
  std::map<int64_t, Built<std::vector<int64_t>>> flops_;
};

}  // namespace mlc
