#include "driver/train.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <numeric>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "frontends/form_words.h"
#include "runtime/checkpoint.h"
#include "runtime/interpreter.h"
#include "runtime/safetensors.h"
#include "runtime/sampler.h"
#include "runtime/sharded_checkpoint.h"
#include "driver/accumulate.h"
#include "driver/evaluate.h"
#include "driver/grad_stats.h"
#include "driver/lr_plateau.h"
#include "driver/mesh_train.h"
#include "driver/non_finite.h"
#include "driver/progress.h"
#include "driver/sharded_checkpoint.h"
#include "driver/step_runner.h"
#include "driver/interrupt.h"
#include "driver/lbfgs.h"
#include "driver/pipeline_step_schedule.h"
#include "driver/step_schedule.h"
#include "driver/metrics_file.h"
#include "driver/train_metrics.h"

namespace mlc {

namespace {

using Clock = std::chrono::steady_clock;

// The functions of one batch size, with what they run on: the step's
// schedule (driver/step_schedule.h), run by a StepRunner whose micro-batch
// buffers the loop refills every step. loss_grad is made only when asked for
// (--dump-grads, gradient statistics): it runs on the whole batch, `inputs`
// (micro-batch 0's buffers when the step has one micro-batch, else a buffer
// of its own), with the arguments it would update (BatchNorm's running
// statistics, num_batches_tracked) bound to copies of them, refreshed before
// every run, so that a diagnostic changes nothing of the run.
struct BatchFunctions {
  int64_t batch = 0;  // global
  std::optional<StepRunner> step;
  std::optional<StepFunction> loss_grad;
  std::vector<rt::Tensor> whole_batch;  // the inputs when the step has micro-batches
  std::vector<rt::Tensor>* inputs = nullptr;  // config.inputs order
  std::vector<rt::Tensor*> grad_args;
  std::vector<std::pair<rt::Tensor*, rt::Tensor>> grad_updates;  // (the argument, loss_grad's copy of it)
};

Expected<BatchFunctions> compile(const Rank& rank, int64_t batch, int64_t grad_accumulation_steps, bool with_grad,
                                 bool profile) {
  BatchFunctions p;
  p.batch = batch;
  MLC_TRY(StepSchedule schedule, build_step_schedule(rank, batch, grad_accumulation_steps));
  MLC_TRY(StepRunner step, StepRunner::create(std::move(schedule), rank, profile));
  p.step.emplace(std::move(step));
  if (with_grad) {
    MLC_TRY(StepFunction grad, rank.function("loss_grad", batch));
    p.loss_grad.emplace(std::move(grad));
  }
  return p;
}

// Arguments of a compiled function, found by kind and name.
class ArgumentBinder {
 public:
  ArgumentBinder(const ModelConfig& config, std::vector<rt::NamedTensor>& params,
                 std::vector<rt::NamedTensor>& state)
      : config_(config), params_(params), state_(state) {}

  Expected<std::vector<rt::Tensor*>> bind(const Signature& f, std::vector<rt::Tensor>& batch,
                                          rt::Tensor* step) const {
    std::vector<rt::Tensor*> args;
    for (size_t i = 0; i < f.args.size(); ++i) {
      const std::string& name = f.args[i].name;
      rt::Tensor* t = nullptr;
      if (f.args[i].kind == ArgKind::step) {
        t = step;
      } else if (f.args[i].kind == ArgKind::input) {
        for (size_t j = 0; j < config_.inputs.size(); ++j)
          if (config_.inputs[j].name == name) t = &batch[j];
      } else {
        for (auto* list : {&params_, &state_})
          for (rt::NamedTensor& p : *list)
            if (p.name == name) t = &p.tensor;
      }
      if (!t) return make_error("mlc internal error: no value for argument '" + name + "' of @" + f.name);
      args.push_back(t);
    }
    return args;
  }

 private:
  const ModelConfig& config_;
  std::vector<rt::NamedTensor>& params_;
  std::vector<rt::NamedTensor>& state_;
};

// Binds `p`'s functions to its inputs, the step counter and the run's
// tensors. `p` must not move afterwards (the map of tail batches keeps its
// entries in place).
Status bind_arguments(BatchFunctions& p, const ModelConfig& config, const ArgumentBinder& binder,
                      std::vector<rt::NamedTensor>& params, std::vector<rt::NamedTensor>& state, rt::Tensor* step) {
  MLC_CHECK_OK(p.step->bind(config, params, state, step));
  p.whole_batch.resize(config.inputs.size());
  p.inputs = p.step->micro_batches() == 1 ? &p.step->inputs(0) : &p.whole_batch;
  if (!p.loss_grad) return {};
  MLC_TRY(p.grad_args, binder.bind(p.loss_grad->signature(), *p.inputs, step));
  const Signature& g = p.loss_grad->signature();
  for (const Signature::Result& r : g.results)
    if (r.updates >= 0) p.grad_updates.emplace_back(p.grad_args[r.updates], rt::Tensor(*p.grad_args[r.updates]));
  for (auto& [arg, copy] : p.grad_updates)
    for (rt::Tensor*& a : p.grad_args)
      if (a == arg) a = &copy;
  return {};
}

// Runs @loss_grad on the bound arguments: the gradients by parameter name
// (valid until its next run). The run's own tensors are not written.
Expected<std::vector<std::pair<std::string, const rt::Tensor*>>> gradients(BatchFunctions& p, const Rank& rank) {
  for (auto& [arg, copy] : p.grad_updates) {
    if (rank.device_tensors) MLC_CHECK_OK(rank.device_tensors->to_host(*arg));
    std::memcpy(copy.bytes(), arg->bytes(), static_cast<size_t>(arg->num_bytes()));
  }
  MLC_CHECK_OK(p.loss_grad->run(p.grad_args));
  std::vector<std::pair<std::string, const rt::Tensor*>> named;
  size_t g = 1;
  for (const Signature::Arg& a : p.loss_grad->signature().args)
    if (a.kind == ArgKind::param) named.emplace_back(a.name, &p.loss_grad->result(g++));
  return named;
}

std::vector<rt::NamedTensor> state_layout(const Signature& step_fn, std::vector<const rt::Tensor*> values) {
  std::vector<rt::NamedTensor> state;
  size_t k = 0;
  for (const Signature::Arg& a : step_fn.args)
    if (a.kind == ArgKind::state) state.push_back({a.name, rt::Tensor(*values[k++])});
  return state;
}

// Loads the newest checkpoint of `dir` that verifies; warns about the others.
Expected<std::optional<rt::TrainState>> newest_checkpoint(const std::string& dir, const ModelConfig& config,
                                                          const std::vector<rt::NamedTensor>& params,
                                                          const std::vector<rt::NamedTensor>& state, bool notes) {
  std::vector<std::string> files = rt::list_checkpoints(dir);
  std::optional<rt::TrainState> newest;
  for (const std::string& file : files) {
    auto s = rt::read_checkpoint(file, config.name, params, state);
    if (s) {
      newest = std::move(s).value();
      break;
    }
    if (notes) std::fprintf(stderr, "warning: skipping checkpoint: %s\n", s.error().message.c_str());
  }
  for (int64_t step : rt::interrupted_checkpoints(dir))
    if (notes && (!newest || step > newest->step))
      std::fprintf(stderr, "warning: skipping checkpoint: %s: error: missing; the step's shards were written but "
                   "not the index (the run stopped while writing this checkpoint)\n",
                   rt::checkpoint_index_path(dir, step).c_str());
  if (!newest && !files.empty()) return make_error(dir + ": error: no checkpoint in this directory verifies");
  return newest;
}

// prepare_training without the out-of-memory guard; `stage` says what it is doing.
Expected<TrainSetup> prepare_stages(FunctionCache& functions, const TrainOptions& o, int64_t data_ranks,
                                    const std::string& mesh, bool notes, std::string& stage) {
  const Program& program = functions.program();
  const ModelConfig& config = program.config();
  const TrainConfig& tc = config.train;
  const bool phased = !tc.phases.empty();
  if (tc.optimizer.type.empty() && !phased)
    return make_error(config.path + ": error: the model file has no " +
                      spelled_field(config.path, "train", "optimizer"));
  MLC_CHECK_OK(check_phases(config, o, mesh));
  TrainSetup s;
  s.config = &config;
  s.seed = o.seed.value_or(tc.seed);

  stage = "reading the data";
  std::string data_path = o.data_path.empty() ? config.data.file : o.data_path;
  if (data_path.empty())
    return make_error(config.path + ": error: no data file: give " +
                      spelled_field(config.path, "data", "file") + " or --data");
  MLC_TRY(rt::SafetensorsFile data, rt::read_safetensors(data_path));
  MLC_TRY(s.train_split, rt::Split::load(data, config.data.train, config.inputs, "train"));
  MLC_TRY(s.eval_split, rt::Split::load(data, config.data.eval, config.inputs, "eval"));
  const int64_t n = s.train_split.num_examples(), batch = s.batch = tc.batch_size;
  MLC_CHECK_OK(check_data_ranks(config, n, data_ranks, mesh, data_path));
  s.grad_accumulation_steps = o.grad_accumulation_steps.value_or(tc.grad_accumulation_steps);
  MLC_CHECK_OK(check_grad_accumulation(config, n, s.grad_accumulation_steps, o.grad_accumulation_steps.has_value(),
                                       mesh, data_path));
  s.steps_per_epoch = tc.drop_last ? n / batch : (n + batch - 1) / batch;
  if (s.steps_per_epoch == 0)
    return make_error(config.path + ": error: the training split has " + std::to_string(n) +
                      " examples, fewer than one batch of " + std::to_string(batch));
  MLC_CHECK_OK(apply_accumulate(config, n, o, mesh, data_path, s));  // K batches per step
  MLC_CHECK_OK(check_plateau(config, mesh));
  MLC_CHECK_OK(check_lbfgs(config, o, mesh));
  program.set_steps_per_epoch(s.steps_per_epoch);
  s.total_steps = o.steps ? *o.steps
                  : o.epochs ? *o.epochs * s.steps_per_epoch
                  : tc.steps ? tc.steps : tc.epochs * s.steps_per_epoch;
  s.epochs = (s.total_steps + s.steps_per_epoch - 1) / s.steps_per_epoch;
  s.eval_batch = tc.eval_batch_size > 0 ? tc.eval_batch_size : std::min<int64_t>(s.eval_split.num_examples(), 1024);
  MLC_CHECK_OK(check_class_targets(program, s.train_split, data_path, "train"));
  MLC_CHECK_OK(check_class_targets(program, s.eval_split, data_path, "eval"));

  // Parameters and optimizer state (optimizer_init is never sharded): the
  // initial state `init` makes, laid out as the {state} arguments of `step`.
  auto add_state = [&](const std::string& init_name, const std::string& step_name, int64_t batch) -> Status {
    MLC_TRY(StepFunction init, functions.get(init_name, s.batch));
    MLC_TRY(Signature step, functions.signature(step_name, batch));
    stage = "creating the parameters and optimizer state";
    MLC_CHECK_OK(init.run({}));
    std::vector<const rt::Tensor*> init_state;
    for (size_t k = 0; k < init.num_results(); ++k) init_state.push_back(&init.result(k));
    for (rt::NamedTensor& t : state_layout(step, std::move(init_state))) s.state.push_back(std::move(t));
    return {};
  };
  if (phased) {  // every phase's, in phase order
    for (const PhaseConfig& p : tc.phases) {
      stage = "compiling the phases' train steps";
      MLC_CHECK_OK(add_state(phase_function(p, "optimizer_init"), phase_function(p, "train_step"), s.batch));
    }
  } else if (!is_lbfgs(config)) {  // LBFGS keeps its state on the host (driver/lbfgs.h)
    stage = "compiling the train step";
    const int64_t k = s.grad_accumulation_steps;
    MLC_CHECK_OK(add_state("optimizer_init", optimizer_state_function(k), s.batch / k));
  }
  if (!o.init_path.empty()) {
    // A checkpoint's position is not restored (--start-step); evaluation reads no optimizer state.
    MLC_TRY(rt::InitParameters init,
            rt::read_init_parameters(config.params, o.init_path, config.name, o.eval_only ? nullptr : &s.state));
    s.params = std::move(init.params);
    if (init.state_left_out && notes && !o.eval_only)
      std::fprintf(stderr, "note: --init %s: its optimizer state is not this optimizer's: the run takes its "
                   "parameters and starts the optimizer afresh\n", o.init_path.c_str());
  } else {
    s.params = rt::init_parameters(config.params, s.seed);
  }
  s.start = o.start_step;
  if (o.resume) {
    if (o.checkpoint_dir.empty()) return make_error("error: --resume needs --checkpoint-dir");
    // Nothing to resume from is an error, not a fresh start: a mistyped
    // directory would otherwise train again from step 0 without a word.
    std::error_code ec;
    if (!std::filesystem::exists(o.checkpoint_dir, ec))
      return make_error(o.checkpoint_dir + ": error: --resume: no such directory; --checkpoint-dir must name the "
                        "directory an earlier run wrote its checkpoints to (run without --resume to start at step 0)");
    if (!std::filesystem::is_directory(o.checkpoint_dir, ec))
      return make_error(o.checkpoint_dir + ": error: --resume: not a directory; --checkpoint-dir must name the "
                        "directory an earlier run wrote its checkpoints to");
    MLC_TRY(auto ckpt, newest_checkpoint(o.checkpoint_dir, config, s.params, s.state, notes));
    if (!ckpt)
      return make_error(o.checkpoint_dir + ": error: --resume: no checkpoint in this directory (a run with "
                        "--checkpoint-dir writes step_NNNNNNNN.safetensors, or step_NNNNNNNN.index.json on a mesh); "
                        "run without --resume to start at step 0");
    if (ckpt->batch_size != s.batch || ckpt->steps_per_epoch != s.steps_per_epoch || ckpt->shuffle != tc.shuffle ||
        ckpt->seed != s.seed)
      return make_error(o.checkpoint_dir + ": error: the checkpoint was written with other data "
                        "settings (batch, shuffle or seed) than this run");
    s.start = ckpt->step;
    s.params = std::move(ckpt->params);
    s.state = std::move(ckpt->state);
    if (notes)
      std::fprintf(stderr, "resuming at step %lld of %lld from the newest checkpoint in %s\n",
                   static_cast<long long>(s.start), static_cast<long long>(s.total_steps), o.checkpoint_dir.c_str());
  }
  return s;
}
}  // namespace

Expected<TrainSetup> prepare_training(FunctionCache& functions, const TrainOptions& o, int64_t data_ranks,
                                      const std::string& mesh, bool notes) {
  std::string stage = "starting";
  try {
    return prepare_stages(functions, o, data_ranks, mesh, notes, stage);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  return make_error(functions.program().path() + ": error: out of memory while " + stage);
}

namespace {

// The local parts of `global` as @train_step's arguments of the same names are placed.
struct LocalTensors {
  std::vector<rt::NamedTensor> tensors;
  std::vector<Placements> placements;

  // `holders`: a pipeline's (driver/pipeline_step_schedule.h): only the tensors this rank's stages hold.
  // `fns`: the functions updating them (a pipeline rank's stages' @apply_update).
  LocalTensors(const std::vector<rt::NamedTensor>& global, const std::vector<const Signature*>& fns, const Rank& rank,
               const PipelineHolders* holders = nullptr) {
    for (const rt::NamedTensor& g : global) {
      if (holders && !holds(rank, *holders, g.name)) continue;
      Placements p;
      for (const Signature* f : fns)
        for (const Signature::Arg& a : f->args)
          if (a.name == g.name) p = a.placements;
      // Replicated: a pipeline rank's tensors, which no other rank's arguments place.
      if (p.empty() && rank.world) p.assign(rank.mesh.axes.size(), Placement::R());
      tensors.push_back({g.name, rank.local_part(g.tensor, p)});
      placements.push_back(std::move(p));
    }
  }
  // The whole tensors, gathered (a collective: every rank calls it).
  Expected<std::vector<rt::NamedTensor>> whole(const Rank& rank) const {
    std::vector<rt::NamedTensor> out;
    for (size_t i = 0; i < tensors.size(); ++i) {
      MLC_TRY(rt::Tensor t, rank.gather(tensors[i].tensor, placements[i], tensors[i].name));
      out.push_back({tensors[i].name, std::move(t)});
    }
    return out;
  }
};

int64_t bytes_of(const std::vector<rt::NamedTensor>& tensors) {
  int64_t bytes = 0;
  for (const rt::NamedTensor& t : tensors) bytes += t.tensor.num_bytes();
  return bytes;
}

// Every rank's RankMemory, gathered (a collective on a mesh: every rank calls it).
Expected<std::vector<RankMemory>> memory_of_ranks(const Rank& rank, const std::vector<rt::NamedTensor>& params,
                                                  const std::vector<rt::NamedTensor>& state,
                                                  const StepRunner& step) {
  const RankMemory mine{bytes_of(params), bytes_of(state), step.arena_bytes(), step.buffer_bytes()};
  if (!rank.world) return std::vector<RankMemory>{mine};
  std::vector<RankMemory> all(static_cast<size_t>(rank.world->size()));
  MLC_CHECK_OK(rank.world->all().all_gather(&mine, all.data(), sizeof mine, "mlc run: memory report"));
  return all;
}

// train_rank without the out-of-memory guard; `stage` says what it is doing.
// The parameters and optimizer state live in `rank`'s device tensors (none:
// the host tensors) from the first step on; the host reads them after
// Rank::to_host only.
Expected<TrainSummary> train_rank_stages(const TrainSetup& setup, const TrainOptions& o, const Rank& rank,
                                         std::string& stage) {
  const ModelConfig& config = *setup.config;
  const TrainConfig& tc = config.train;
  const int64_t n = setup.train_split.num_examples(), batch = setup.batch, total_steps = setup.total_steps;
  const int64_t steps_per_epoch = setup.steps_per_epoch, start = setup.start;
  // Observability (driver/train_metrics.h): 0 is off.
  const int64_t eval_every = o.eval_every.value_or(tc.eval_every);
  const int64_t grad_stats_every = o.grad_stats_every.value_or(tc.grad_stats_every);
  const bool leader = rank.leader(), with_grad = !o.dump_grads_path.empty() || grad_stats_every > 0;
  // @loss_grad for the diagnostics; a pipeline's come from its step (below).
  const bool loss_grad = with_grad && !pipeline_axis(rank);

  stage = "compiling the train step";
  const int64_t k = setup.grad_accumulation_steps;
  // A pipeline's ranks all time their calls (--profile compares them).
  const bool profiled = o.profile && (leader || pipeline_axis(rank));
  MLC_TRY(BatchFunctions program, compile(rank, batch, k, loss_grad, profiled));
  std::map<int64_t, BatchFunctions> tail_programs;  // last partial batch when !drop_last
  // Where the parameters and state are placed: the arguments of the function updating them.
  std::vector<const Signature*> state_fns;
  for (const StepRunner::Compiled& f : program.step->functions())
    if (f.name == optimizer_state_function(k) || f.name.ends_with(".apply_update") || f.name.ends_with(".train_step"))
      state_fns.push_back(&f.fn.signature());
  if (state_fns.empty()) return make_error("mlc internal error: the step schedule has no @" + optimizer_state_function(k));
  // A pipeline's rank holds its stages' tensors only (driver/pipeline_step_schedule.h).
  std::optional<PipelineHolders> holders;
  std::optional<std::map<std::string, Placements>> tensor_placements;
  if (pipeline_axis(rank)) {
    MLC_TRY(holders, pipeline_tensor_holders(rank, batch));
    MLC_TRY(tensor_placements, pipeline_tensor_placements(rank, batch));
  }
  const PipelineHolders* held = holders ? &*holders : nullptr;
  LocalTensors params(setup.params, state_fns, rank, held), state(setup.state, state_fns, rank, held);
  if (rank.device_tensors)
    for (auto* list : {&params.tensors, &state.tensors})
      for (rt::NamedTensor& t : *list) MLC_CHECK_OK(rank.device_tensors->keep(t.tensor));
  auto all_to_host = [&]() -> Status {
    MLC_CHECK_OK(rank.to_host(params.tensors));
    return rank.to_host(state.tensors);
  };
  if (!o.checkpoint_dir.empty()) {
    // Every rank writes into it (its shard, on a mesh).
    std::error_code ec;
    std::filesystem::create_directories(o.checkpoint_dir, ec);
    if (ec) return make_error(o.checkpoint_dir + ": error: cannot create the checkpoint directory: " + ec.message());
    // What a killed run's checkpoint writes left (before any rank writes one).
    if (leader)
      if (const std::vector<std::string> removed = rt::remove_stale_temp_files(o.checkpoint_dir); !removed.empty())
        std::fprintf(stderr, "note: removed %zu temporary file%s that interrupted checkpoint writes left in %s\n",
                     removed.size(), removed.size() == 1 ? "" : "s", o.checkpoint_dir.c_str());
  }

  // A resumed run's metrics continue the killed run's file from the
  // checkpoint's step (driver/metrics_file.h).
  std::optional<MetricsFile> metrics;
  if (leader && !o.metrics_path.empty()) {
    if (o.resume && start > 0) {
      MLC_TRY(metrics, MetricsFile::resume(o.metrics_path, start));
    } else {
      MLC_TRY(metrics, MetricsFile::create(o.metrics_path));
    }
  }
  auto write_metric = [&](const nlohmann::ordered_json& line) {
    if (metrics) metrics->write(line);
  };
  // On a mesh every rank writes its own chunks (driver/sharded_checkpoint.h);
  // a single device writes the whole tensors.
  auto checkpoint = [&](int64_t steps_done, const std::string& dir) -> Status {
    MLC_CHECK_OK(all_to_host());
    const rt::TrainPosition position{steps_done, setup.seed, batch, steps_per_epoch, tc.shuffle};
    if (holders) {  // every tensor written by its first holder's stage; the others' entries give types
      std::vector<rt::NamedTensor> locals;
      std::vector<Placements> placements;
      std::vector<bool> writes;
      for (auto* list : {&setup.params, &setup.state})
        for (const rt::NamedTensor& g : *list) {
          const rt::NamedTensor* mine = nullptr;
          for (auto* own : {&params.tensors, &state.tensors})
            for (const rt::NamedTensor& t : *own)
              if (t.name == g.name) mine = &t;
          const Placements& p = tensor_placements->at(g.name);
          locals.push_back(mine ? *mine : rt::NamedTensor{g.name, rank.local_part(g.tensor, p)});
          placements.push_back(p);
          writes.push_back(mine && writes_pipeline_tensor(rank, *holders, g.name, p));
        }
      return write_sharded_checkpoint(rank, dir, o.keep_checkpoints, config.name, position, locals,
                                      placements, &writes);
    }
    if (rank.world) {
      std::vector<rt::NamedTensor> locals = params.tensors;
      locals.insert(locals.end(), state.tensors.begin(), state.tensors.end());
      std::vector<Placements> placements = params.placements;
      placements.insert(placements.end(), state.placements.begin(), state.placements.end());
      return write_sharded_checkpoint(rank, dir, o.keep_checkpoints, config.name, position, locals,
                                      placements);
    }
    rt::TrainState s{position, params.tensors, state.tensors};
    MLC_CHECK_OK(rt::write_checkpoint(rt::checkpoint_path(dir, steps_done), config.name, s));
    rt::prune_checkpoints(o.checkpoint_dir, o.keep_checkpoints);
    return {};
  };

  ArgumentBinder binder(config, params.tensors, state.tensors);
  Progress progress(leader && o.progress_bar, total_steps);
  TrainSummary summary;
  summary.rank = rank.index();
  std::vector<double> step_ms;
  std::vector<int64_t> mine;  // this rank's share of the epoch's order
  int64_t order_epoch = -1;
  MLC_TRY(Evaluator evaluator, Evaluator::create(rank, config, setup.eval_split.num_examples(), setup.eval_batch));
  if (o.profile && leader) evaluator.enable_profiling();
  // The whole parameters to `path`, written by rank 0 (a collective on a mesh).
  auto write_params = [&](const std::string& path, const std::vector<std::pair<std::string, std::string>>& meta) -> Status {
    MLC_CHECK_OK(all_to_host());
    MLC_TRY(std::vector<rt::NamedTensor> whole,
            holders ? gather_pipeline_tensors(rank, *holders, setup.params, params.tensors, params.placements)
                    : params.whole(rank));
    std::vector<std::pair<std::string, const rt::Tensor*>> named;
    for (const rt::NamedTensor& p : whole) named.emplace_back(p.name, &p.tensor);
    return leader ? rt::write_safetensors(path, named, meta) : Status{};
  };
  // After `steps_done` steps: at an epoch's end, or every eval_every steps.
  auto run_eval = [&](int64_t epoch, int64_t steps_done, double epoch_mean, bool epoch_end) -> Status {
    MLC_TRY(EvalResult r, evaluator.run(setup.eval_split, params.tensors));
    write_metric(eval_record(epoch, steps_done, r));
    if (has_plateau(config)) {  // scheduler.step(metric): the next update reads the new lr
      MLC_TRY(double metric, plateau_metric(config, r.loss, r.accuracy));
      MLC_CHECK_OK(rank.to_host(state.tensors));
      MLC_CHECK_OK(plateau_step(tc.optimizer.schedule, metric, state.tensors));
      rank.host_wrote(state.tensors);
    }
    // The best parameters by the evaluation's metric (every rank has the same result).
    if (!o.best_path.empty()) {
      const bool by_accuracy = o.best_metric == "accuracy";
      const double value = by_accuracy ? r.accuracy.value_or(0) : r.loss;
      if (!summary.best || (by_accuracy ? value > summary.best->value : value < summary.best->value)) {
        summary.best = TrainSummary::Best{steps_done, value};
        MLC_CHECK_OK(write_params(o.best_path, {{"model", config.name}, {"step", std::to_string(steps_done)},
                                                {"metric", "eval " + o.best_metric},
                                                {"value", std::to_string(value)}}));
      }
    }
    if (leader && epoch_end) progress.epoch(epoch, setup.epochs, epoch_mean, r);
    if (leader && !epoch_end) progress.eval(steps_done, r);
    summary.eval_loss = r.loss;
    summary.eval_accuracy = r.accuracy;
    summary.eval = r;
    return {};
  };
  if (o.eval_only) {  // the starting parameters, evaluated once, spread over the ranks
    MLC_TRY(EvalResult r, evaluator.run(setup.eval_split, params.tensors));
    summary.eval_loss = r.loss;
    summary.eval_accuracy = r.accuracy;
    summary.eval = r;
    return summary;
  }

  stage = "training";
  // A resumed run whose settings are the killed run's continues its run
  // record; an epoch resumed in its middle continues its mean from the
  // kept step records.
  const nlohmann::ordered_json run = run_record(setup, o, rank, eval_every, grad_stats_every);
  if (!metrics || !same_run(metrics->kept_run(), run)) write_metric(run);
  EpochLoss epoch_loss;
  if (metrics)
    for (double loss : metrics->kept_losses(start / steps_per_epoch * steps_per_epoch)) epoch_loss.add(loss);
  const int64_t local_batch = batch / rank.data_ranks;
  // The loop allocates nothing per step (tests/tools/train_loop_test.cc):
  // each batch size's buffers and bound arguments are made once, the step
  // counter is one tensor, and the parameters and optimizer state stay in
  // the tensors the step function updates in place. Per-step metrics
  // records and the progress bar's redraws are text and allocate.
  rt::Tensor step_tensor(DType::i64, {});
  MLC_CHECK_OK(bind_arguments(program, config, binder, params.tensors, state.tensors, &step_tensor));
  step_ms.reserve(static_cast<size_t>(std::max<int64_t>(total_steps - start, 0)));
  // Step s's batch in its functions' buffers (micro-batch j: rows
  // [j*b/K, (j+1)*b/K) of the batch of b examples) and its counter set: the
  // functions of that batch's size (a last partial batch has its own). With
  // `whole`, the whole batch in `inputs` too (for @loss_grad and @loss).
  auto prepare_step = [&](int64_t s, bool whole) -> Expected<BatchFunctions*> {
    const int64_t epoch = s / steps_per_epoch, i = s % steps_per_epoch;
    if (epoch != order_epoch) {
      mine = rt::distributed_indices(rt::epoch_order(n, tc.shuffle, setup.seed, epoch), rank.data_ranks,
                                     rank.data_rank, tc.drop_last);
      order_epoch = epoch;
    }
    const int64_t begin = i * local_batch, end = std::min<int64_t>(static_cast<int64_t>(mine.size()), begin + local_batch);
    BatchFunctions* prog = &program;
    if (const int64_t global = (end - begin) * rank.data_ranks; global != batch) {
      if (!tail_programs.count(global)) {
        MLC_TRY(BatchFunctions tail, compile(rank, global, k, loss_grad, profiled));
        BatchFunctions& placed = tail_programs.emplace(global, std::move(tail)).first->second;
        MLC_CHECK_OK(bind_arguments(placed, config, binder, params.tensors, state.tensors, &step_tensor));
      }
      prog = &tail_programs.at(global);
    }
    const std::span<const int64_t> rows = std::span<const int64_t>(mine).subspan(begin, end - begin);
    const int64_t parts = prog->step->micro_batches();  // K, or a pipeline's micro-batches
    const int64_t micro = (end - begin) / parts;
    for (int64_t j = 0; j < parts; ++j)
      setup.train_split.gather_into(rows.subspan(j * micro, micro), prog->step->inputs(static_cast<size_t>(j)));
    if (whole && parts > 1) setup.train_split.gather_into(rows, *prog->inputs);
    step_tensor.data<int64_t>()[0] = s + 1;
    return prog;
  };
  // On one device: the run trained again from its start state up to step
  // `s`, bit for bit; the parameters and state are then those step s
  // started from.
  auto replay_to = [&](int64_t s) -> Status {
    for (auto [local, global] : {std::pair{&params.tensors, &setup.params}, std::pair{&state.tensors, &setup.state}})
      for (size_t k = 0; k < local->size(); ++k)
        std::memcpy((*local)[k].tensor.bytes(), (*global)[k].tensor.bytes(),
                    static_cast<size_t>((*global)[k].tensor.num_bytes()));
    rank.host_wrote(params.tensors);
    rank.host_wrote(state.tensors);
    for (int64_t r = start; r < s; ++r) {
      MLC_TRY(BatchFunctions * p, prepare_step(r, false));
      MLC_CHECK_OK(p->step->run());
    }
    return {};
  };
  // Step s's diagnostics: the gradients before its update, for --dump-grads
  // and the statistics every grad_stats_every steps.
  auto diagnoses = [&](int64_t s) {
    return (s == start && !o.dump_grads_path.empty()) || (grad_stats_every > 0 && s % grad_stats_every == 0);
  };
  // Where parameters live on a device (a GPU's asynchronous runs), the next
  // step's batch is gathered while this step runs: start() has taken this
  // batch's bytes. On the host tensors, the step is timed alone, as before.
  const bool gather_ahead = rank.device_tensors != nullptr;
  BatchFunctions* gathered = nullptr;  // step gathered_step's, gathered ahead
  int64_t gathered_step = -1;
  for (int64_t s = start; s < total_steps; ++s) {
    const int64_t epoch = s / steps_per_epoch, i = s % steps_per_epoch;
    // This step's gradients before its update: for --dump-grads, and the
    // statistics every grad_stats_every steps (every rank runs @loss_grad; a
    // sharded one's gradients are whole on each, driver/grad_stats.h, so rank
    // 0 writes the whole gradients on a mesh too).
    const bool dump = s == start && !o.dump_grads_path.empty();
    const bool diagnose = diagnoses(s);
    BatchFunctions* prog = gathered;
    if (gathered_step != s) {
      MLC_TRY(prog, prepare_step(s, diagnose));
    }
    // A pipeline's gradients are its step's own sums (after the step, below).
    auto write_diagnostics = [&](const std::vector<std::pair<std::string, const rt::Tensor*>>& named) -> Status {
      if (dump && leader)
        MLC_CHECK_OK(rt::write_safetensors(o.dump_grads_path, named, {{"note", "gradients of step " + std::to_string(s)}}));
      if (grad_stats_every > 0 && s % grad_stats_every == 0 && leader)
        write_metric(grads_record(epoch, s, grad_stats(named)));
      return {};
    };
    if (diagnose && !holders) {
      MLC_TRY(auto named, gradients(*prog, rank));
      MLC_CHECK_OK(write_diagnostics(named));
    }

    auto t0 = Clock::now();
    // The schedule's calls: results other than losses replace {param},
    // {state} and the schedule's arguments, as the functions declare
    // (`{updates = %name}`): run writes them into the bound buffers.
    MLC_CHECK_OK(prog->step->start());
    if (gather_ahead && s + 1 < total_steps) {
      MLC_TRY(gathered, prepare_step(s + 1, diagnoses(s + 1)));
      gathered_step = s + 1;
    }
    MLC_CHECK_OK(prog->step->finish());
    step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    if (diagnose && holders) {
      // The step's gradient sums (its micro-batches' mean, before clipping),
      // each from its stage's rank, under the parameters' names.
      std::vector<rt::NamedTensor> mine, trained;
      std::vector<Placements> placed;  // as @apply_update takes the sums
      for (const rt::NamedTensor& p : params.tensors)
        if (const rt::Tensor* g = prog->step->buffer(p.name + ".grad")) {
          mine.push_back({p.name, *g});
          placed.emplace_back();
          for (const Signature* f : state_fns)
            for (const Signature::Arg& a : f->args)
              if (a.name == p.name + ".grad") placed.back() = a.placements;
        }
      for (size_t i = 0; i < config.params.size(); ++i)
        if (config.params[i].trainable && !config.params[i].buffer) trained.push_back(setup.params[i]);
      MLC_TRY(std::vector<rt::NamedTensor> whole, gather_pipeline_tensors(rank, *holders, trained, mine, placed));
      std::vector<std::pair<std::string, const rt::Tensor*>> named;
      for (const rt::NamedTensor& g : whole) named.emplace_back(g.name, &g.tensor);
      MLC_CHECK_OK(write_diagnostics(named));
    }

    double loss = prog->step->loss();
    summary.final_loss = loss;
    ++summary.steps_run;
    if (metrics) {
      nlohmann::ordered_json record = {{"step", s}, {"epoch", epoch}, {"loss", loss}};
      if (!tc.phases.empty()) {  // each phase's loss (their sum is the step's)
        nlohmann::ordered_json phases = nlohmann::ordered_json::object();
        const std::span<const double> losses = prog->step->call_losses();
        for (size_t i = 0; i < tc.phases.size() && i < losses.size(); ++i) phases[tc.phases[i].name] = losses[i];
        record["phases"] = std::move(phases);
      }
      write_metric(record);
    }
    epoch_loss.add(loss);
    if (!std::isfinite(loss)) {  // every rank sees the same loss, so every rank stops here
      // The parameters this step started from are not kept (no copy per
      // step): on one device the run is trained again from its start state
      // to this step, bit for bit (the same functions on the same batches
      // and counters), and explained from there. A mesh's ranks explain from
      // the updated parameters (they cannot replay the forward pass).
      const Function* forward = nullptr;
      if (!rank.world) {
        if (auto f = rank.functions->program().ir("loss", prog->batch)) forward = *f;
        MLC_CHECK_OK(replay_to(s));
      }
      // This step's batch again (the next one's may have been gathered ahead).
      MLC_TRY(prog, prepare_step(s, true));
      MLC_CHECK_OK(all_to_host());
      return make_error(rank.functions->program().path() + ": error: " +
                        explain_non_finite_loss(config, forward, s, epoch, loss, *prog->inputs, &step_tensor,
                                                params.tensors));
    }
    progress.step(s + 1, loss);
    if (o.on_step) o.on_step(s, loss);
    const double epoch_mean = epoch_loss.mean();  // of the epoch's steps so far
    if (i == steps_per_epoch - 1) write_metric(epoch_loss.finish(epoch));  // a completed epoch
    bool epoch_end = i == steps_per_epoch - 1 || s + 1 == total_steps;
    if (epoch_end || (eval_every > 0 && (s + 1) % eval_every == 0))
      MLC_CHECK_OK(run_eval(epoch, s + 1, epoch_mean, epoch_end));
    if (!o.checkpoint_dir.empty() &&
        ((o.checkpoint_every > 0 && (s + 1) % o.checkpoint_every == 0) || s + 1 == total_steps))
      MLC_CHECK_OK(checkpoint(s + 1, o.checkpoint_dir));
    // Ctrl-C (driver/interrupt.h): every rank stops after the same step, with a checkpoint.
    bool stop = false;
    if (o.stop_on_interrupt && s + 1 < total_steps) {
      MLC_TRY(stop, agreed_stop(rank));
    }
    if (stop) {
      const std::string dir = o.checkpoint_dir.empty() ? o.interrupt_dir : o.checkpoint_dir;
      MLC_CHECK_OK(prepare_interrupt_dir(dir));
      if (o.checkpoint_dir.empty() || !(o.checkpoint_every > 0 && (s + 1) % o.checkpoint_every == 0))
        MLC_CHECK_OK(checkpoint(s + 1, dir));
      summary.interrupted = TrainSummary::Interrupted{s + 1, dir};
      break;
    }
  }
  if (metrics) MLC_CHECK_OK(metrics->status());
  MLC_CHECK_OK(all_to_host());
  if (!o.save_path.empty() && !summary.interrupted) MLC_CHECK_OK(write_params(o.save_path, {{"model", config.name}}));
  MLC_TRY(summary.memory, memory_of_ranks(rank, params.tensors, state.tensors, *program.step));
  if (o.profile && holders) {
    const CallTimes mine = program.step->call_times();
    summary.pipeline_times.resize(static_cast<size_t>(rank.world->size()));
    MLC_CHECK_OK(rank.world->all().all_gather(&mine, summary.pipeline_times.data(), sizeof mine,
                                              "mlc run --profile: the pipeline's call times"));
  }
  if (!step_ms.empty()) {
    std::sort(step_ms.begin(), step_ms.end());
    summary.median_step_ms = step_ms[step_ms.size() / 2];
    summary.mean_step_ms = std::accumulate(step_ms.begin(), step_ms.end(), 0.0) / static_cast<double>(step_ms.size());
  }
  if (o.profile && leader) {
    auto profile_step = [&](const BatchFunctions& p) {
      for (const StepRunner::Compiled& f : p.step->functions())
        if (auto profile = function_profile(f.fn, f.batch)) {
          profile->function = f.name;  // the run's name: a phase's "D.train_step", a stage's "stage0.forward"
          summary.profiles.push_back(std::move(*profile));
        }
    };
    profile_step(program);
    for (const auto& [size, tail] : tail_programs) profile_step(tail);
    for (FunctionProfile& p : evaluator.profiles()) summary.profiles.push_back(std::move(p));
  }
  return summary;
}

}  // namespace

Expected<TrainSummary> train_rank(const TrainSetup& setup, const TrainOptions& o, const Rank& rank) {
  std::string stage = "starting";
  std::optional<Expected<TrainSummary>> result;
  try {
    // This rank's device tensors, unless the caller gave some.
    Rank on_device = rank;
    std::unique_ptr<rt::DeviceTensors> kept;
    const Program& program = rank.functions->program();
    if (!rank.device_tensors && program.backend() == Backend::compiled) {
      Expected<std::unique_ptr<rt::DeviceTensors>> made = make_device_tensors(program.device());
      if (!made) return make_error(rank.prefix() + program.path() + ": error: " + made.error().message);
      kept = std::move(made).value();
      on_device.device_tensors = kept.get();
    }
    result.emplace(train_rank_stages(setup, o, on_device, stage));
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  if (!result) return make_error(rank.prefix() + rank.functions->program().path() + ": error: out of memory while " + stage);
  // Errors of collectives already name this rank.
  if (!*result && result->error().message.rfind(rank.prefix(), 0) != 0)
    return make_error(rank.prefix() + result->error().message);
  return std::move(*result);
}

Expected<TrainSummary> train(const Program& program, const TrainOptions& o) {
  FunctionCache functions(program);
  MLC_TRY(TrainSetup setup, prepare_training(functions, o, 1, ""));
  if (is_lbfgs(program.config())) return train_lbfgs(setup, o, functions);
  Rank rank;
  rank.functions = &functions;
  return train_rank(setup, o, rank);
}

Expected<TrainSummary> train(const ModelFile& model, const TrainOptions& o) {
  if (!o.parallel.mesh.empty())
    return train_on_mesh(Program::from_model(model, o.backend, o.parallel, o.device),
                         Program::from_model(model, o.backend, {}, o.device), o);
  return train(Program::from_model(model, o.backend, {}, o.device), o);
}

}  // namespace mlc
