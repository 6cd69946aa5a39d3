// Training: runs a program's step schedule (driver/step_schedule.h: its
// @train_step, or with gradient accumulation @loss_grad per micro-batch and
// @apply_update; driver/program.h: compiled from the model file, frontend ->
// autodiff -> optimizer -> decompose -> canonicalize -> lowering, or loaded
// from an artifact) over the data, with evaluation after
// every epoch, metrics as JSON lines, checkpoints and resume.
//
// On a device mesh (TrainOptions::parallel, driver/mesh_train.h) every rank
// runs the same loop, train_rank, on its sharded functions: its local parts
// of the parameters and optimizer state, its DistributedSampler share of
// every epoch's order in batches of batch / W (W data ranks), the step
// counter replicated. train.batch_size is the global batch, so the ranks
// together take exactly one device's batches. Rank 0 logs, writes metrics
// and --save, of the whole parameters gathered from the ranks; checkpoints
// are sharded, every rank writing its own chunks (driver/sharded_checkpoint.h).
// --resume reads either kind of checkpoint into the whole state, which every
// rank cuts into its local parts: a run resumes on any mesh or none.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "frontends/model_file.h"
#include "runtime/parameters.h"
#include "runtime/dataset.h"
#include "driver/evaluate.h"
#include "driver/profile.h"
#include "driver/program.h"
#include "driver/rank.h"
#include "driver/step_function.h"
#include "driver/step_runner.h"

namespace mlc {

struct TrainOptions {
  std::string data_path;        // overrides the model file's data file
  std::string init_path;        // initial parameters, optionally with optimizer state (safetensors, or a
                                // sharded checkpoint's index); else seeded init
  int64_t start_step = 0;       // first global step (restarting from a PyTorch checkpoint)
  std::optional<int64_t> epochs, steps;  // override the model file's
  std::optional<uint64_t> seed;          // overrides train.seed (init and shuffling)
  std::string metrics_path;     // JSON lines; appended to when resuming
  std::string save_path;        // final parameters
  std::string checkpoint_dir;
  int64_t checkpoint_every = 0;  // steps; 0: only at the end (when a dir is given)
  int keep_checkpoints = 3;
  bool resume = false;          // continue from the newest valid checkpoint in checkpoint_dir
  // `--eval` on a mesh: evaluate the starting parameters (--init's) once on
  // the ranks instead of training; TrainSummary::eval holds the result.
  bool eval_only = false;
  std::string dump_grads_path;  // gradients of the run's first step (whole, on a mesh too)
  // Override train.eval_every and train.grad_stats_every (0: off): evaluate
  // after every N optimizer steps (besides each epoch's end), and record
  // per-parameter gradient statistics of the steps s with s % N == 0, computed
  // by @loss_grad before the step's update (after backward, before clipping;
  // driver/grad_stats.h). Both go to the metrics file (driver/train_metrics.h).
  std::optional<int64_t> eval_every, grad_stats_every;
  // Overrides train.grad_accumulation_steps (`--grad-accum K`): each step
  // accumulates the gradients of K micro-batches (driver/step_schedule.h).
  std::optional<int64_t> grad_accumulation_steps;
  bool progress_bar = false;    // a live bar on stderr (else one line per epoch)
  Backend backend = Backend::compiled;  // of the train step and evaluation
  Device device;                        // where the compiled backend runs (driver/device.h)
  bool profile = false;  // time every instruction of the compiled train step and eval (driver/profile.h)
  ParallelPlan parallel;  // a mesh (and ZeRO stage): train on its ranks (model files only)
  // On a mesh: the collectives' timeout, and whether this process is one rank
  // under mpirun (runtime/comm/mpi.h) rather than running every rank as a
  // thread (runtime/comm/local.h). driver/mesh_train.h.
  rt::CommOptions comm;
  bool mpi = false;
  // Called on every rank after each step's update with the step's index and
  // loss (before evaluation and checkpoints): a library caller's per-step
  // hook. It must not throw.
  std::function<void(int64_t step, double loss)> on_step;
  // Ctrl-C (driver/interrupt.h) stops the run after the step it is in, with
  // a checkpoint in checkpoint_dir, or without one in interrupt_dir
  // (TrainSummary::interrupted); --save is then not written.
  bool stop_on_interrupt = false;
  std::string interrupt_dir;
  // Keeps the best parameters by an evaluation metric, "loss" (lowest) or
  // "accuracy" (highest; classifiers), in best_path: written at every
  // evaluation that improves on the best so far (TrainSummary::best).
  std::string best_path, best_metric = "loss";
};

// What one rank held while training, measured: the bytes of its parameters
// and optimizer state (its local parts on a mesh), of the arenas its
// compiled train step allocated (the step schedule's functions': @train_step
// alone without gradient accumulation; 0 on the interp backend) and of the
// step schedule's own buffers (StepRunner::buffer_bytes: gradient sums with
// gradient accumulation or a pipeline, and a pipeline's received activations
// and gradient seeds; 0 for @train_step alone). `mlc plan` predicts the same
// figures (per device with --mesh, per pipeline rank with pp).
struct RankMemory {
  int64_t parameters = 0, optimizer_state = 0, train_step_arena = 0, schedule_buffers = 0;
};

struct TrainSummary {
  int64_t steps_run = 0;
  double final_loss = 0;
  // Of the train step's runs (its collectives included; not data gathering
  // or evaluation). The mean counts the slow steps a busy machine makes.
  double median_step_ms = 0, mean_step_ms = 0;
  std::optional<double> eval_loss, eval_accuracy;
  std::optional<EvalResult> eval;  // the last evaluation's counts
  // With TrainOptions::profile: the train step's (one per batch size run),
  // then evaluation's.
  std::vector<FunctionProfile> profiles;
  // The rank that returned it: under mpirun every process returns its own
  // rank's, and only rank 0's is reported.
  int rank = 0;
  // Every rank's, in rank order (gathered from the ranks of a mesh; one
  // entry on one device).
  std::vector<RankMemory> memory;
  // A pipeline with TrainOptions::profile: every rank's time per kind of
  // call over the steps of the full batch (driver/step_runner.h), in rank order.
  std::vector<CallTimes> pipeline_times;
  // Stopped by Ctrl-C (TrainOptions::stop_on_interrupt): after `step` steps,
  // with a checkpoint of that step in `dir`.
  struct Interrupted {
    int64_t step = 0;
    std::string dir;
  };
  std::optional<Interrupted> interrupted;
  // TrainOptions::best_path: the evaluation after `step` steps scored best, `value`.
  struct Best {
    int64_t step = 0;
    double value = 0;
  };
  std::optional<Best> best;
};

// Trains with the functions of `program` (a model file compiled now, or an
// artifact) on one device; options.backend is the program's
// (Program::from_model) and options.parallel is ignored.
Expected<TrainSummary> train(const Program& program, const TrainOptions& options);
// The model file compiled now, on options.backend, on options.parallel's mesh
// when it has one (train_on_mesh).
Expected<TrainSummary> train(const ModelFile& model, const TrainOptions& options);

// ---- The pieces of a run, shared by one device and the ranks of a mesh.

// What every rank starts from: the data, the step counts and the global
// initial state (seeded or --init parameters, optimizer_init's state, or the
// newest checkpoint's with --resume).
struct TrainSetup {
  const ModelConfig* config = nullptr;
  uint64_t seed = 0;
  rt::Split train_split, eval_split;
  int64_t batch = 0;  // global
  int64_t grad_accumulation_steps = 1;  // micro-batches per step (the option's, else the model file's)
  int64_t steps_per_epoch = 0, total_steps = 0, epochs = 0, start = 0, eval_batch = 0;
  std::vector<rt::NamedTensor> params;  // model-config order, global shapes
  std::vector<rt::NamedTensor> state;   // @train_step's state arguments in order, global shapes
};

// A mesh's demands on the data (prepare_training checks them, `mlc compile
// --mesh` too): `data_ranks` divides train.batch_size, and the `n` examples of
// the training split unless train.drop_last. Errors name the model or data
// file and `mesh`.
Status check_data_ranks(const ModelConfig& config, int64_t n, int64_t data_ranks, const std::string& mesh,
                        const std::string& data_path);
// The part of it that needs no data, which `mlc plan --mesh` checks too:
// `data_ranks` divides train.batch_size.
Status check_global_batch(const ModelConfig& config, int64_t data_ranks, const std::string& mesh);

// Gradient accumulation's demands (prepare_training checks them): `k` >= 1
// divides train.batch_size and, unless train.drop_last, the last partial
// batch of the `n` examples; k > 1 needs one device (`mesh` empty) and no
// dynamic loss scaling. Errors name the model or data file and the setting
// (--grad-accum K when `from_flag`, else train.grad_accumulation_steps).
Status check_grad_accumulation(const ModelConfig& config, int64_t n, int64_t k, bool from_flag,
                               const std::string& mesh, const std::string& data_path);

// Training in phases (train.phases) runs on one device with one batch per
// step and no gradient diagnostics: errors name the model file and what
// `o` or `mesh` asks for that phases do not support.
Status check_phases(const ModelConfig& config, const TrainOptions& o, const std::string& mesh);

// Reads the data and creates the initial state. `data_ranks` > 1 (a mesh's,
// named `mesh` in errors) must divide train.batch_size, and the training set
// unless train.drop_last (the last partial batch must split evenly). With
// `notes` false it prints nothing (--resume's notes and warnings), for the
// processes of ranks other than 0 under mpirun, which all prepare the same.
Expected<TrainSetup> prepare_training(FunctionCache& functions, const TrainOptions& options, int64_t data_ranks,
                                      const std::string& mesh, bool notes = true);

// The training loop of one rank (a single device is rank 0 of 1). Every rank
// of a mesh calls it with the same setup and options; the summary is the
// leader's (others return theirs, without metrics). Errors start with
// rank.prefix().
Expected<TrainSummary> train_rank(const TrainSetup& setup, const TrainOptions& options, const Rank& rank);

}  // namespace mlc
