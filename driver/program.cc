#include "driver/program.h"

#include "compiler/pass_pipeline.h"
#include "ir/inline_calls.h"
#include "ir/diagnostics.h"
#include "passes/sharding.h"

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
  }
  p.sharded_ = sharded;
  p.artifact_ = std::move(artifact);
  p.path_ = std::move(path);
  return p;
}

const ModelConfig& Program::config() const { return model_ ? model_->config() : artifact_->config; }

Expected<const Function*> Program::ir(const std::string& name, int64_t batch) const {
  if (!model_) return make_error(path_ + ": error: an artifact holds no IR");
  const MixedPrecisionConfig& mp = config().train.mixed_precision;
  const bool pipeline =
      after_pipeline(name, !parallel_.mesh.empty(), mp.param != DType::f32 || mp.compute != DType::f32);
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
      MLC_CHECK_OK(check_batch_norm_sync(config(), parallel_.mesh));
      if (config().train.optimizer.type.empty())
        return make_error(path_ + ": error: the model file has no \"train\": {\"optimizer\": ...}");
      PassPipelineOptions options;
      options.optimizer = config().train.optimizer;
      options.mixed_precision = config().train.mixed_precision;
      options.parallel = parallel_;
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

Expected<StepFunction> Program::function(const std::string& name, int64_t batch) const {
  if (model_) {
    MLC_TRY(const Function* f, ir(name, batch));
    return StepFunction::create(*f, backend_, path_, device_);
  }
  if (const rt::CompiledFunction* c = artifact_->find(name, batch, sharded_))
    return StepFunction::create(c->executable, path_, device_.executor);
  std::string have;
  for (const rt::CompiledFunction& c : artifact_->functions)
    if (c.name == name && c.sharded == sharded_) have += (have.empty() ? "" : ", ") + std::to_string(c.batch);
  const std::string what = (sharded_ ? "a sharded @" : artifact_->mesh.empty() ? "@" : "an unsharded @") + name;
  const std::string mesh = artifact_->mesh.empty() ? ""
                           : " --mesh " + artifact_->mesh.str() +
                                 (artifact_->zero ? " --zero " + std::to_string(artifact_->zero) : "");
  if (have.empty() && name == "loss_grad" && sharded_)  // `mlc compile --mesh` leaves it out unless asked for
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
    if (op->code == OpCode::CrossEntropy) return std::optional<int64_t>(op->operands[0]->type.shape.back());
  return std::optional<int64_t>();
}

}  // namespace mlc
