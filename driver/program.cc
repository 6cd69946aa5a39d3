#include "driver/program.h"

#include "compiler/pass_pipeline.h"
#include "frontends/form_words.h"
#include "ir/inline_calls.h"
#include "ir/diagnostics.h"
#include "ir/pipeline_stages.h"
#include "passes/pipeline_split.h"
#include "passes/pipeline_stage_sharding.h"
#include "passes/predict_function.h"
#include "passes/sharding.h"
#include "support/quote.h"

namespace mlc {

bool is_update_function(const std::string& name) { return name == "accumulate_grads" || name == "apply_update"; }

namespace {
// A mesh whose data axes split the batch computes BatchNorm statistics over
// the global batch (the sharding pass all_reduces the batch sums): what
// "sync": true (SyncBatchNorm) asks for. Per-device statistics (BatchNorm
// under DDP) are not expressed, so a BatchNorm without it is refused.
Status check_batch_norm_sync(const ModelConfig& config, const Mesh& mesh) {
  int64_t split = 1;
  for (const MeshAxis& a : mesh.axes)
    if (is_data_axis(a.name)) split *= a.size;
  if (split == 1 || config.unsynced_batch_norms.empty()) return {};
  const auto& [path, loc] = config.unsynced_batch_norms.front();
  return error_at(loc, "BatchNorm '" + path + "': on mesh " + mesh.str() +
                           " the batch is split over " + std::to_string(split) +
                           " devices, and per-device batch statistics are not supported; set \"sync\": true "
                           "to normalize over the whole batch (SyncBatchNorm)");
}

// Functions taken from the module after the pipeline; with a mesh also @eval,
// which the sharding stage partitions, and with a mixed-precision policy, which
// the autocast stage rewrites.
bool after_pipeline(const std::string& name, bool sharded, bool autocast) {
  return name == "train_step" || name == "optimizer_init" || name == "loss_grad" || is_update_function(name) ||
         ((sharded || autocast) && name == "eval");
}
}  // namespace

Program Program::from_model(const ModelFile& model, Backend backend, ParallelPlan parallel, Device device) {
  Program p;
  p.model_ = &model;
  p.backend_ = backend;
  p.device_ = std::move(device);
  p.parallel_ = std::move(parallel);
  p.path_ = model.config().path;
  return p;
}

Program Program::from_artifact(std::shared_ptr<const rt::Artifact> artifact, std::string path, bool sharded,
                               rt::ExecutorOptions executor) {
  Program p;
  p.device_.executor = executor;
  if (!artifact->functions.empty()) p.device_.target = artifact->functions.front().executable->target;
  if (sharded) {
    p.parallel_.mesh = artifact->mesh;
    p.parallel_.zero = artifact->zero;
    p.parallel_.micro_batches = artifact->pipeline.microbatches;
    p.parallel_.schedule = artifact->pipeline.schedule;
    p.parallel_.virtual_stages = artifact->pipeline.virtual_stages;
  }
  p.sharded_ = sharded;
  p.artifact_ = std::move(artifact);
  p.path_ = std::move(path);
  return p;
}

const ModelConfig& Program::config() const { return model_ ? model_->config() : artifact_->config; }

OptimizerConfig Program::optimizer() const {
  OptimizerConfig o = config().train.optimizer;
  o.steps_per_epoch = steps_per_epoch_;
  return o;
}

namespace {
// "stage<S>.<name>": S and name; nullopt for other names.
std::optional<std::pair<int, std::string>> stage_function_name(const std::string& name) {
  if (!name.starts_with("stage")) return std::nullopt;
  const size_t dot = name.find('.');
  if (dot == std::string::npos || dot == 5) return std::nullopt;
  int stage = 0;
  for (size_t i = 5; i < dot; ++i) {
    if (name[i] < '0' || name[i] > '9' || stage > (1 << 20)) return std::nullopt;
    stage = stage * 10 + (name[i] - '0');
  }
  return std::pair{stage, name.substr(dot + 1)};
}
}  // namespace

namespace {
// "<phase>.<fn>" of a model trained in phases: the phase's index and fn.
std::optional<std::pair<size_t, std::string>> phase_function_name(const ModelConfig& config, const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return std::nullopt;
  for (size_t i = 0; i < config.train.phases.size(); ++i)
    if (name.compare(0, dot, config.train.phases[i].name) == 0) return std::pair{i, name.substr(dot + 1)};
  return std::nullopt;
}
}  // namespace

std::string phase_function(const PhaseConfig& phase, const std::string& fn) { return phase.name + "." + fn; }

std::string phase_names(const ModelConfig& config) {
  std::string names;
  for (const PhaseConfig& p : config.train.phases) names += (names.empty() ? "" : ", ") + p.name;
  return names;
}

Expected<const Function*> Program::phase_function_ir(size_t phase, const std::string& name, int64_t batch) const {
  const ModelConfig& c = config();
  if (!parallel_.mesh.empty())
    return make_error(path_ + ": error: a model trained in phases (train.phases) runs on one device; mesh " +
                      parallel_.mesh.str() + " is not supported with phases");
  auto& slot = phase_modules_[{phase, batch}];
  if (!slot) {
    MLC_TRY(Module m, model_->build_phase(batch, phase));
    PassPipelineOptions options;
    options.optimizer = c.train.phases[phase].optimizer;
    options.optimizer->steps_per_epoch = steps_per_epoch_;
    MLC_CHECK_OK(run_pass_pipeline(m, options));
    slot = std::make_shared<Module>(std::move(m));
  }
  const Function* f = slot->find(name);
  if (!f) return make_error(path_ + ": error: phase " + squote(c.train.phases[phase].name) + " has no @" + name + " function");
  return f;
}

Expected<PipelineSchedule> Program::pipeline_schedule() const {
  return make_pipeline_schedule(parallel_.schedule, parallel_.pipeline_ranks(), parallel_.pipeline_micro_batches(),
                                parallel_.virtual_stages);
}

Expected<const Function*> Program::stage_function(int stage, const std::string& name, int64_t micro) const {
  const int stages = parallel_.pipeline_stages();
  auto& modules = stage_modules_[micro];
  if (modules.empty()) {
    const ModelConfig& c = config();
    if (c.train.optimizer.type.empty())
      return make_error(path_ + ": error: the model file has no " + spelled_field(path_, "train", "optimizer"));
    if (!parallel_.split_before.empty() && parallel_.split_before.size() + 1 != static_cast<size_t>(stages))
      return make_error(c.parallel.pipeline.loc.str() + ": error: parallel.pipeline.split_before makes " +
                        std::to_string(parallel_.split_before.size() + 1) + " stages, but the pipeline has " +
                        std::to_string(parallel_.pipeline_ranks()) + " ranks of " +
                        std::to_string(parallel_.virtual_stages) + " stages");
    auto build = [&](int64_t batch) -> Expected<Module> {
      MLC_TRY(Module m, model_->build(batch));
      PassPipelineOptions options;
      options.mixed_precision = c.train.mixed_precision;
      MLC_CHECK_OK(run_pass_pipeline(m, options, "autocast"));
      return m;
    };
    // The cuts are planned once, at the training micro-batch (an evaluation
    // batch of another size cuts the same way).
    if (!pipeline_cuts_) {
      const int64_t train_micro = std::max<int64_t>(1, c.train.batch_size / parallel_.pipeline_micro_batches());
      MLC_TRY(Module planned, build(train_micro));
      MLC_TRY(PipelineStagePlan plan, plan_pipeline_stages(*planned.find("loss"), c.layers, c.params,
                                                           parallel_.split_before, stages));
      pipeline_cuts_ = plan.cuts;
    }
    MLC_TRY(Module m, build(micro));
    std::vector<std::shared_ptr<Module>> built;
    for (int s = 0; s < stages; ++s) {
      Expected<PipelineStageProgram> stage_program = build_pipeline_stage(m, c.layers, *pipeline_cuts_, s, optimizer());
      if (!stage_program) return make_error(path_ + ": " + stage_program.error().message);
      // Sharded over the mesh's other axes (passes/pipeline_stage_sharding.h).
      if (shards_pipeline_stages(parallel_))
        if (Status sharded = shard_pipeline_stage(stage_program->module, parallel_,
                                                  &stage_ledgers_[micro][s]);
            !sharded)
          return make_error(path_ + ": " + sharded.error().message);
      built.push_back(std::make_shared<Module>(std::move(stage_program->module)));
    }
    modules = std::move(built);
  }
  if (stage < 0 || stage >= stages) return make_error(path_ + ": error: the pipeline has no stage " + std::to_string(stage));
  const Function* f = modules[static_cast<size_t>(stage)]->find(name);
  if (!f) return make_error(path_ + ": error: pipeline stage " + std::to_string(stage) + " has no @" + name + " function");
  return f;
}

Expected<const Function*> Program::ir(const std::string& name, int64_t batch) const {
  if (!model_) return make_error(path_ + ": error: an artifact holds no IR");
  if (name == "predict") {  // passes/predict_function.h, from @eval as this program runs it
    auto& slot = predict_modules_[batch];
    if (!slot) {
      MLC_TRY(const Function* eval, ir("eval", batch));
      MLC_TRY(std::unique_ptr<Function> predict, build_predict_function(*eval));
      auto m = std::make_shared<Module>();
      m->name = config().name;
      m->functions.push_back(std::move(predict));
      slot = std::move(m);
    }
    return slot->find("predict");
  }
  if (name.rfind("predict:", 0) == 0) {  // a module's output (mlc predict --value)
    auto& slot = generation_modules_[name + "@" + std::to_string(batch)];
    if (!slot) {
      MLC_TRY(Module m, model_->build_module_output(batch, name.substr(8)));
      inline_calls(m);
      drop_unread(*m.functions.at(0));
      slot = std::make_shared<Module>(std::move(m));
    }
    return slot->find("predict");
  }
  if (name == "prefill" || name == "decode") {  // frontends/decode_state.h
    auto& slot = generation_modules_[name];
    if (!slot) {
      MLC_TRY(Module m, model_->build_generation(name == "decode"));
      inline_calls(m);
      slot = std::make_shared<Module>(std::move(m));
    }
    return slot->find(name);
  }
  if (parallel_.pipelined())
    if (auto stage = stage_function_name(name)) return stage_function(stage->first, stage->second, batch);
  if (auto phase = phase_function_name(config(), name)) return phase_function_ir(phase->first, phase->second, batch);
  const MixedPrecisionConfig& mp = config().train.mixed_precision;
  // A pipeline's functions other than its stages' are the model's on one device.
  const bool sharded = !parallel_.mesh.empty() && !parallel_.pipelined();
  const bool pipeline = after_pipeline(name, sharded, mp.param != DType::f32 || mp.compute != DType::f32);
  // The update functions come from a module of their own (the pipeline's
  // other functions are the same in both); its other functions are taken
  // from it once it exists, so that one pipeline run serves a schedule.
  const bool update = pipeline && is_update_function(name);
  if (pipeline && !update && modules_.count({true, batch, true})) {
    if (const Function* f = modules_.at({true, batch, true})->find(name)) return f;
  }
  auto& slot = modules_[{pipeline, batch, update}];
  if (!slot) {
    MLC_TRY(Module m, model_->build(batch));
    if (pipeline) {
      if (sharded) MLC_CHECK_OK(check_batch_norm_sync(config(), parallel_.mesh));
      if (!config().train.phases.empty())
        return make_error(path_ + ": error: the model trains in phases (train.phases): @" + name + " is each phase's, "
                          "@<phase>." + name + " (phases: " + phase_names(config()) + ")");
      if (config().train.optimizer.type.empty())
        return make_error(path_ + ": error: the model file has no " + spelled_field(path_, "train", "optimizer"));
      PassPipelineOptions options;
      options.optimizer = optimizer();
      options.mixed_precision = config().train.mixed_precision;
      if (sharded) options.parallel = parallel_;
      options.ledger = &ledgers_[batch];
      options.update_functions = update;
      MLC_CHECK_OK(run_pass_pipeline(m, options));
    } else {
      inline_calls(m);  // @eval and @loss as built call custom ops; nothing runs a call
    }
    slot = std::make_shared<Module>(std::move(m));
  }
  const Function* f = slot->find(name);
  if (!f) return make_error(path_ + ": error: the model has no @" + name + " function");
  return f;
}

Expected<const std::map<std::string, std::vector<LedgerEntry>>*> Program::ledger(int64_t batch) const {
  auto f = ir("train_step", batch);
  if (!f) return f.error();
  return &ledgers_[batch];
}

Expected<const std::vector<LedgerEntry>*> Program::stage_ledger(const std::string& name, int64_t batch) const {
  static const std::vector<LedgerEntry> kNone;
  const auto stage = stage_function_name(name);
  if (!parallel_.pipelined() || !stage)
    return make_error("mlc internal error: '" + name + "' is not a pipeline stage's function");
  MLC_TRY(const Function* f, ir(name, batch));  // builds the stages and their ledgers
  (void)f;
  const auto& by_function = stage_ledgers_[batch][stage->first];
  const auto it = by_function.find(stage->second);
  return it == by_function.end() ? &kNone : &it->second;
}

Expected<int64_t> Program::generation_window() const {
  if (!model_) return make_error(path_ + ": error: mlc generate runs model files, not artifacts");
  return model_->generation_window();
}

Expected<StepFunction> Program::function(const std::string& name, int64_t batch) const {
  if (model_) {
    MLC_TRY(const Function* f, ir(name, batch));
    return StepFunction::create(*f, backend_, path_, device_);
  }
  // A pipeline's stages' functions are sharded where the mesh has axes beside
  // pp; its other functions are the model's on one device.
  const bool sharded = sharded_ && (parallel_.pipelined() ? stage_function_name(name) && shards_pipeline_stages(parallel_)
                                                          : true);
  if (const rt::CompiledFunction* c = artifact_->find(name, batch, sharded))
    return StepFunction::create(c->executable, path_, device_.executor);
  std::string have;
  for (const rt::CompiledFunction& c : artifact_->functions)
    if (c.name == name && c.sharded == sharded) have += (have.empty() ? "" : ", ") + std::to_string(c.batch);
  const std::string what = (sharded ? "a sharded @" : artifact_->mesh.empty() ? "@" : "an unsharded @") + name;
  const std::string mesh = artifact_->mesh.empty() ? ""
                           : " --mesh " + artifact_->mesh.str() +
                                 (artifact_->zero ? " --zero " + std::to_string(artifact_->zero) : "");
  if (have.empty() && name == "loss_grad" && sharded)  // `mlc compile --mesh` leaves it out unless asked for
    return make_error(path_ + ": error: the artifact has no sharded @loss_grad, which gradient statistics need; an artifact "
                      "for a mesh holds it when the model file sets \"grad_stats_every\" in \"train\": compile the "
                      "model with it set (mlc compile MODEL.json" + mesh + "), or run the model file");
  const std::string fix = is_update_function(name)
                              ? "; compile the model with train.grad_accumulation_steps set to this run's (mlc "
                                "compile writes gradient accumulation's functions for the model file's setting)"
                              : "; compile the model for this data: mlc compile MODEL.json" + mesh +
                                    " --data DATA.safetensors";
  return make_error(path_ + ": error: the artifact has no " + what + " for batches of " + std::to_string(batch) +
                    (have.empty() ? " (it has no " + what + " at all)" : " (it has batches of " + have + ")") + fix);
}

Expected<std::optional<int64_t>> Program::num_classes() const {
  if (artifact_) return artifact_->num_classes;
  if (!config().classifier) return std::optional<int64_t>();
  MLC_TRY(const Function* loss, ir("loss", config().trial_batch()));
  for (const auto& op : loss->ops)
    if (op->code == OpCode::CrossEntropy || op->code == OpCode::NllLoss) return std::optional<int64_t>(op->operands[0]->type.shape.back());
  return std::optional<int64_t>();
}

}  // namespace mlc
