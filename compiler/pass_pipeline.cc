#include "compiler/pass_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string_view>

#include "ir/verifier.h"
#include "passes/autocast.h"
#include "passes/optimizer.h"

namespace mlc {

bool verify_each_pass_by_default() {
#ifndef NDEBUG
  return true;
#else
  static const bool on = [] {
    const char* v = std::getenv("MLC_VERIFY_PASSES");
    return v && std::string_view(v) == "1";
  }();
  return on;
#endif
}

const std::vector<std::string>& pass_pipeline_names() {
  static const std::vector<std::string> passes = {"autocast", "autodiff", "optimizer", "decompose", "canonicalize",
                                                     "sharding"};
  return passes;
}

Status run_pass_pipeline_stage(Pass& pass, Module& module, const PassPipelineOptions& options) {
  const std::string name(pass.name());
  auto start = std::chrono::steady_clock::now();
  auto changed = pass.run(module);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!changed) return changed.take_error();
  if (options.timings) options.timings->push_back({name, ms});
  if (options.verify_each) {
    Status valid = verify_module(module);
    if (!valid)
      return make_error("mlc internal error: the IR after pass '" + name + "' does not verify: " +
                        valid.error().message);
  }
  if (options.after_each) options.after_each(name, module);
  return {};
}

Status run_pass_pipeline(Module& module, const PassPipelineOptions& options, const std::string& last) {
  const auto& all = pass_pipeline_names();
  auto end = all.end();
  if (!last.empty()) {
    auto it = std::find(all.begin(), all.end(), last);
    if (it == all.end()) {
      std::string names;
      for (const auto& n : all) names += (names.empty() ? "" : ", ") + n;
      return make_error("error: no pass '" + last + "' in the pipeline (" + names + ")");
    }
    end = it + 1;
  }
  if (Status plan = options.parallel.validate(); !plan) return make_error("error: " + plan.error().message);
  if (options.parallel.pipelined())
    return make_error("error: parallel plan: mesh " + options.parallel.mesh.str() +
                      ": the pass pipeline partitions one program, and a pipeline's stages are programs of their "
                      "own (driver/program.h builds them for mlc run and mlc compile); mlc ir does not take a pp axis yet");
  for (auto it = all.begin(); it != end; ++it) {
    std::unique_ptr<Pass> pass;
    if (*it == "autocast") {
      if (!options.mixed_precision.enabled()) continue;
      pass = std::make_unique<AutocastPass>(options.mixed_precision);
    } else if (*it == "optimizer") {
      if (!options.optimizer) continue;
      pass = std::make_unique<OptimizerPass>(*options.optimizer, options.mixed_precision.loss_scale,
                                             options.update_functions);
    } else if (*it == "sharding") {
      if (options.parallel.mesh.empty()) continue;
      module.set_mesh(options.parallel.mesh);
      ShardingPass sharding(options.parallel.zero, options.parallel.tensor_parallel);
      MLC_CHECK_OK(run_pass_pipeline_stage(sharding, module, options));
      if (options.ledger) *options.ledger = sharding.ledger();
      continue;
    } else {
      pass = create_pass(*it);
    }
    MLC_CHECK_OK(run_pass_pipeline_stage(*pass, module, options));
  }
  return {};
}

}  // namespace mlc
