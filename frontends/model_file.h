// A model file (docs/model-format.md): JSON or the model language
// (docs/model-language.md) in, ModelConfig + IR out.
//
// Contracts:
//  - load reads a regular file (or "-", standard input) of at most
//    kMaxModelFileBytes. load/parse validate the whole file, within the work
//    budgets of docs/limits.md, including a trial build of the IR at
//    config().trial_batch(), so that every mistake a model file can hold is
//    reported by load as "FILE:LINE:COL: error: WHAT" (the path as given). The
//    only exceptions: data tensors missing from the data file (checked by the
//    runtime) and sizes that overflow only for a larger `batch` passed to build.
//  - config().params lists PyTorch state_dict names in registration order.
//  - build(batch) binds the "batch" symbol and returns
//      module @<name> {
//        func @loss(<inputs in file order> {input}, <params in order> {param}
//                   (buffers {buffer}) [, %step {step}]) -> (f32[] [, buffer'...])
//        func @eval(<inputs, params and buffers>) -> (f32[] summed loss, i64[] correct argmax predictions)
//      }
//    The loss is the "loss" section's (frontends/losses.h) of the model's output
//    and targets; with "type": "output" it is the output itself (a 0-d float
//    tensor), and @eval returns it times the batch (the eval's mean weighs
//    each batch by its examples).
//    @loss is the forward in training mode: BatchNorm's batch statistics, whose
//    running-statistics updates are results updating their {buffer}
//    arguments (state_dict order), and Dropout, whose masks read the {step}
//    argument (added only when a dropout draws). @eval is the forward in
//    evaluation mode (running statistics, no dropout) and updates nothing.
//    (@eval returns only the summed loss for losses other than cross_entropy
//    and nll_loss.) With custom ops, the
//    functions above call them (`call`, ir/ops.def) and the module also holds
//    each custom op's @F and @F_vjp per argument types (frontends/custom_ops.h);
//    inline_calls (ir/inline_calls.h) gives functions without calls, after
//    autodiff. Every op carries the Loc of
//    the layer object, forward statement or loss object it comes from.
//  - Nothing here throws, aborts or recurses deeper than the JSON nesting cap;
//    running out of memory is an Error naming the file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "frontends/model_limits.h"
#include "ir/expected.h"
#include "ir/graph.h"
#include "ir/model_config.h"

namespace mlc {

struct ModuleNode;
struct LossSpec;
struct ForwardProgram;
class CustomOps;

// Whether a model file is read as the model language (frontends/dsl_parse.h):
// a path ending in ".mlc"; for other names that are not ".json" (standard
// input), text that does not start with '{'.
bool reads_as_model_language(std::string_view text, std::string_view path);

class ModelFile {
 public:
  // Reads the file: "<path>: error: cannot open: No such file or directory".
  static Expected<ModelFile> load(const std::string& path, const ModelLimits& limits = {});
  static Expected<ModelFile> parse(std::string_view text, const std::string& path,
                                   const ModelLimits& limits = {});

  const ModelConfig& config() const { return config_; }
  // The "custom_ops" section (frontends/custom_ops.h); empty without one.
  const CustomOps& custom_ops() const { return *custom_ops_; }
  Expected<Module> build(int64_t batch) const;
  // A model trained in phases (config().train.phases; frontends/phases_section.h):
  // build(batch) gives @loss and @eval of the sum of the phases' losses (each
  // phase's forward updating only its buffers); build_phase(batch, i) the same
  // functions of phase i's loss alone, whose {param} arguments are the
  // parameters phase i trains, every other parameter {frozen}.
  Expected<Module> build_phase(int64_t batch, size_t phase) const;
  // `mlc generate`'s function (frontends/decode_state.h), at batch 1 in
  // evaluation mode: @prefill (step false) over the whole window, or @decode
  // (step true) of one token at a position:
  //   func @prefill(tokens {input} [1,T], <params, buffers>, <caches> {state})
  //       -> (logits [1,T,V], <caches'> {updates})
  //   func @decode(tokens {input} [1,1], position {input} i64[], <params, buffers>,
  //                <caches> {state}) -> (logits [1,1,V], <caches'> {updates})
  // The model must take one integer token input [batch, T] and return [batch, T, V].
  // Errors say why a model cannot be decoded this way.
  Expected<Module> build_generation(bool step) const;
  // `mlc predict --value PATH`: @predict(<inputs> {input}, <params, buffers>)
  // -> (the output of the module at state_dict path PATH: its first call), the
  // forward in evaluation mode; every input is an argument (the caller drops
  // those nothing reads). An error names PATH and the modules the forward calls.
  Expected<Module> build_module_output(int64_t batch, const std::string& path) const;
  // T: the length of the model's token input, or an error saying why the
  // model is not a causal language model `mlc generate` can run.
  Expected<int64_t> generation_window() const;

 private:
  static Expected<ModelFile> parse_unguarded(std::string_view text, const std::string& path,
                                             const ModelLimits& limits);
  // trial: the load-time build at train.batch_size (LayerContext::training_batch).
  // phase: build_phase's, or -1 (every phase's loss, summed).
  Expected<Module> build_unguarded(int64_t batch, bool trial = false, int phase = -1) const;

  ModelConfig config_;
  std::shared_ptr<const ModuleNode> model_;
  std::shared_ptr<const CustomOps> custom_ops_;
  std::vector<std::string> model_inputs_;  // the top-level model's inputs (names in config_.inputs)
  std::shared_ptr<const LossSpec> loss_;
  std::shared_ptr<const std::vector<ForwardProgram>> phase_losses_;  // train.phases' losses
};

}  // namespace mlc
