#include "driver/train_metrics.h"

#include "driver/train.h"

namespace mlc {

nlohmann::ordered_json run_record(const TrainSetup& s, const TrainOptions& o, const Rank& rank, int64_t eval_every,
                                  int64_t grad_stats_every) {
  const ModelConfig& config = *s.config;
  nlohmann::ordered_json run = {
      {"model", config.name},
      {"backend", o.backend == Backend::interp ? "interp" : "compiled"},
      {"mesh", rank.mesh.str()},
      {"batch_size", s.batch},
      {"train_examples", s.train_split.num_examples()},
      {"eval_examples", s.eval_split.num_examples()},
      {"steps_per_epoch", s.steps_per_epoch},
      {"total_steps", s.total_steps},
      {"epochs", s.epochs},
      {"start_step", s.start},
      {"optimizer", config.train.optimizer.type},
      {"lr", config.train.optimizer.lr},
      {"eval_every", eval_every},
      {"grad_stats_every", grad_stats_every}};
  // Only when set, so that the records of runs without it stay as they were.
  if (s.grad_accumulation_steps != 1) run["grad_accumulation_steps"] = s.grad_accumulation_steps;
  return {{"run", run}};
}

bool same_run(const nlohmann::json& kept, const nlohmann::ordered_json& run) {
  if (!kept.is_object() || !run.contains("run")) return false;
  nlohmann::json a = kept, b = nlohmann::json::parse(run["run"].dump());
  a.erase("start_step");
  b.erase("start_step");
  return a == b;
}

nlohmann::ordered_json eval_record(int64_t epoch, int64_t steps_done, const EvalResult& r) {
  nlohmann::ordered_json eval = {{"loss", r.loss}};
  if (r.accuracy) {
    eval["accuracy"] = *r.accuracy;
    eval["correct"] = r.correct;
  }
  eval["positions"] = r.positions;
  eval["examples"] = r.examples;
  eval["split"] = r.training_data ? "train" : "eval";
  return {{"epoch", epoch}, {"step", steps_done}, {"eval", eval}};
}

nlohmann::ordered_json grads_record(int64_t epoch, int64_t step, const std::vector<GradStats>& stats) {
  return {{"epoch", epoch}, {"step", step}, {"grads", grad_stats_json(stats)}};
}

nlohmann::ordered_json EpochLoss::finish(int64_t epoch) {
  nlohmann::ordered_json line = {
      {"epoch", epoch}, {"train", {{"loss", mean()}, {"steps", steps_}}}};
  sum_ = 0;
  steps_ = 0;
  return line;
}

}  // namespace mlc
