// Training: runs a program's @train_step (tools/program.h: compiled from the
// model file, frontend -> autodiff -> optimizer -> decompose -> canonicalize ->
// lowering, or loaded from an artifact) over the data, with evaluation after
// every epoch, metrics as JSON lines, checkpoints and resume.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "frontends/model_file.h"
#include "runtime/parameters.h"
#include "tools/profile.h"
#include "tools/program.h"
#include "tools/step_function.h"

namespace mlc {

struct TrainOptions {
  std::string data_path;        // overrides the model file's data file
  std::string init_path;        // initial parameters, optionally with optimizer state (safetensors); else seeded init
  int64_t start_step = 0;       // first global step (restarting from a PyTorch checkpoint)
  std::optional<int64_t> epochs, steps;  // override the model file's
  std::optional<uint64_t> seed;          // overrides train.seed (init and shuffling)
  std::string metrics_path;     // JSON lines; appended to when resuming
  std::string save_path;        // final parameters
  std::string checkpoint_dir;
  int64_t checkpoint_every = 0;  // steps; 0: only at the end (when a dir is given)
  int keep_checkpoints = 3;
  bool resume = false;          // continue from the newest valid checkpoint in checkpoint_dir
  std::string dump_grads_path;  // gradients of the run's first step
  bool progress_bar = false;    // a live bar on stderr (else one line per epoch)
  Backend backend = Backend::compiled;  // of the train step and evaluation
  bool profile = false;  // time every instruction of the compiled train step and eval (tools/profile.h)
};

struct TrainSummary {
  int64_t steps_run = 0;
  double final_loss = 0;
  double median_step_ms = 0;
  std::optional<double> eval_loss, eval_accuracy;
  // With TrainOptions::profile: the train step's (one per batch size run),
  // then evaluation's.
  std::vector<FunctionProfile> profiles;
};

// Trains with the functions of `program` (a model file compiled now, or an
// artifact); options.backend is the program's (Program::from_model).
Expected<TrainSummary> train(const Program& program, const TrainOptions& options);
// The model file compiled now, on options.backend.
Expected<TrainSummary> train(const ModelFile& model, const TrainOptions& options);

}  // namespace mlc
