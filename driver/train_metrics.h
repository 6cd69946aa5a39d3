// The records a training run writes to its metrics file (`mlc run --metrics
// FILE.jsonl`, one JSON object per line; docs/metrics.md is the schema), other
// than the per-step {"step", "epoch", "loss"}: the run's facts at its start,
// evaluations, the epochs' mean training loss and gradient statistics.
// `mlc report` (driver/report.h) reads them back.
//
// Steps: a step record's "step" s is the step's index (0-based, global); its
// loss and the gradients of a grads record with "step" s come from the
// parameters before that step's update. An eval record's "step" is the number
// of optimizer steps taken, so it is evaluated on the parameters step record
// "step" trains from: one x axis for all three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "driver/evaluate.h"
#include "driver/grad_stats.h"

namespace mlc {

struct TrainSetup;
struct TrainOptions;
struct Rank;

// {"run": {"model", "backend", "mesh", "batch_size", "train_examples",
// "eval_examples", "steps_per_epoch", "total_steps", "epochs", "start_step",
// "optimizer", "lr", "eval_every", "grad_stats_every"}}: written when the run
// starts; a run that resumes writes it again only if it differs from the
// file's (same_run).
nlohmann::ordered_json run_record(const TrainSetup& setup, const TrainOptions& options, const Rank& rank,
                                  int64_t eval_every, int64_t grad_stats_every);

// Whether `kept` (the object of a metrics file's last run record) is the
// object of `run` (a run_record) but for "start_step": the same run resumed.
bool same_run(const nlohmann::json& kept, const nlohmann::ordered_json& run);

// {"epoch", "step", "eval": {"loss", "accuracy" (classifiers), "correct"
// (classifiers), "positions", "examples"}}: after `steps_done` optimizer steps.
nlohmann::ordered_json eval_record(int64_t epoch, int64_t steps_done, const EvalResult& r);

// {"epoch", "step", "grads": [{"name", "mean_abs", "max_abs", "norm", "elements"}, ...]}.
nlohmann::ordered_json grads_record(int64_t epoch, int64_t step, const std::vector<GradStats>& stats);

// The mean training loss of an epoch's steps run in this process.
class EpochLoss {
 public:
  void add(double loss) {
    sum_ += loss;
    ++steps_;
  }
  // {"epoch", "train": {"loss": mean, "steps": n}}, and starts the next
  // epoch's mean. n is the steps added: a run that resumed in the middle of
  // an epoch adds the metrics file's losses of the steps before it first
  // (driver/metrics_file.h), else n is fewer than the epoch's steps.
  nlohmann::ordered_json finish(int64_t epoch);
  // The mean of the losses added since the last finish (0 before any).
  double mean() const { return steps_ ? sum_ / static_cast<double>(steps_) : 0.0; }

 private:
  double sum_ = 0;
  int64_t steps_ = 0;
};

}  // namespace mlc
