// The module tree of a model file's "model" section: layers, containers (with
// an optional "forward") and repeats, parsed once and emitted into IR under
// PyTorch state_dict prefixes.
//
// Contracts:
//  - parse_module validates the whole subtree (fields, names, forward syntax)
//    and computes, before anything is emitted, the work of emitting it once
//    (Work: a repeat counts its block N times, a forward each call of a layer
//    once more) and its parameter totals. Totals beyond `limits`
//    (frontends/model_limits.h, docs/limits.md) are errors at the node where
//    they first exceed, naming the budget, its limit and the count, so
//    enumerating parameters and
//    emitting IR are bounded whatever the file holds. Recursion follows the
//    JSON nesting, which the JSON parser caps at 64. Lookups are hashed.
//  - collect_params lists ParamInfo in state_dict (registration) order:
//    container children in file order, repeat copies 0..N-1, then each layer's
//    params(). `trainable` is false below any "trainable": false.
//  - `custom`: the model file's custom ops, which forward statements call like
//    layers (a layer may not share a custom op's name); emit_module emits
//    their calls through `custom`'s emitter.
//  - emit_module emits the forward of a module on `args` in the state's mode;
//    parameters and buffers are looked up in `state.values` by full name. Every op it emits has the scope (OpMeta) of
//    the innermost module it was emitted for: "layers.0.attn" for a layer's
//    ops, the container's path for its forward statements' ops.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frontends/custom_ops.h"
#include "frontends/forward_expr.h"
#include "frontends/json_doc.h"
#include "frontends/layers.h"
#include "frontends/model_limits.h"
#include "ir/model_config.h"

namespace mlc {

// The work of emitting a module once.
struct Work {
  int64_t modules = 0;      // module instances emitted: layers, containers, repeats
  int64_t forward_ops = 0;  // ops emitted by forward statements
  int64_t ir_ops = 0;       // upper bound on all ops emitted (layers' max_ops + forward_ops)
};

struct ModuleNode {
  enum class Kind { layer, container, repeat } kind = Kind::layer;
  Loc loc;
  bool trainable = true;
  // layer
  std::unique_ptr<Layer> layer;
  // container
  std::vector<std::pair<std::string, std::unique_ptr<ModuleNode>>> children;
  std::vector<std::string> inputs{"x"};
  std::optional<ForwardProgram> forward;
  // repeat
  int64_t repeat = 0;
  std::unique_ptr<ModuleNode> block;
  std::unordered_map<std::string, size_t> child_index;  // name -> position in children
  // totals over the expanded subtree
  int64_t param_tensors = 0, param_elements = 0;
  Work work;

  // How many values a call of this module takes.
  int arity() const { return kind == Kind::container ? static_cast<int>(inputs.size()) : 1; }
  const ModuleNode* child(const std::string& name) const;
};

// "unknown layer type 'Conv2D'; did you mean 'Conv2d'?", or with no close
// name "unknown layer type 'X' (known: Linear, ...)": both forms' message.
std::string unknown_layer_type(std::string_view type);

// `name` names the module in messages ("" for the top-level model).
Expected<std::unique_ptr<ModuleNode>> parse_module(const JsonDoc& doc, const Node& node,
                                                   const std::string& name,
                                                   const ModelLimits& limits,
                                                   const CustomOps* custom = nullptr);

void collect_params(const ModuleNode& m, const std::string& prefix, bool trainable,
                    std::vector<ParamInfo>& out);
// The top-level layers in model order, a repeat's copies one by one
// ("layers.0", "layers.1"); a model that is one layer (or one repeat) has
// that layer ("") (or its copies "0", "1", ...).
std::vector<TopLayer> collect_top_layers(const ModuleNode& root);
// The BatchNorm layers without "sync": true, by state_dict path.
void collect_unsynced_batch_norms(const ModuleNode& m, const std::string& prefix,
                                  std::vector<std::pair<std::string, Loc>>& out);

// Every layer's tied parameters (Layer::ties) name a parameter of `params`
// (the whole model's, from collect_params) of the shape the layer needs, which
// gets the tied uses' full names as aliases; errors at the naming field.
// Recursion follows the module tree.
Status check_ties(const ModuleNode& root, std::vector<ParamInfo>& params);

using ParamMap = std::unordered_map<std::string, Value*>;
// What emit_module reads and records beyond the builder: the parameters and
// buffers by full name (a buffer's entry follows its updates), the mode
// (LayerContext::training) and, in training, where the step counter comes from.
struct EmitState {
  ParamMap values;
  bool training = false;
  bool training_batch = false;   // LayerContext::training_batch
  std::function<Value*()> step;  // training: the {step} argument
  uint64_t seed = 0;
  std::unordered_map<std::string, int64_t> calls;  // layer path -> calls so far (random streams)
  std::vector<std::string> updated;                // buffers updated, in first-update order
  DecodeState* decode = nullptr;                   // incremental decoding (frontends/decode_state.h)
  DType float_dtype = DType::f32;                  // the model's (ModelConfig::dtype)
  // A module's output to keep (`mlc predict --value PATH`): the output of
  // the first call of the module at this state_dict path, null until then.
  std::string capture_path;
  Value* captured = nullptr;
  std::vector<std::string> called;  // every module path called, when capture_path is set (for messages)
};
Expected<Value*> emit_module(const ModuleNode& m, Builder& b, EmitState& state,
                             const std::string& prefix, const std::vector<Value*>& args,
                             CustomOpEmitter* custom = nullptr);

// What parse_forward needs to read a forward of container `m` taking `inputs`:
// its layers' arities and call specs, the paths below it. `m` and `custom`
// must outlive the scope.
ForwardScope forward_scope(const ModuleNode& m, std::vector<std::string> inputs, const CustomOps* custom);
// The work of running `program` over the children of container `m` once.
Work forward_work(const ModuleNode& m, const ForwardProgram& program, const CustomOps* custom);
// `program` (parsed with forward_scope(m, ...)) run over the children of the
// top-level container `m` on `args` (its inputs in order), as m's own
// forward would be; its random built-ins draw on the streams "<site>/k".
Expected<Value*> emit_forward(const ModuleNode& m, const ForwardProgram& program, Builder& b, EmitState& state,
                              const std::string& site, const std::vector<Value*>& args,
                              CustomOpEmitter* custom = nullptr);

}  // namespace mlc
