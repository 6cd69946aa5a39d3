// mlc plan MODEL.json [--format text|json] [--mesh dp=2,pp=2,... [--zero N]]
// [--microbatches N] [--schedule S]: the
// accounting of one training step on one device (with a mesh: on each device,
// plus placements, communication and the collective ledger, driver/plan_parallel.h): parameter count and bytes of parameters, gradients, optimizer
// state and activations kept for backward, and FLOPs per step, exact from the
// op table's costs next to the 6·params·tokens approximation. With a mesh
// every byte and FLOP figure is one device's (the parameter count is the
// model's), and the arena is the one each rank of `mlc run --mesh` allocates
// (it prints what it measured: "memory of rank R: ...").
//
// A pipeline (a pp axis in --mesh, or the model file's parallel.pipeline) is
// planned, not run: driver/plan_pipeline.h prints its stages, schedule and
// collective ledger after everything else, which is for the model without
// the pipeline (the pp axis taken out of the mesh). --format svg prints only
// the pipeline's schedule as a Gantt chart (driver/pipeline_gantt.h).
//
// Activations kept for backward: results of forward ops (the ops the loss
// depends on in @loss_grad) that a backward op reads.
//
// The compiled train step (compiler/lower.h): instructions by kind, kernels,
// and its memory plan: the arena the runtime allocates, the liveness lower
// bound (most bytes live at one instruction), fragmentation (arena / bound
// - 1) and the largest buffers live at the peak. Parameters, optimizer state
// and inputs are the caller's tensors, outside the arena; updated parameters
// and state are written into them in place.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "compiler/lower.h"
#include "compiler/pass_pipeline.h"
#include "frontends/model_file.h"
#include "ir/op_table.h"
#include "ir/pipeline_stages.h"
#include "tools/cli.h"
#include "tools/help.h"
#include "driver/plan_cost.h"
#include "driver/plan_parallel.h"
#include "driver/pipeline_gantt.h"
#include "driver/plan_pipeline.h"
#include "driver/rank.h"
#include "driver/train.h"

namespace mlc::cli {

namespace {

struct Plan {
  int64_t params = 0, trainable = 0;
  int64_t param_bytes = 0, grad_bytes = 0, state_bytes = 0, activation_bytes = 0, activations = 0;
  int64_t step_flops = 0, forward_flops = 0, tokens = 0;
  std::map<std::string, int64_t> flops_by_op;
};

Plan make_plan(const ModelConfig& config, const Module& m, int64_t batch) {
  Plan p;
  for (const ParamInfo& info : config.params) {
    if (!info.buffer) p.params += info.type.num_elements();  // like torch: buffers are not parameters
    p.param_bytes += info.type.num_bytes();
    if (info.trainable) {
      p.trainable += info.type.num_elements();
      p.grad_bytes += info.type.num_bytes();
    }
  }
  const Function* step = m.find("train_step");
  for (size_t i = 0; step && i < step->args.size(); ++i)
    if (step->arg_kinds[i] == ArgKind::state) p.state_bytes += step->args[i]->type.num_bytes();
  for (const auto& op : step->ops) {
    Cost c = op_cost(*op);
    p.step_flops += c.flops;
    p.flops_by_op[std::string(op_name(op->code))] += c.flops;
  }
  const Function* grad = m.find("loss_grad");
  std::unordered_set<const Op*> fwd = loss_forward_ops(*grad);
  std::unordered_set<const Value*> kept;
  for (const auto& op : grad->ops)
    if (!fwd.count(op.get()))
      for (const Value* v : op->operands)
        if (v->producer && fwd.count(v->producer)) kept.insert(v);
  for (const Value* v : kept) p.activation_bytes += v->type.num_bytes();
  p.activations = static_cast<int64_t>(kept.size());
  for (const Op* op : fwd) p.forward_flops += op_cost(*op).flops;
  if (config.loss_targets.empty()) p.tokens = batch;  // a loss the forward computes: its examples
  for (const InputInfo& in : config.inputs)
    if (in.name == config.loss_targets) {
      p.tokens = batch;
      for (size_t d = 0; d < in.shape.size(); ++d)
        if (!in.batched || static_cast<int>(d) != in.batch_dim) p.tokens *= in.shape[d];
    }
  return p;
}

// `mlc plan --format svg`: the pipeline's Gantt chart (driver/pipeline_gantt.h) on stdout.
int print_pipeline_gantt(const Args& args, const ModelFile& model, const PipelineFlags& flags) {
  std::optional<double> gflops;
  std::string error;
  if (!parse_gflops(args, gflops, error)) return usage_error(error);
  auto svg = pipeline_gantt_svg(model, flags, gflops);
  if (!svg) return user_error(svg.error().message);
  std::fputs(svg->c_str(), stdout);
  return kOk;
}

}  // namespace

int cmd_plan(const std::vector<std::string>& argv) {
  Args args;
  std::string error;
  std::vector<std::string> args_in;
  for (const std::string& a : argv) args_in.push_back(a == "-o" ? "--output" : a);
  if (!parse_command_args(*find_command_doc("plan"), args_in, args, error)) return usage_error(error);
  std::string format = args.get("format", "text");
  const bool svg = format == "svg";
  if (args.positional.size() != 1 || (format != "text" && format != "json" && !svg))
    return usage_error(usage_line(*find_command_doc("plan")));
  if (args.has("search")) {
    if (svg) return usage_error("--format svg draws one pipeline's schedule; --search prints text or json");
    return run_plan_search(args);
  }
  for (const char* search_flag : {"devices", "memory-cap", "runnable-only", "gflops", "top", "output"})
    if (args.has(search_flag) && !(svg && std::string(search_flag) == "gflops"))
      return usage_error("--" + std::string(search_flag) + " goes with --search");
  ParallelFlags flags;
  PipelineFlags pipeline_flags;
  if (!parse_parallel(args, flags, error, &pipeline_flags.ranks)) return usage_error(error);
  pipeline_flags.microbatches = flags.microbatches.value_or(0);
  pipeline_flags.schedule = flags.schedule;
  pipeline_flags.virtual_stages = flags.virtual_stages.value_or(0);
  if (svg && flags.mesh && pipeline_flags.ranks == 0)
    return usage_error("--format svg draws a pipeline's schedule, and mesh " + flags.mesh->str() +
                       " has no pp axis: give one, e.g. --mesh pp=4 or --mesh dp=2,pp=2");
  auto model = ModelFile::load(args.positional[0]);
  if (!model) return user_error(model.error().message);
  const ModelConfig& config = model->config();
  ParallelPlan parallel = make_parallel_plan(flags, config.parallel);
  for (const MeshAxis& a : parallel.mesh.axes)
    if (a.name != "pp") pipeline_flags.beside.axes.push_back(a);
  pipeline_flags.zero = parallel.zero;
  pipeline_flags.sequence_parallel = parallel.tensor_parallel.sequence_parallel;
  if (svg) return print_pipeline_gantt(args, *model, pipeline_flags);
  auto pipeline = pipeline_report(*model, pipeline_flags);
  if (!pipeline) return user_error(pipeline.error().message);
  if (!config.train.phases.empty())
    return user_error(config.path + ": error: mlc plan: a model trained in phases (train.phases) runs on one device; "
                      "there is no parallel plan to show");
  if (config.train.optimizer.type.empty())
    return user_error(config.path + ": error: mlc plan needs a \"train\" section with an optimizer");
  const int64_t batch = config.train.batch_size;
  if (!parallel.mesh.empty())
    if (Status fits = check_global_batch(config, data_parallel_size(parallel.mesh), parallel.mesh.str()); !fits)
      return user_error(fits.error().message);
  auto module = model->build(batch);
  if (!module) return user_error(module.error().message);
  PassPipelineOptions options;
  options.optimizer = config.train.optimizer;
  options.mixed_precision = config.train.mixed_precision;
  options.parallel = parallel;
  std::map<std::string, std::vector<LedgerEntry>> ledger;
  options.ledger = &ledger;
  Status s = run_pass_pipeline(*module, options);
  if (!s) return user_error(s.error().message);
  Plan p = make_plan(config, *module, batch);
  auto lowered = lower_for_plan(*module->find("train_step"));
  if (!lowered) return user_error(lowered.error().message);
  const MemoryPlan& mp = lowered->plan;
  std::map<std::string, int64_t> instructions;
  for (const rt::Instruction& ins : lowered->executable->instructions)
    ++instructions[std::string(rt::instr_kind_name(ins.kind))];
  int64_t donated = 0;
  for (const rt::ResultSpec& r : lowered->executable->results) donated += r.updates >= 0;
  nlohmann::ordered_json peak = nlohmann::ordered_json::array();
  for (size_t i = 0; i < mp.live_at_peak.size() && i < 8; ++i) {
    const PlannedBuffer& b = lowered->buffers[mp.live_at_peak[i]];
    peak.push_back({{"bytes", b.bytes}, {"first", b.first}, {"last", b.last}});
  }
  const double approx = 6.0 * static_cast<double>(p.trainable) * static_cast<double>(p.tokens);
  std::optional<ParallelReport> par;
  if (!parallel.mesh.empty()) {
    par = parallel_report(*module->find("train_step"), ledger["train_step"], parallel.mesh, parallel.zero,
                          mp.arena_bytes);
    // One device's parts: @train_step's arguments are already local.
    p.param_bytes = par->param_bytes;
    p.grad_bytes = par->grad_bytes;
  }

  if (format == "json") {
    nlohmann::ordered_json j = {
        {"model", config.name}, {"batch", batch}, {"devices", parallel.mesh.num_devices()},
        {"parameters", p.params}, {"trainable_parameters", p.trainable},
        {"bytes", {{"parameters", p.param_bytes}, {"gradients", p.grad_bytes},
                   {"optimizer_state", p.state_bytes}, {"activations_for_backward", p.activation_bytes}}},
        {"flops_per_step", {{"exact", p.step_flops}, {"forward", p.forward_flops},
                            {"six_params_tokens", approx}, {"tokens", p.tokens}}},
        {"flops_by_op", p.flops_by_op},
        {"compiled", {{"ops", lowered->num_ops}, {"instructions", instructions},
                      {"kernels", lowered->kernels.size()}, {"results_updating_arguments", donated},
                      {"arena_bytes", mp.arena_bytes}, {"liveness_lower_bound", mp.lower_bound},
                      {"fragmentation", mp.fragmentation()}, {"peak_instruction", mp.peak_instruction},
                      {"live_at_peak", peak}}}};
    if (par) j["parallel"] = par->json;
    if (*pipeline) j["pipeline"] = (*pipeline)->json;
    std::printf("%s\n", j.dump(1).c_str());
    return kOk;
  }
  const std::string devices = parallel.mesh.empty() ? "1 device" : "per device of mesh " + parallel.mesh.str();
  std::printf("model %s: batch %lld, %s (%s)\n", config.name.c_str(), static_cast<long long>(batch),
              devices.c_str(), config.train.optimizer.type.c_str());
  std::printf("  parameters          %lld (%lld trainable)\n", static_cast<long long>(p.params),
              static_cast<long long>(p.trainable));
  std::printf("  memory\n");
  std::printf("    parameters        %s\n", human_bytes(p.param_bytes).c_str());
  std::printf("    gradients         %s\n", human_bytes(p.grad_bytes).c_str());
  std::printf("    optimizer state   %s\n", human_bytes(p.state_bytes).c_str());
  std::printf("    activations       %s kept for backward (%lld tensors)\n",
              human_bytes(p.activation_bytes).c_str(), static_cast<long long>(p.activations));
  std::printf("  FLOPs per step      %.4g exact (forward %.4g); 6*params*tokens = %.4g (%lld tokens)\n",
              static_cast<double>(p.step_flops), static_cast<double>(p.forward_flops), approx,
              static_cast<long long>(p.tokens));
  std::printf("  by op:");
  for (const auto& [name, flops] : p.flops_by_op)
    if (flops > 0) std::printf(" %s %.3g", name.c_str(), static_cast<double>(flops));
  std::printf("\n");
  std::printf("  compiled step       %d ops -> %zu instructions (", lowered->num_ops,
              lowered->executable->instructions.size());
  bool first = true;
  for (const auto& [kind, n] : instructions) {
    std::printf("%s%lld %s", first ? "" : ", ", static_cast<long long>(n), kind.c_str());
    first = false;
  }
  std::printf("); %lld results updated in place or copied back\n", static_cast<long long>(donated));
  std::printf("    arena             %s (%lld bytes); liveness lower bound %s; fragmentation %.1f%%\n",
              human_bytes(mp.arena_bytes).c_str(), static_cast<long long>(mp.arena_bytes),
              human_bytes(mp.lower_bound).c_str(), 100 * mp.fragmentation());
  std::printf("    live at the peak  (instruction %d):", mp.peak_instruction);
  for (size_t i = 0; i < mp.live_at_peak.size() && i < 8; ++i)
    std::printf(" %s", human_bytes(lowered->buffers[mp.live_at_peak[i]].bytes).c_str());
  if (mp.live_at_peak.size() > 8) std::printf(" ... (%zu buffers)", mp.live_at_peak.size());
  std::printf("\n");
  if (par) std::fputs(par->text.c_str(), stdout);
  if (*pipeline) std::fputs((*pipeline)->text.c_str(), stdout);
  return kOk;
}

}  // namespace mlc::cli
