// mlc run MODEL.json|MODEL.mlcx: trains the model (or, with --eval, only
// evaluates it), compiling it now or running an artifact of `mlc compile`.
//
// Training prints a progress bar on a terminal (else one line per epoch) to
// stderr and a summary on stdout; the metrics file gets one JSON object per
// step {"step", "epoch", "loss"}, per evaluation {"epoch", "step", "eval":
// {...}}, per completed epoch {"epoch", "train": {...}}, per gradient
// statistics {"epoch", "step", "grads": [...]} and the run's facts {"run":
// {...}} first (driver/train_metrics.h, docs/metrics.md). --eval-every N and
// --grad-stats-every N override train.eval_every and train.grad_stats_every;
// --grad-accum K overrides train.grad_accumulation_steps.
// --eval prints the mean loss (and accuracy) over the eval split and appends
// {"eval": {"loss": L, "accuracy": A}} to the metrics file.
//
// --mesh dp=2 [--zero 0|1|2|3] trains on the ranks of a device mesh, as
// threads of this process, or one rank per process when started by mpirun or
// srun (rt::launched_by_mpi; driver/mesh_train.h): train.batch_size is the
// global batch, each data-parallel rank takes its DistributedSampler share;
// rank 0 logs, prints the summary and writes metrics and --save (whole
// tensors); every rank writes its shard of each checkpoint and rank 0 its
// index (driver/sharded_checkpoint.h); other ranks print only their errors.
// --comm-timeout S bounds how long a collective waits for its peers (default
// 300 s). An artifact of `mlc compile --mesh` runs on the mesh it was
// compiled for (--mesh, if given, must be that mesh; --zero that stage); one
// compiled for one device runs on one device.
//
// --verify-code (artifacts only) checks, before linking, that every kernel
// object is the code this mlc compiles from the kernel IR beside it, and that
// the kernel IR stays inside its buffers (driver/verify_code.h); it prints
// "verified the code of N kernel objects against their kernel IR" on stderr
// (in every process of an mpirun).
//
// --profile times every instruction of the compiled train step and
// evaluation and prints, at the end on stderr, a table per function sorted by
// total time (driver/profile.h); --profile=FILE.json also writes the numbers
// as JSON.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>

#include <nlohmann/json.hpp>

#include "runtime/artifact.h"
#include "frontends/form_words.h"
#include "runtime/checkpoint.h"
#include "runtime/comm/mpi.h"
#include "runtime/file_io.h"
#include "runtime/safetensors.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "driver/device.h"
#include "driver/evaluate.h"
#include "driver/plan_parallel.h"
#include "driver/mesh_train.h"
#include "driver/metrics_file.h"
#include "driver/plan_file.h"
#include "driver/interrupt.h"
#include "driver/train.h"
#include "driver/verify_code.h"

namespace mlc::cli {

namespace {
bool is_artifact_path(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".mlcx") == 0;
}

// An artifact's mesh and ZeRO stage into `parallel`; `flags` (--mesh and
// --zero), if given, must be the artifact's. "" or the usage error.
std::string artifact_parallel(const rt::Artifact& a, const std::string& file, const ParallelFlags& flags,
                              ParallelPlan& parallel) {
  const std::string compiled_for = a.mesh.empty() ? "one device" : "mesh " + a.mesh.str();
  if (flags.mesh && !flags.mesh->empty() && *flags.mesh != a.mesh)
    return "--mesh " + flags.mesh->str() + ": " + file + " was compiled for " + compiled_for +
           ": run it without --mesh, or compile the model for this mesh (mlc compile MODEL.json --mesh " +
           flags.mesh->str() + ")";
  if (flags.zero && *flags.zero != a.zero)
    return "--zero " + std::to_string(*flags.zero) + ": " + file + " was compiled for ZeRO stage " +
           std::to_string(a.zero) + " on " + compiled_for + ": run it without --zero, or compile the model for "
           "this stage (mlc compile MODEL.json --mesh " + a.mesh.str() + " --zero " + std::to_string(*flags.zero) + ")";
  const bool pipeline = a.mesh.find("pp").has_value();
  if (flags.microbatches && (!pipeline || *flags.microbatches != a.pipeline.microbatches))
    return "--microbatches " + std::to_string(*flags.microbatches) + ": " + file + " was compiled for " +
           (pipeline ? std::to_string(a.pipeline.microbatches) + " micro-batches" : compiled_for + ", no pipeline") +
           ": run it without --microbatches, or compile the model with it";
  if (flags.schedule && (!pipeline || *flags.schedule != a.pipeline.schedule))
    return "--schedule " + std::string(pipeline_schedule_kind_name(*flags.schedule)) + ": " + file +
           " was compiled for " +
           (pipeline ? "schedule " + std::string(pipeline_schedule_kind_name(a.pipeline.schedule))
                     : compiled_for + ", no pipeline") +
           ": run it without --schedule, or compile the model with it";
  parallel.mesh = a.mesh;
  parallel.zero = a.zero;
  parallel.micro_batches = a.pipeline.microbatches;
  parallel.schedule = a.pipeline.schedule;
  parallel.virtual_stages = a.pipeline.virtual_stages;
  return "";
}

// A pipeline's --profile: per rank, the time of its calls by kind over the
// steps, and its bubble measured: the share of the step spent waiting in
// receives, next to `mlc plan`'s simulated bubble.
void print_pipeline_times(const std::vector<CallTimes>& ranks) {
  if (ranks.empty()) return;
  std::fprintf(stderr, "\npipeline: per rank, ms per step (%lld steps); measured bubble = recv / (busy + recv)\n",
               static_cast<long long>(ranks[0].steps));
  double idle = 0, total = 0;
  for (size_t r = 0; r < ranks.size(); ++r) {
    const CallTimes& t = ranks[r];
    const double n = static_cast<double>(std::max<int64_t>(1, t.steps));
    const double busy = t.busy_ms(), all = busy + t.recv_ms;
    idle += t.recv_ms;
    total += all;
    std::fprintf(stderr,
                 "  rank %zu  forward %8.3f  backward %8.3f  other %8.3f  | recv %8.3f  send %6.3f  all_reduce %6.3f  "
                 "| bubble %.3f\n",
                 r, t.forward_ms / n, t.backward_ms / n, t.other_ms / n, t.recv_ms / n, t.send_ms / n,
                 t.all_reduce_ms / n, all > 0 ? t.recv_ms / all : 0.0);
  }
  std::fprintf(stderr, "  all ranks: bubble %.3f\n", total > 0 ? idle / total : 0.0);
}

bool parse_int(const std::string& text, int64_t min, int64_t& out) {
  try {
    size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used != text.size() || v < min) return false;
    out = v;
    return true;
  } catch (...) {
    return false;
  }
}

Status append_metrics(const std::string& path, const nlohmann::ordered_json& line) {
  MLC_TRY(MetricsFile file, MetricsFile::append(path));
  file.write(line);
  return file.status();
}

// --profile: the tables on stderr and, for --profile=FILE, the JSON in FILE.
Status report_profiles(const std::vector<FunctionProfile>& profiles, const std::string& json_path) {
  for (const FunctionProfile& p : profiles) std::fprintf(stderr, "\n%s", profile_table(p).c_str());
  if (json_path.empty()) return {};
  const std::string text = profile_json(profiles).dump(1) + "\n";
  return rt::write_file_atomically(json_path, {text});
}

// What each rank held, measured (TrainSummary::memory), one line per rank:
//   "memory of rank 1: parameters 19.5 KiB (19968 B), optimizer state ..., train-step arena ...[, schedule buffers ...]"
// ("memory: ..." on one device; schedule buffers where the step schedule has
// any: gradient accumulation, a pipeline); `mlc plan` predicts the same figures.
void print_memory(const std::vector<RankMemory>& memory) {
  auto bytes = [](int64_t b) { return human_bytes(b) + " (" + std::to_string(b) + " B)"; };
  for (size_t r = 0; r < memory.size(); ++r) {
    const RankMemory& m = memory[r];
    const std::string who = memory.size() > 1 ? " of rank " + std::to_string(r) : "";
    std::printf("memory%s: parameters %s, optimizer state %s", who.c_str(), bytes(m.parameters).c_str(),
                bytes(m.optimizer_state).c_str());
    if (m.train_step_arena) std::printf(", train-step arena %s", bytes(m.train_step_arena).c_str());
    if (m.schedule_buffers) std::printf(", schedule buffers %s", bytes(m.schedule_buffers).c_str());
    std::printf("\n");
  }
}

// --eval's result: on stdout, and in --metrics as {"eval": {"loss", "accuracy"}}.
int report_eval(const EvalResult& result, const Args& args) {
  // Keys in alphabetical order, as this record has always been written.
  nlohmann::ordered_json eval = nlohmann::ordered_json::object();
  if (result.accuracy) eval["accuracy"] = *result.accuracy;
  eval["loss"] = result.loss;
  eval["split"] = result.training_data ? "train" : "eval";
  const std::string label = eval_label(result);
  if (result.accuracy)
    std::printf("%s: loss %.6f  accuracy %.4f (%lld/%lld)\n", label.c_str(), result.loss, *result.accuracy,
                static_cast<long long>(result.correct), static_cast<long long>(result.positions));
  else
    std::printf("%s: loss %.6f\n", label.c_str(), result.loss);
  if (args.has("metrics")) {
    Status s = append_metrics(args.get("metrics"), {{"eval", eval}});
    if (!s) return user_error(s.error().message);
  }
  return kOk;
}

int run_eval(const Program& program, const Args& args, uint64_t seed) {
  const ModelConfig& config = program.config();
  std::vector<rt::NamedTensor> params;
  if (args.get("init") == "seed") {
    params = rt::init_parameters(config.params, seed);
  } else {
    auto init = rt::read_init_parameters(config.params, args.get("init"), config.name, nullptr);
    if (!init) return user_error(init.error().message);
    params = std::move(init->params);
  }
  std::string data_path = args.get("data", config.data.file);
  if (data_path.empty())
    return user_error(config.path + ": error: no data file: give " +
                      spelled_field(config.path, "data", "file") + " or --data");
  auto data = rt::read_safetensors(data_path);
  if (!data) return user_error(data.error().message);
  auto split = rt::Split::load(*data, config.data.eval, config.inputs, "eval");
  if (!split) return user_error(split.error().message);
  int64_t batch = config.train.eval_batch_size;
  if (batch <= 0) batch = std::min<int64_t>(split->num_examples(), 1024);
  Status targets = check_class_targets(program, *split, data_path, "eval");
  if (!targets) return user_error(targets.error().message);
  auto evaluator = Evaluator::create(program, split->num_examples(), std::max<int64_t>(batch, 1));
  if (!evaluator) return user_error(evaluator.error().message);
  if (args.has("profile")) evaluator->enable_profiling();
  auto result = evaluator->run(*split, params);
  if (!result) return user_error(result.error().message);
  if (int status = report_eval(*result, args); status != kOk) return status;
  if (args.has("profile")) {
    Status s = report_profiles(evaluator->profiles(), args.get("profile"));
    if (!s) return user_error(s.error().message);
  }
  return kOk;
}
}  // namespace

int cmd_run(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  if (!parse_command_args(*find_command_doc("run"), argv, args, error))
    return usage_error(error + "\n" + usage_line(*find_command_doc("run")));
  if (args.positional.size() != 1) return usage_error(usage_line(*find_command_doc("run")));
  if (args.has("eval") && !args.has("init"))
    return usage_error("--eval evaluates given parameters: pass --init F.safetensors (what --save or a "
                       "checkpoint wrote), or --init seed for the initialization train.seed draws");
  // Every file and directory the run writes, before any work (runtime/output_path.h).
  for (const char* output : {"save", "save-best", "metrics", "dump-grads", "profile"})
    if (args.has(output) && !(std::string(output) == "profile" && args.get(output).empty()))
      if (std::string problem = output_problem(args.get(output), output); !problem.empty()) return user_error(problem);
  if (args.has("checkpoint-dir"))
    if (std::string problem = output_problem(args.get("checkpoint-dir"), "checkpoint-dir", true); !problem.empty())
      return user_error(problem);
  TrainOptions o;
  struct IntOption {
    const char* name;
    int64_t min;
    std::function<void(int64_t)> set;
  };
  const IntOption ints[] = {
      {"seed", 0, [&](int64_t v) { o.seed = static_cast<uint64_t>(v); }},
      {"epochs", 1, [&](int64_t v) { o.epochs = v; }},
      {"steps", 1, [&](int64_t v) { o.steps = v; }},
      {"checkpoint-every", 1, [&](int64_t v) { o.checkpoint_every = v; }},
      {"start-step", 0, [&](int64_t v) { o.start_step = v; }},
      {"eval-every", 0, [&](int64_t v) { o.eval_every = v; }},
      {"grad-stats-every", 0, [&](int64_t v) { o.grad_stats_every = v; }},
      {"grad-accum", 1, [&](int64_t v) { o.grad_accumulation_steps = v; }},
      {"keep-checkpoints", 1, [&](int64_t v) { o.keep_checkpoints = static_cast<int>(std::min<int64_t>(v, 1 << 20)); }},
      // Capped at 2^24 s (194 days) so that deadlines fit the clock.
      {"comm-timeout", 1, [&](int64_t v) { o.comm.timeout = std::chrono::seconds(std::min<int64_t>(v, 1 << 24)); }},
  };
  for (const IntOption& opt : ints) {
    if (!args.has(opt.name)) continue;
    int64_t v;
    if (!parse_int(args.get(opt.name), opt.min, v))
      return usage_error("--" + std::string(opt.name) + " needs an integer >= " + std::to_string(opt.min) +
                         ", got '" + args.get(opt.name) + "'");
    opt.set(v);
  }
  if (args.has("epochs") && args.has("steps")) return usage_error("give --epochs or --steps, not both");
  std::optional<Backend> backend = parse_backend(args.get("backend", "compiled"));
  if (!backend) return usage_error("--backend must be compiled or interp, got '" + args.get("backend") + "'");
  o.backend = *backend;
  if (args.has("device")) {
    auto device = parse_device(args.get("device"), "device", /*arch_allowed=*/false);
    if (!device) return usage_error(device.error().message);
    if (o.backend == Backend::interp && !device->is_cpu())
      return usage_error("--device " + device->str() + " runs compiled code; drop --backend interp");
    auto resolved = resolve_device(*device);
    if (!resolved) return user_error("error: --device " + device->str() + ": " + resolved.error().message);
    o.device = *resolved;
  }
  o.device.executor.graph = !args.has("no-graph");
  o.device.executor.allow_tf32 = args.has("allow-tf32");
  o.device.gemm_epilogues = !args.has("no-gemm-epilogues");
  if (args.has("no-gemm-epilogues") && (is_artifact_path(args.positional[0]) || o.device.is_cpu()))
    return usage_error("--no-gemm-epilogues applies to model files on --device cuda or host-gpu (an artifact keeps "
                       "the GEMMs it was compiled with)");
  if ((args.has("no-graph") || args.has("allow-tf32")) && o.device.target != rt::kCudaTarget &&
      !is_artifact_path(args.positional[0]))
    return usage_error(std::string(args.has("no-graph") ? "--no-graph" : "--allow-tf32") + " applies to --device cuda");
  o.profile = args.has("profile");
  if (o.profile && o.backend == Backend::interp)
    return usage_error("--profile times the compiled backend's instructions; drop --backend interp");
  ParallelFlags flags;
  if (!parse_parallel(args, flags, error)) return usage_error(error + "\n" + usage_line(*find_command_doc("run")));
  const std::string& file = args.positional[0];
  const bool artifact = is_artifact_path(file);
  if (args.has("plan")) {
    if (artifact) return usage_error("--plan applies to model files; an artifact runs the mesh it was compiled for");
    for (const char* given : {"mesh", "zero", "microbatches", "schedule", "virtual-stages"})
      if (args.has(given))
        return usage_error("--plan gives the mesh, ZeRO stage and pipeline: leave out --" + std::string(given));
  }
  if (artifact && args.has("backend"))
    return usage_error("--backend applies to model files; an artifact runs the code it was compiled to");
  if (artifact && args.has("device"))
    return usage_error("--device applies to model files; an artifact runs on the target it was compiled for");
  if (!artifact && args.has("verify-code"))
    return usage_error("--verify-code applies to artifacts (MODEL.mlcx); a model file is compiled now, by this mlc");
  // A model file's "parallel" section may give the mesh; an artifact's mesh is
  // the one it was compiled for.
  std::optional<ModelFile> model;
  std::shared_ptr<const rt::Artifact> compiled;
  std::shared_ptr<const void> loaded_code;  // held for the run: its executors share it
  if (artifact) {
    auto read = rt::read_artifact(file);
    if (!read) return user_error(read.error().message);
    // Before any of its code is loaded (driver/verify_code.h).
    if (args.has("verify-code")) {
      auto verified = verify_artifact_code(*read);
      if (!verified) return user_error(file + ": error: " + verified.error().message);
      std::fprintf(stderr, "verified the code of %d kernel objects against their kernel IR\n", *verified);
    }
    auto loaded = rt::load_artifact_code(*read);
    if (!loaded) return user_error(file + ": error: " + loaded.error().message);
    loaded_code = std::move(*loaded);
    compiled = std::make_shared<const rt::Artifact>(std::move(*read));
    if (std::string problem = artifact_parallel(*compiled, file, flags, o.parallel); !problem.empty())
      return usage_error(problem);
  } else {
    auto loaded = ModelFile::load(args.positional[0]);
    if (!loaded) return user_error(loaded.error().message);
    model.emplace(std::move(*loaded));
    if (args.has("plan")) {  // driver/plan_file.h
      auto planned = read_plan_file(args.get("plan"), model->config().name);
      if (!planned) return user_error(planned.error().message);
      flags = *planned;
    }
    o.parallel = make_parallel_plan(flags, model->config().parallel);
  }
  const bool on_mesh = !o.parallel.mesh.empty();
  if (args.has("comm-timeout") && !on_mesh) return usage_error("--comm-timeout applies to a --mesh run");
  // Under mpirun every process runs this command: one rank each, on a mesh of
  // as many ranks (driver/mesh_train.h).
  o.mpi = on_mesh && rt::launched_by_mpi();
  if (const int n = rt::launched_processes(); !on_mesh && n > 1)
    return usage_error(std::string(rt::mpi_launcher_name()) + " started " + std::to_string(n) +
                       " processes: give --mesh with " + std::to_string(n) + " devices (e.g. --mesh dp=" +
                       std::to_string(n) + ")");
  // The process count is the mesh's rank count (rt::mpi_world checks it again).
  if (const int n = rt::launched_processes(); o.mpi && n > 0 && n != o.parallel.mesh.num_devices())
    return usage_error(std::string(rt::mpi_launcher_name()) + " started " + std::to_string(n) + " process" +
                       (n == 1 ? "" : "es") + " but mesh " + o.parallel.mesh.str() + " has " +
                       std::to_string(o.parallel.mesh.num_devices()) + " ranks: start one process per rank (-np " +
                       std::to_string(o.parallel.mesh.num_devices()) + ")");

  // MODEL.json is compiled now; MODEL.mlcx was compiled by `mlc compile`.
  std::optional<Program> program;
  if (artifact) {
    program.emplace(Program::from_artifact(compiled, file, on_mesh, o.device.executor));
  } else {
    program.emplace(Program::from_model(*model, o.backend, {}, o.device));
  }
  // --eval on one device; on a mesh it is spread over the ranks (below).
  if (args.has("eval") && !on_mesh) return run_eval(*program, args, o.seed.value_or(program->config().train.seed));
  o.eval_only = args.has("eval");
  // Mistakes that would otherwise surface only after training.
  for (const char* needs_dir : {"checkpoint-every", "keep-checkpoints"})
    if (args.has(needs_dir) && !args.has("checkpoint-dir"))
      return usage_error("--" + std::string(needs_dir) + " needs --checkpoint-dir DIR (where the checkpoints go)");

  o.data_path = args.get("data");
  o.init_path = args.get("init") == "seed" ? "" : args.get("init");  // `seed`: train.seed's draw
  o.metrics_path = args.get("metrics");
  o.save_path = args.get("save");
  o.best_path = args.get("save-best");
  if (args.has("best-metric") && !args.has("save-best"))
    return usage_error("--best-metric goes with --save-best PATH (where the best parameters go)");
  const ModelConfig& config = model ? model->config() : program->config();
  o.best_metric = args.get("best-metric", config.classifier ? "accuracy" : "loss");
  if (o.best_metric != "loss" && o.best_metric != "accuracy")
    return usage_error("--best-metric: expected loss or accuracy, got '" + o.best_metric + "'");
  if (o.best_metric == "accuracy" && !config.classifier)
    return usage_error("--best-metric accuracy: the model is not a classifier (its loss is not cross_entropy); use loss");
  o.checkpoint_dir = args.get("checkpoint-dir");
  o.resume = args.has("resume");
  o.dump_grads_path = args.get("dump-grads");
  o.progress_bar = isatty(STDERR_FILENO);
  // Ctrl-C stops after the step with a checkpoint (driver/interrupt.h); mpirun handles SIGINT itself.
  if (!rt::launched_by_mpi() && !o.eval_only) {
    stop_on_interrupt();
    o.stop_on_interrupt = true;
    o.interrupt_dir = config.name + ".interrupted";
  }
  auto summary = !on_mesh ? train(*program, o)
                 : artifact ? train_on_mesh(*program, Program::from_artifact(compiled, file, false, o.device.executor), o)
                            : train(*model, o);
  // Under mpirun: an empty error is one that rank 0 reports.
  if (!summary) return summary.error().message.empty() ? kUserError : user_error(summary.error().message);
  if (summary->rank != 0) return kOk;
  if (o.eval_only) return report_eval(*summary->eval, args);
  if (const auto& stopped = summary->interrupted) {
    std::fprintf(stderr,
                 "interrupted (Ctrl-C) after step %lld: checkpoint of step %lld written to %s; continue with "
                 "--checkpoint-dir %s --resume\n",
                 static_cast<long long>(stopped->step), static_cast<long long>(stopped->step), stopped->dir.c_str(),
                 stopped->dir.c_str());
    return 130;  // 128 + SIGINT, as a shell reports a process Ctrl-C ended
  }
  if (summary->steps_run == 0)
    std::printf("trained 0 steps: the run was already at its last step");
  else
    std::printf("trained %lld step%s: final loss %.6f, median step %.3f ms (mean %.3f)",
                static_cast<long long>(summary->steps_run), summary->steps_run == 1 ? "" : "s", summary->final_loss,
                summary->median_step_ms, summary->mean_step_ms);
  if (summary->eval_loss) std::printf("; %s loss %.6f", eval_label(*summary->eval).c_str(), *summary->eval_loss);
  if (summary->eval_accuracy) std::printf(", accuracy %.4f", *summary->eval_accuracy);
  std::printf("\n");
  if (const auto& best = summary->best)
    std::printf("best eval %s %.6f after step %lld: written to %s\n", o.best_metric.c_str(), best->value,
                static_cast<long long>(best->step), o.best_path.c_str());
  print_memory(summary->memory);
  if (o.profile) {
    std::fflush(stdout);
    Status s = report_profiles(summary->profiles, args.get("profile"));
    if (!s) return user_error(s.error().message);
    print_pipeline_times(summary->pipeline_times);
  }
  return kOk;
}

}  // namespace mlc::cli
