// Where a training run's functions come from: a model file, compiled on
// demand (frontend, pass pipeline, lowering), or an artifact written by
// `mlc compile` (executables compiled ahead of time, no compiler involved).
//
// Functions: "train_step", "optimizer_init" and "loss_grad" (after the whole
// pipeline), "accumulate_grads" and "apply_update" (the same, with the
// optimizer pass's update functions: gradient accumulation, passes/optimizer.h),
// "eval" and "loss" (as the frontend builds them), "predict" (the model's
// outputs, passes/predict_function.h; model files only), "predict:PATH" (the
// output of the module at PATH, mlc predict --value; model files only), "prefill" and
// "decode" (`mlc generate`'s, batch 1; model files only), each for a batch size. An artifact holds the batch sizes it was compiled for; asking it
// for another is an Error that says which it has and how to compile more.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "frontends/model_file.h"
#include "ir/parallel_plan.h"
#include "ir/pipeline_schedule.h"
#include "passes/sharding.h"
#include "runtime/artifact.h"
#include "driver/step_function.h"

namespace mlc {

// "accumulate_grads" or "apply_update": functions of the pipeline built with
// its update functions (PassPipelineOptions::update_functions).
bool is_update_function(const std::string& name);

// A model trained in phases (train.phases, frontends/phases_section.h): phase
// P's functions are "P.loss", "P.eval" (frontends' build_phase) and, after
// the pass pipeline with P's optimizer, "P.loss_grad", "P.train_step" and
// "P.optimizer_init"; model files on one device only.
std::string phase_function(const PhaseConfig& phase, const std::string& fn);
// "D, G": the phases' names, for messages.
std::string phase_names(const ModelConfig& config);

class Program {
 public:
  // With a mesh, "train_step", "eval" and "loss_grad" are each device's SPMD
  // program (local shapes, placements on the arguments).
  // `parallel`: how the functions are partitioned (ir/parallel_plan.h
  // make_parallel_plan); no mesh: one device.
  // `device`: where the compiled functions run (driver/device.h).
  static Program from_model(const ModelFile& model, Backend backend, ParallelPlan parallel = {}, Device device = {});
  // An artifact's unsharded functions, or with `sharded` (an artifact with a
  // mesh) its sharded ones, parallel() being the artifact's mesh and ZeRO stage.
  // Its functions' executors run with `executor`.
  static Program from_artifact(std::shared_ptr<const rt::Artifact> artifact, std::string path, bool sharded = false,
                               rt::ExecutorOptions executor = {});

  const ModelConfig& config() const;
  // What the errors of a run name: the model file or the artifact.
  const std::string& path() const { return path_; }
  Expected<StepFunction> function(const std::string& name, int64_t batch) const;
  // Model files only: the window T of a causal language model
  // (ModelFile::generation_window), whose "prefill" and "decode" functions
  // (batch 1; ModelFile::build_generation) `mlc generate` runs.
  Expected<int64_t> generation_window() const;
  // Classes of a classifier's cross-entropy; nullopt for other losses.
  Expected<std::optional<int64_t>> num_classes() const;

  // Model files only: the IR of function `name` for `batch`, as function()
  // compiles it (what `mlc compile` lowers).
  Expected<const Function*> ir(const std::string& name, int64_t batch) const;
  const ParallelPlan& parallel() const { return parallel_; }
  // Where its functions run: the model's device, or the artifact's target.
  const Device& device() const { return device_; }
  Backend backend() const { return backend_; }
  // A pipelined plan (ParallelPlan::pipelined): stage S's functions are named
  // "stage<S>.<name>" (passes/pipeline_split.h: forward, loss_grad,
  // accumulate_grads, apply_update), built for the (global) micro-batch
  // given as their batch and, on a mesh with axes beside pp, sharded over
  // them (passes/pipeline_stage_sharding.h); every other function is the
  // model's on one device.
  // The schedule each pipeline rank runs (ir/pipeline_schedule.h).
  Expected<PipelineSchedule> pipeline_schedule() const;
  // The training data's steps per epoch, for a schedule stepping per epoch
  // (OptimizerConfig::steps_per_epoch); set before the first update function
  // is built (modules built earlier keep the value they were built with).
  void set_steps_per_epoch(int64_t steps) const { steps_per_epoch_ = steps; }
  // Model files with a mesh: the sharding pass's collective ledger for `batch`, by function.
  Expected<const std::map<std::string, std::vector<LedgerEntry>>*> ledger(int64_t batch) const;
  // Model files with a pipelined plan: the sharding pass's collective ledger
  // of stage function `name` ("stage<S>.<fn>") for `batch`, as ir() builds
  // it; empty where the stages are not sharded (pp alone).
  Expected<const std::vector<LedgerEntry>*> stage_ledger(const std::string& name, int64_t batch) const;

 private:
  const ModelFile* model_ = nullptr;
  Backend backend_ = Backend::compiled;
  Device device_;
  ParallelPlan parallel_;
  mutable std::map<int64_t, std::map<std::string, std::vector<LedgerEntry>>> ledgers_;
  std::shared_ptr<const rt::Artifact> artifact_;
  bool sharded_ = false;  // artifacts: which of its functions
  std::string path_;
  // Pipelined plans: the stages' modules by micro-batch size.
  mutable std::map<int64_t, std::vector<std::shared_ptr<Module>>> stage_modules_;
  // Their sharded functions' collective ledgers, by micro-batch size, stage and function.
  mutable std::map<int64_t, std::map<int, std::map<std::string, std::vector<LedgerEntry>>>> stage_ledgers_;
  mutable std::optional<std::vector<size_t>> pipeline_cuts_;  // planned at the training micro-batch
  Expected<const Function*> stage_function(int stage, const std::string& name, int64_t micro) const;
  // Phase modules by (phase, batch).
  mutable std::map<std::pair<size_t, int64_t>, std::shared_ptr<Module>> phase_modules_;
  Expected<const Function*> phase_function_ir(size_t phase, const std::string& name, int64_t batch) const;
  // @predict by batch (passes/predict_function.h).
  mutable std::map<int64_t, std::shared_ptr<Module>> predict_modules_;
  // @prefill and @decode (ModelFile::build_generation), by name, and
  // "predict:PATH@BATCH" (ModelFile::build_module_output).
  mutable std::map<std::string, std::shared_ptr<Module>> generation_modules_;
  // Built modules by (pipeline?, batch, with the update functions?).
  mutable std::map<std::tuple<bool, int64_t, bool>, std::shared_ptr<Module>> modules_;
  mutable int64_t steps_per_epoch_ = 0;
  // The model's optimizer settings with steps_per_epoch_.
  OptimizerConfig optimizer() const;
};

}  // namespace mlc
