// What a model file says besides the IR: how each parameter is initialized,
// which data tensors feed which inputs, and the training settings. Plain data,
// produced by frontends/ and consumed by runtime/ and tools/ (neither of which
// may include the other).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/pipeline_schedule.h"
#include "ir/types.h"

namespace mlc {

// PyTorch's default initializations, and the torch.nn.init functions a model
// file's "init" section names (docs/model-format.md, "init"), reduced to what
// the runtime draws: the frontend computes bounds, deviations and gains.
struct ParamInit {
  enum class Kind {
    kaiming_uniform, uniform, normal, ones, zeros, constant,
    uniform_range,  // uniform_(low, high)
    trunc_normal,   // trunc_normal_(mean, stddev, low, high)
    orthogonal,     // orthogonal_(gain)
  } kind = Kind::zeros;
  double fan_in = 1;  // kaiming_uniform(a = sqrt(5)): U(-b, b), b = sqrt(3) * sqrt(1/3) / sqrt(fan_in)
  double bound = 0;   // uniform: U(-bound, bound)
  double stddev = 1;  // normal, trunc_normal: N(mean, stddev^2)
  double value = 0;   // constant: every element (PReLU's 0.25)
  double mean = 0;    // normal, trunc_normal
  double low = 0, high = 0;  // uniform_range: U(low, high); trunc_normal: the bounds a, b
  double gain = 1;    // orthogonal
  // Drawn as `kind` says, then zeroed: torch's constructor draws it (a
  // Linear's bias) and a reset sets it to 0 (MultiheadAttention's
  // out_proj.bias), so the draw moves the generator.
  bool zero_after_draw = false;
  // Not drawn: a copy of the parameter of this (state_dict) name after the
  // defaults, before the "init" rules (the layers of TransformerEncoder,
  // deep copies of one layer). Empty: drawn.
  std::string same_as;
};

struct ParamInfo {
  std::string name;  // PyTorch state_dict name
  TensorType type;
  ParamInit init;
  bool trainable = true;
  // A module buffer (BatchNorm's running_mean, running_var, num_batches_tracked):
  // a {buffer} argument, saved and loaded with the parameters, updated by the
  // train step, never trained (trainable is false). It may be i64.
  bool buffer = false;
  Loc loc;  // the layer that declares it
  std::string layer_type;  // the declaring layer's "type" ("Linear", "Embedding", ...)
  // Names of tied uses ("head.weight" for a Linear tied by "tie_weight"): PyTorch's
  // state_dict lists the tensor under them too; an --init file may hold them, equal.
  std::vector<std::string> aliases;
  // The model file's "init" rule for it, drawn after every parameter's default
  // (as torch.nn.init calls after the model's constructor: docs/model-format.md).
  std::optional<ParamInit> explicit_init;
  // Its place in the order the defaults are drawn (torch's constructors'
  // order, which differs from the state_dict's inside MultiheadAttention:
  // out_proj first); -1: its own index. The params' draw indices are a
  // permutation of their indices.
  int64_t draw_index = -1;
};

// One model input read from the data file: `tensor[slices]`.
struct SliceRange {
  std::optional<int64_t> start, stop;  // Python semantics, negatives count from the end
};
struct InputMapping {
  std::string input;   // model input name
  std::string tensor;  // tensor name in the data file
  // Slices apply to dims 0, 1, ... of the tensor in order; dim 0 is the example
  // dim. Unlisted trailing dims are kept whole. Empty: the whole tensor.
  std::vector<SliceRange> slices;
  Loc loc;
};

struct DataConfig {
  std::string file;  // resolved relative to the model file; empty if none given
  Loc file_loc;
  std::vector<InputMapping> train;
  std::vector<InputMapping> eval;
};

// Learning-rate schedule (torch.optim.lr_scheduler), evaluated in the IR at
// s = the number of scheduler.step() calls before the update: with interval
// "step" the 0-based optimizer step, with "epoch" the completed epochs
// floor(step / steps_per_epoch) (docs/model-format.md, `train.schedule`):
//   constant:      lr
//   linear_warmup: lr * (start_factor + (1 - start_factor) * min(s, warmup_steps) / warmup_steps)
//   linear:        lr * (start_factor + (end_factor - start_factor) * min(s, total_iters) / total_iters)
//   cosine:        linear warmup over warmup_steps (factor (s+1)/warmup_steps), then
//                  min_lr + (lr - min_lr) * (1 + cos(pi * s' / T')) / 2 with
//                  s' = s - warmup_steps, T' = total_steps - warmup_steps (s' capped at T')
//   step:          lr * gamma ^ floor(s / step_size)
//   exponential:   lr * gamma ^ s
//   multistep:     lr * gamma ^ (number of milestones <= s)
//   onecycle:      OneCycleLR's phases from max_lr (the lr is unused), and with
//                  cycle_momentum the momentum (sgd) or beta1 (adam, adamw)
//   cosine_warm_restarts: eta_min + (lr - eta_min) * (1 + cos(pi * T_cur / T_i)) / 2
//   sequential:    schedules[i](s - milestones[i-1]) where milestones[i-1] <= s < milestones[i]
//   chained:       lr * the product of the schedules' factors (multiplicative ones only)
//   plateau:       ReduceLROnPlateau: no function of s; the lr is optimizer
//                  state (passes/lr_plateau.h) that the driver lowers after
//                  evaluations (driver/lr_plateau.h)
struct ScheduleConfig {
  std::string type = "constant";
  std::string interval = "step";  // "step" or "epoch" (top-level schedule only)
  int64_t warmup_steps = 0;
  double start_factor = 1.0 / 3.0;
  double end_factor = 1.0;   // linear
  int64_t total_iters = 5;   // linear
  int64_t total_steps = 0;   // cosine, onecycle
  double min_lr = 0;
  int64_t step_size = 1;
  double gamma = 0.1;
  std::vector<int64_t> milestones;  // multistep; sequential: where schedules[i+1] starts
  double max_lr = 0, pct_start = 0.3, div_factor = 25, final_div_factor = 1e4;  // onecycle
  std::string anneal_strategy = "cos";                                           // onecycle: "cos" or "linear"
  bool three_phase = false, cycle_momentum = true;                               // onecycle
  double base_momentum = 0.85, max_momentum = 0.95;                              // onecycle
  int64_t T_0 = 1, T_mult = 1;                                                   // cosine_warm_restarts
  double eta_min = 0;                                                            // cosine_warm_restarts
  std::vector<ScheduleConfig> schedules;                                         // sequential, chained
  // plateau (torch.optim.lr_scheduler.ReduceLROnPlateau; min_lr above): steps
  // on the eval `metric` ("loss" or "accuracy") after every evaluation.
  std::string mode = "min", threshold_mode = "rel", metric = "loss";
  double factor = 0.1, threshold = 1e-4, plateau_eps = 1e-8;
  int64_t patience = 10, cooldown = 0;
  Loc loc;
  // Scales the lr by a factor of s alone (what ChainedScheduler composes).
  bool multiplicative() const {
    return type == "constant" || type == "linear_warmup" || type == "linear" || type == "step" ||
           type == "exponential" || type == "multistep" || type == "chained";
  }
};

// PyTorch's optimizers (torch 1.13 single-tensor update rules) and defaults.
struct OptimizerConfig {
  std::string type;  // "sgd", "adam", "adamw", "rmsprop", "adagrad", "adadelta", "adamax", "nadam", "radam", "lbfgs"
  double lr = 0;
  double momentum = 0, dampening = 0, weight_decay = 0;  // weight_decay: adamw 0.01, else 0
  bool nesterov = false;
  double beta1 = 0.9, beta2 = 0.999;  // adam, adamw, adamax, nadam, radam
  double eps = 1e-8;                  // adam/adamw/rmsprop 1e-8, adagrad 1e-10, adadelta 1e-6
  double alpha = 0.99;                // rmsprop
  bool centered = false;              // rmsprop
  double lr_decay = 0, initial_accumulator_value = 0;  // adagrad
  double rho = 0.9;                   // adadelta
  double momentum_decay = 4e-3;       // nadam
  bool amsgrad = false;               // adam, adamw
  bool maximize = false;              // sgd, adam, adamw, rmsprop, adagrad, adadelta, adamax
  // lbfgs (torch.optim.LBFGS; lr default 1), run by the driver on the host
  // around @loss_grad (driver/lbfgs.h); max_eval 0: max_iter * 5 / 4.
  int64_t max_iter = 20, max_eval = 0, history_size = 100;
  double tolerance_grad = 1e-7, tolerance_change = 1e-9;
  std::string line_search_fn;  // "" (none) or "strong_wolfe"
  std::string decay = "all";  // which params get weight decay: "all" or "2d" (rank >= 2)
  double clip_grad_norm = 0;  // global-norm clipping threshold; 0: off
  ScheduleConfig schedule;
  // Training steps per epoch, from the data (set by the driver before
  // compiling); needed only by a schedule with interval "epoch".
  int64_t steps_per_epoch = 0;
  // Parameter groups (torch's param_groups): a parameter takes the settings of
  // the first group one of whose `params` glob patterns ('*' any characters,
  // '?' one) matches its name, else these. A group's type, schedule and
  // clipping are these; its own param_groups are empty.
  std::vector<std::string> params;  // a group's patterns
  std::vector<OptimizerConfig> param_groups;
  Loc loc;
};

// ---- mixed precision (train.mixed_precision, docs/model-format.md) ----
// A policy applied as casts in the IR (passes/autocast.h) and, for f16, dynamic
// loss scaling in the train step (passes/optimizer.h). Master weights and
// optimizer state stay f32 whatever the policy.
//   param:   the dtype parameters (and float inputs) are cast to where the
//            forward uses them: FSDP2's MixedPrecisionPolicy(param_dtype); on a
//            ZeRO-3 mesh the cast precedes the all-gather.
//   compute: the autocast dtype (torch.autocast("cpu", dtype=...)): f32 is off;
//            bf16/f16 run dot and conv2d in it, the losses in f32, the rest in
//            the dtype of their inputs.
//   reduce:  the dtype gradients are reduced in across data-parallel ranks
//            (FSDP2's reduce_dtype); only f32 is implemented.
//   loss scaling: torch.cuda.amp.GradScaler's dynamic scale (on by default
//            with f16 compute or param dtype).
struct LossScaleConfig {
  bool enabled = false;
  double init_scale = 65536.0, growth_factor = 2.0, backoff_factor = 0.5;
  int64_t growth_interval = 2000;
};
struct MixedPrecisionConfig {
  DType param = DType::f32, compute = DType::f32, reduce = DType::f32;
  LossScaleConfig loss_scale;
  Loc loc;
  bool enabled() const { return param != DType::f32 || compute != DType::f32 || loss_scale.enabled; }
};
// ---- end mixed precision ----

// One phase of a step trained in phases: its own loss (a forward program
// over the model's modules, kept by the frontend), optimizer (with its
// schedule and clipping) and parameters. Phases' parameter sets are
// disjoint; every other parameter is a frozen argument of its functions.
struct PhaseConfig {
  std::string name;                 // an identifier; functions "<name>.train_step", ...
  std::vector<std::string> params;  // the parameters it trains (state_dict names, model order)
  // The buffers its forward updates (BatchNorm running statistics); every
  // other buffer it reads is left as it was.
  std::vector<std::string> buffers;
  OptimizerConfig optimizer;
  Loc loc;
};

struct TrainConfig {
  int64_t batch_size = 0;
  int64_t epochs = 0;  // 0: use steps
  int64_t steps = 0;
  bool shuffle = false;
  bool drop_last = true;
  uint64_t seed = 0;
  int64_t eval_batch_size = 0;  // 0: number of eval examples, at most 1024
  OptimizerConfig optimizer;
  // Observability (driver/train.h, docs/metrics.md); 0: off.
  int64_t eval_every = 0;        // evaluate every N optimizer steps
  int64_t grad_stats_every = 0;  // per-parameter gradient statistics every N steps
  // Each step accumulates the gradients of K micro-batches of batch_size / K
  // (driver/step_schedule.h); 1: one call of @train_step.
  int64_t grad_accumulation_steps = 1;
  // Each optimizer step accumulates the gradients of K whole batches of
  // batch_size (PyTorch's `(loss / K).backward()` loop, driver/accumulate.h);
  // 1: one batch per step. Not with grad_accumulation_steps > 1.
  int64_t accumulate = 1;
  MixedPrecisionConfig mixed_precision;  // off by default
  // Training in phases (train.phases, docs/model-format.md: a GAN's D and G
  // steps): each optimizer step runs every phase in order; empty: one loss
  // (the "loss" section) and `optimizer`.
  std::vector<PhaseConfig> phases;
};

// The model file's "parallel" section (docs/model-format.md): a default mesh
// and ZeRO stage, and the tensor-parallel plan resolved to parameters.
struct TensorParallelParam {
  std::string name;   // a parameter
  int64_t dim = -1;   // the dim sharded over the "tp" axis; -1: replicated
  // Rowwise: the layer's contraction (or embedding lookup) gives partial sums
  // that the layer reduces itself, so its output is whole (or, with sequence
  // parallelism, sharded on the sequence dim).
  bool rowwise = false;
  Loc loc;  // the plan entry that matched it
};
// The "parallel" section's "pipeline" object (docs/model-format.md): the
// model cut into stages·virtual_stages pipeline stages (ir/pipeline_stages.h)
// run by a schedule (ir/pipeline_schedule.h). Planned only (`mlc plan`).
struct PipelineConfig {
  bool given = false;     // the section has a "pipeline" object
  int stages = 1;         // pipeline ranks, p
  int microbatches = 1;   // m
  int virtual_stages = 1; // v, stages per rank
  PipelineScheduleKind schedule = PipelineScheduleKind::one_f_one_b;
  // Explicit cuts: the top-level layers (TopLayer::name) that start stages
  // 1..S-1, in model order; empty: balanced cuts.
  std::vector<std::string> split_before;
  Loc loc, stages_loc, microbatches_loc, schedule_loc, virtual_stages_loc;
  std::vector<Loc> split_before_locs;
};

// A top-level layer of the model, in model (state_dict) order, with the copies
// of a repeat listed one by one ("layers.0", "layers.1"): the units that
// pipeline stages are cut between.
struct TopLayer {
  std::string name;     // its state_dict scope
  bool block = false;   // a copy of a repeat's block
  Loc loc;
};

struct ParallelConfig {
  std::string mesh;  // "" when not given
  Loc mesh_loc;
  int zero = 0;
  std::vector<TensorParallelParam> tensor_parallel;  // sharded or rowwise parameters only
  bool sequence_parallel = false;
  PipelineConfig pipeline;
  Loc loc;
  bool empty() const {
    return mesh.empty() && zero == 0 && tensor_parallel.empty() && !sequence_parallel && !pipeline.given;
  }
};

struct InputInfo {
  std::string name;
  DType dtype;
  Shape shape;  // with the batch dim as -1 when `batched`
  bool batched = false;
  int batch_dim = -1;
  Loc loc;
};

struct ModelConfig {
  std::string name;
  std::string path;  // the model file
  std::vector<InputInfo> inputs;
  std::vector<ParamInfo> params;  // parameters and buffers, in state_dict order
  // The float dtype of the parameters and float buffers ("dtype", PyTorch's
  // model.double()): f32 (the default) or f64. Initialization draws f32 values
  // (the constructor's) and widens them, as model.double() after construction.
  DType dtype = DType::f32;
  // BatchNorm layers without "sync": true (state_dict path, location): a mesh
  // that splits the batch refuses them (their statistics would be per device).
  std::vector<std::pair<std::string, Loc>> unsynced_batch_norms;
  std::string loss_type;  // the "loss" section's type: "cross_entropy", "mse", ..., "output"
  std::string loss_targets;  // "" for "output"
  bool classifier = false;  // cross_entropy or nll_loss: evaluation reports accuracy
  // A classifier's ignore_index when the loss section gives one: targets equal
  // to it are ignored (the data check allows them); others must be classes.
  std::optional<int64_t> loss_ignore_index;
  DataConfig data;
  TrainConfig train;
  ParallelConfig parallel;
  std::vector<TopLayer> layers;  // the model's top-level layers, repeats expanded

  // The batch a model is built at when nothing asks for another (the load-time
  // trial build, `mlc ir`, `mlc plan`): train.batch_size, or 1 without "train".
  int64_t trial_batch() const { return train.batch_size > 0 ? train.batch_size : 1; }
};

}  // namespace mlc
