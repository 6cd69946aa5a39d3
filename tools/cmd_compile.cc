// mlc compile MODEL.json|MODEL.mlc [-o MODEL.mlcx] [--target cpu] [--data F]
// [--mesh M [--zero N]]: compiles the model's training and evaluation
// functions ahead of time and writes an artifact (runtime/artifact.h) that
// `mlc run MODEL.mlcx` trains from with no frontend, pass pipeline or code
// generation.
//
// Batch sizes are static: the train step (and optimizer_init, loss_grad) for
// train.batch_size, plus the last partial batch when drop_last is false; eval
// for the eval batch and the last partial eval batch (driver/evaluate.h
// eval_batches). The data file (the model's, or --data) sizes the eval split
// and the partial batches, so it must be readable at compile time; `mlc run`
// of the artifact on data of other sizes says which batch is missing.
//
// On a mesh (--mesh, or the model file's "parallel" section; ir/parallel_plan.h
// make_parallel_plan) the functions are the sharded ones every rank runs
// (SPMD: one executable per function and batch serves all ranks), for the
// batches a mesh run asks for (driver/train.cc, driver/evaluate.cc): train_step
// and optimizer_init as above, eval for the even split's global batches, and
// the unsharded eval for batches of 1 when the eval split does not divide by
// the data ranks. loss_grad only when the model file sets
// train.grad_stats_every (gradient statistics, and --dump-grads on a mesh).
// With train.grad_accumulation_steps K > 1 (one device), also loss_grad,
// accumulate_grads and apply_update for each train batch / K.
#include <algorithm>
#include <cstdio>

#include <filesystem>

#include "compiler/gpu/kernel_source.h"
#include "frontends/form_words.h"
#include "compiler/gpu/nvrtc.h"
#include "compiler/kernel_ir.h"
#include "compiler/lower.h"
#include "driver/device.h"
#include "runtime/file_io.h"
#include "ir/printer.h"
#include "runtime/artifact.h"
#include "runtime/checksum.h"
#include "runtime/dataset.h"
#include "runtime/safetensors.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "driver/evaluate.h"
#include "driver/program.h"
#include "passes/pipeline_stage_sharding.h"
#include "driver/rank.h"
#include "driver/train.h"

namespace mlc::cli {

namespace {

std::string default_output(const std::string& model) {
  std::string base = model;
  if (base.size() > 5 && base.compare(base.size() - 5, 5, ".json") == 0) base.resize(base.size() - 5);
  else if (base.size() > 4 && base.compare(base.size() - 4, 4, ".mlc") == 0) base.resize(base.size() - 4);
  return base + ".mlcx";
}

}  // namespace

namespace {

// Every distinct kernel of `kernels` as a self-contained CUDA C file,
// DIR/<symbol>.cu (nvcc compiles it as it is); files already there (another
// function's same kernel) are left. Returns how many were written.
Expected<int> write_kernel_sources(const std::vector<kir::Kernel>& kernels, const std::string& dir) {
  int n = 0;
  for (const kir::Kernel& k : kernels) {
    const std::string symbol = kir::kernel_symbol(k);
    const std::string path = dir + "/" + symbol + ".cu";
    if (std::filesystem::exists(path)) continue;
    const std::string text = gpu::kernel_source(k, gpu::schedule_kernel(k), symbol, gpu::Dialect::cuda);
    MLC_CHECK_OK(rt::write_file_atomically(path, {text}));
    ++n;
  }
  return n;
}

}  // namespace

int cmd_compile(const std::vector<std::string>& argv) {
  // `-o` is the usual spelling; parse_args takes long options only.
  std::vector<std::string> args_in;
  for (size_t i = 0; i < argv.size(); ++i) args_in.push_back(argv[i] == "-o" ? "--output" : argv[i]);
  Args args;
  std::string error;
  if (!parse_command_args(*find_command_doc("compile"), args_in, args, error))
    return usage_error(error + "\n" + usage_line(*find_command_doc("compile")));
  ParallelFlags flags;
  if (!parse_parallel(args, flags, error)) return usage_error(error + "\n" + usage_line(*find_command_doc("compile")));
  if (args.positional.size() != 1) return usage_error(usage_line(*find_command_doc("compile")));
  auto device = parse_device(args.get("target", "cpu"), "target", /*arch_allowed=*/true);
  if (!device) return usage_error(device.error().message + "\n" + usage_line(*find_command_doc("compile")));
  if (device->target == rt::kCudaTarget && device->arch.empty()) {
    auto resolved = resolve_device(*device);
    if (!resolved)
      return user_error("error: --target cuda takes this machine's GPU's architecture: " + resolved.error().message +
                        "; name one to compile without a GPU: --target cuda:sm_90 (H100, H200) or cuda:sm_80 (A100)");
    device = std::move(resolved);
  }
  if (device->target == rt::kCudaTarget) {
    // Before any work: NVRTC present, and the arch one it compiles for.
    if (Status arch = gpu::check_nvrtc_arch(device->arch); !arch)
      return user_error("error: --target cuda:" + device->arch + ": " + arch.error().message);
  }
  const std::string source_dir = args.get("emit-source");
  if (args.has("emit-source") && device->is_cpu())
    return usage_error("--emit-source writes GPU kernels: give --target host-gpu or cuda:sm_XX");
  const std::string output = args.get("output", default_output(args.positional[0]));
  if (output.size() < 5 || output.compare(output.size() - 5, 5, ".mlcx") != 0)
    return usage_error("-o " + output + ": an artifact's name ends in .mlcx");
  if (std::string problem = output_problem(output, "output"); !problem.empty()) return user_error(problem);
  if (args.has("emit-source"))
    if (std::string problem = output_problem(source_dir, "emit-source", true); !problem.empty())
      return user_error(problem);

  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  const ParallelPlan parallel = make_parallel_plan(flags, model->config().parallel);
  const Mesh& mesh = parallel.mesh;
  ModelConfig config = model->config();
  const TrainConfig& tc = config.train;
  if (!tc.phases.empty())
    return user_error(config.path + ": error: a model trained in phases (train.phases) is run from its model file; "
                      "mlc compile does not write phases' functions into an artifact yet");
  if (tc.optimizer.type.empty())
    return user_error(config.path + ": error: the model file has no " +
                      spelled_field(config.path, "train", "optimizer"));
  // The driver's own loop features: their run-time settings are not in an artifact's manifest.
  const char* loop_feature = tc.optimizer.type == "lbfgs"                ? "optimizer \"lbfgs\""
                             : tc.optimizer.schedule.type == "plateau" ? "schedule \"plateau\""
                             : tc.accumulate > 1                       ? "train.accumulate"
                                                                       : nullptr;
  if (loop_feature)
    return user_error(config.path + ": error: " + loop_feature + " is not supported in an artifact yet; train "
                      "the model file with mlc run");
  if (args.has("data")) config.data.file = args.get("data");
  if (config.data.file.empty())
    return user_error(config.path + ": error: no data file to size the batches: give " +
                      spelled_field(config.path, "data", "file") + " or --data");
  auto data = rt::read_safetensors(config.data.file);
  if (!data) return user_error(data.error().message);
  auto train_split = rt::Split::load(*data, config.data.train, config.inputs, "train");
  if (!train_split) return user_error(train_split.error().message);
  auto eval_split = rt::Split::load(*data, config.data.eval, config.inputs, "eval");
  if (!eval_split) return user_error(eval_split.error().message);

  // The batch sizes a run on this data uses (driver/train.cc, driver/evaluate.cc).
  const int64_t n = train_split->num_examples(), e = eval_split->num_examples(), w = data_parallel_size(mesh);
  if (Status fits = check_data_ranks(config, n, w, mesh.str(), config.data.file); !fits)
    return user_error(fits.error().message);
  std::vector<int64_t> train_batches = {tc.batch_size};
  if (!tc.drop_last && n % tc.batch_size) train_batches.push_back(n % tc.batch_size);
  const EvalBatches eval = eval_batches(e, tc.eval_batch_size > 0 ? tc.eval_batch_size : std::min<int64_t>(e, 1024), w);

  // On a mesh: the sharded functions, and the unsharded @eval of the examples
  // beyond the even split.
  const Program program = Program::from_model(*model, Backend::compiled, parallel);
  const Program whole = Program::from_model(*model, Backend::compiled);
  rt::Artifact artifact;
  artifact.mesh = mesh;
  artifact.zero = parallel.zero;
  artifact.pipeline = {parallel.pipeline_micro_batches(), parallel.schedule, parallel.virtual_stages};
  artifact.config = config;
  auto classes = program.num_classes();
  if (!classes) return user_error(classes.error().message);
  artifact.num_classes = *classes;
  static const std::optional<KernelCache> cache = KernelCache::from_environment();
  LowerOptions options;
  options.cache = cache ? &*cache : nullptr;
  options.target = device->target;
  options.arch = device->arch;
  if (!source_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(source_dir, ec);
    if (ec) return user_error(source_dir + ": error: cannot create the directory: " + ec.message());
  }
  int sources_written = 0;
  std::shared_ptr<const rt::CodeModule> code;  // the first function's code: its target is the artifact's
  auto add = [&](const std::string& name, int64_t batch, bool sharded) -> Status {
    // A pipeline's functions are all its Program's: the stages' are sharded
    // where the mesh has axes beside pp (passes/pipeline_stage_sharding.h),
    // the others are the model's on one device.
    MLC_TRY(const Function* f, (sharded || mesh.empty() || parallel.pipelined() ? program : whole).ir(name, batch));
    if (name == "train_step" && batch == tc.batch_size && (sharded || mesh.empty() || parallel.pipelined()))
      artifact.module_hash = rt::hex64(rt::fnv1a64(print_function(*f)));
    MLC_TRY(LoweredFunction lowered, lower_function(*f, options));
    if (!source_dir.empty()) {
      MLC_TRY(int n, write_kernel_sources(lowered.kernels, source_dir));
      sources_written += n;
    }
    if (!code && lowered.executable->code) code = lowered.executable->code;
    const bool stored_sharded = parallel.pipelined() ? sharded && shards_pipeline_stages(parallel) : sharded && !mesh.empty();
    artifact.functions.push_back({name, batch, lowered.executable, stored_sharded});
    return {};
  };
  std::vector<std::tuple<std::string, int64_t, bool>> functions;  // name, batch, sharded
  const int64_t k = tc.grad_accumulation_steps;
  if (parallel.pipelined()) {
    // Every stage's functions (driver/pipeline_step_schedule.h), and the
    // model's @train_step (the optimizer state's layout) and @optimizer_init.
    const int stages = parallel.pipeline_stages(), m = parallel.pipeline_micro_batches();
    auto stage = [](int s, const char* name) { return "stage" + std::to_string(s) + "." + name; };
    for (int64_t b : train_batches) {
      if (b % (w * m)) continue;  // a run refuses a batch its data ranks' micro-batches do not divide
      const int64_t micro = b / m;  // the stages' functions take global micro-batches, sharded like the mesh
      functions.emplace_back("train_step", b, false);
      functions.emplace_back("optimizer_init", b, false);
      for (int s = 0; s < stages; ++s) {
        if (s + 1 < stages) functions.emplace_back(stage(s, "forward"), micro, true);
        for (const char* name : {"loss_grad", "accumulate_grads", "apply_update"})
          functions.emplace_back(stage(s, name), micro, true);
        if (tc.optimizer.clip_grad_norm > 0) functions.emplace_back(stage(s, "grad_norms"), micro, true);
        if (parallel.schedule == PipelineScheduleKind::zb1p)
          for (const char* name : {"loss_grad_input", "loss_grad_weight"})
            functions.emplace_back(stage(s, name), micro, true);
      }
    }
    // Every replica evaluates the whole split (driver/evaluate.h).
    const EvalBatches whole_split = eval_batches(e, tc.eval_batch_size > 0 ? tc.eval_batch_size : std::min<int64_t>(e, 1024), 1);
    for (int64_t b : {whole_split.full, whole_split.tail})
      if (b)
        for (int s = 0; s < stages; ++s) functions.emplace_back(stage(s, s + 1 < stages ? "eval_forward" : "eval"), b, true);
    train_batches.clear();
  }
  for (int64_t b : train_batches) {
    for (const char* name : {"train_step", "optimizer_init", "loss_grad"})
      if (mesh.empty() || std::string_view(name) != "loss_grad" || tc.grad_stats_every > 0)
        functions.emplace_back(name, b, true);
    // Gradient accumulation's schedule (driver/step_schedule.h), one device only.
    if (k > 1 && mesh.empty() && b % k == 0)
      for (const char* name : {"loss_grad", "accumulate_grads", "apply_update"})
        if (std::find(functions.begin(), functions.end(), std::tuple{std::string(name), b / k, true}) == functions.end())
          functions.emplace_back(name, b / k, true);
  }
  for (int64_t b : {eval.full, eval.tail})
    if (b && !parallel.pipelined()) functions.emplace_back("eval", b, true);
  if (eval.remainder) functions.emplace_back("eval", 1, false);
  for (const auto& [name, batch, sharded] : functions) {
    Status s = add(name, batch, sharded);
    if (!s) return user_error(s.error().message);
  }
  if (!source_dir.empty()) std::printf("wrote %d kernel sources (CUDA C) to %s\n", sources_written, source_dir.c_str());
  Status written = rt::write_artifact(output, artifact);
  if (!written) return user_error(written.error().message);
  size_t objects = 0;
  for (const rt::CompiledFunction& f : artifact.functions)
    if (f.executable->code) objects += f.executable->code->objects.size();
  const std::string on_mesh =
      mesh.empty() ? "" : " on mesh " + mesh.str() + (parallel.zero ? ", ZeRO " + std::to_string(parallel.zero) : "");
  std::printf("wrote %s: %zu functions (train batch %lld, eval batch %lld)%s, target %s\n", output.c_str(),
              artifact.functions.size(), static_cast<long long>(tc.batch_size), static_cast<long long>(eval.full),
              on_mesh.c_str(), code ? (code->target + " " + code->arch).c_str() : std::string(rt::kCpuTarget).c_str());
  return kOk;
}

}  // namespace mlc::cli
