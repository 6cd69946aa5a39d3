// mlc ir MODEL.json [--after PASS|all|fusion|lower] [--batch N] [--phase NAME] [--timings]
//        [--emit mlir] [--mesh dp=2,tp=2 [--zero N]]:
// builds the model's IR and prints it on stdout, after the pipeline up to
// PASS, after fusion (--after fusion: the whole pipeline, then each loop
// kernel as a fusion op with its body, compiler/outline_fusions.h), after
// lowering (--after lower: every function's executable, fused kernels with
// their bodies, compiler/lower.h), or with --after=all every stage (fusion
// last), each after a line
// "// ---- after STAGE" ("frontend" first; each stage is a module that
// `mlc opt` reads). --timings prints the time of each pass that ran on
// stderr. --emit mlir prints the module as upstream MLIR instead
// (compiler/emit_mlir.h), after the whole pipeline unless --after PASS says
// otherwise. With --mesh the pipeline ends with the sharding stage
// (passes/sharding.h): @train_step, @eval and @loss_grad become each device's
// program, with placements and collectives (`--after sharding` stops there).
// --phase NAME: the functions of one phase of a model trained in phases
// (ModelFile::build_phase), through the pipeline with the phase's optimizer.
// Diagnostics go to stderr.
#include <cstdio>
#include <vector>

#include "compiler/emit_mlir.h"
#include "driver/steps_per_epoch.h"
#include "compiler/lower.h"
#include "compiler/outline_fusions.h"
#include "compiler/pass_pipeline.h"
#include "driver/device.h"
#include "frontends/model_file.h"
#include "ir/printer.h"
#include "tools/cli.h"
#include "tools/help.h"

namespace mlc::cli {

int cmd_ir(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  if (!parse_command_args(*find_command_doc("ir"), argv, args, error)) return usage_error(error);
  if (args.positional.size() != 1)
    return usage_error(usage_line(*find_command_doc("ir")));
  ParallelFlags flags;
  if (!parse_parallel(args, flags, error)) return usage_error(error);
  const bool mlir = args.has("emit");
  if (mlir && args.get("emit") != "mlir")
    return usage_error("--emit takes 'mlir', got '" + args.get("emit") + "'");
  if (mlir && args.get("after") == "all")
    return usage_error("--emit mlir prints one module, so it takes --after PASS, not --after all");
  if (args.has("timings") && !args.has("after") && !mlir)
    return usage_error("--timings times the passes, so it needs --after PASS|all");
  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  const ParallelPlan parallel = make_parallel_plan(flags, model->config().parallel);
  int64_t batch = model->config().trial_batch();
  if (args.has("batch")) {
    try {
      batch = std::stoll(args.get("batch"));
    } catch (...) {
      batch = 0;
    }
    if (batch < 1) return usage_error("--batch needs a positive integer, got '" + args.get("batch") + "'");
  }
  // --phase: one phase of a model trained in phases, with its optimizer.
  const std::vector<PhaseConfig>& phases = model->config().train.phases;
  const PhaseConfig* phase = nullptr;
  if (args.has("phase")) {
    std::string names;
    for (const PhaseConfig& p : phases) {
      if (p.name == args.get("phase")) phase = &p;
      names += (names.empty() ? "" : ", ") + p.name;
    }
    if (!phase)
      return usage_error(phases.empty() ? "--phase: " + model->config().path + " does not train in phases"
                                        : "--phase: no phase '" + args.get("phase") + "' (phases: " + names + ")");
  }
  auto module = phase ? model->build_phase(batch, static_cast<size_t>(phase - phases.data())) : model->build(batch);
  if (!module) return user_error(module.error().message);
  const bool all = args.get("after") == "all";
  // --after lower: the whole pipeline, then every function lowered to its
  // executable (compiler/lower.h), printed by print_lowered.
  const bool lower = args.get("after") == "lower";
  const bool fusion = args.get("after") == "fusion";
  if (lower && mlir) return usage_error("--after lower prints executables, not a module: drop --emit mlir");
  Device device;
  if (args.has("target")) {
    if (!lower) return usage_error("--target applies to --after lower");
    auto d = parse_device(args.get("target"), "target", /*arch_allowed=*/true);
    if (!d) return usage_error(d.error().message);
    device = *d;
  }
  if (all) std::printf("// ---- after frontend\n%s", print_module(*module).c_str());
  std::vector<PassTiming> timings;
  // A mesh is applied by the last stage of the pipeline: without --after, stop there.
  if (!parallel.mesh.empty() && !args.has("after")) args.options.push_back({"after", "sharding"});
  if (args.has("after") || mlir) {
    PassPipelineOptions options;
    if (!model->config().train.optimizer.type.empty()) options.optimizer = model->config().train.optimizer;
    if (phase) options.optimizer = phase->optimizer;
    // A schedule stepping per epoch counts the training data's steps.
    if (options.optimizer && options.optimizer->steps_per_epoch == 0)
      if (auto steps = data_steps_per_epoch(model->config())) options.optimizer->steps_per_epoch = *steps;
    options.mixed_precision = model->config().train.mixed_precision;
    options.parallel = parallel;
    if (all)
      options.after_each = [](const std::string& pass, const Module& m) {
        std::printf("// ---- after %s\n%s", pass.c_str(), print_module(m).c_str());
      };
    if (args.has("timings")) options.timings = &timings;
    Status s = run_pass_pipeline(*module, options, all || lower || fusion ? "" : args.get("after"));
    if (!s) return user_error(s.error().message);
  }
  if (fusion || all) {
    for (const auto& f : module->functions) outline_fusions(*f);
    if (all) std::printf("// ---- after fusion\n%s", print_module(*module).c_str());
  }
  if (mlir) {
    auto text = emit_mlir(*module);
    if (!text) return user_error(text.error().message);
    std::fputs(text->c_str(), stdout);
  } else if (lower) {
    LowerOptions options;
    options.compile_kernels = false;
    options.target = device.target;
    options.arch = device.arch;
    for (const auto& f : module->functions) {
      auto lowered = lower_function(*f, options);
      if (!lowered) return user_error(lowered.error().message);
      std::fputs(print_lowered(*lowered).c_str(), stdout);
    }
  } else if (!all) {
    std::fputs(print_module(*module).c_str(), stdout);
  }
  if (args.has("timings")) {
    double total = 0;
    std::fprintf(stderr, "pass times (ms):\n");
    for (const PassTiming& t : timings) {
      std::fprintf(stderr, "  %-14s %10.3f\n", t.pass.c_str(), t.ms);
      total += t.ms;
    }
    std::fprintf(stderr, "  %-14s %10.3f\n", "total", total);
  }
  return kOk;
}

}  // namespace mlc::cli
