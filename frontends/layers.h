// The layer library of model files (docs/model-format.md, "Layers").
//
// Contracts:
//  - parse_layer validates every field of a layer object (unknown fields, types,
//    ranges, divisibility) and reports errors at the offending key or value.
//    A parsed Layer is immutable and position-independent: a `repeat` block is
//    parsed once and applied under several state_dict prefixes.
//  - params() lists the layer's parameters in PyTorch registration order, with
//    names relative to the layer ("weight", "wq.weight") and PyTorch's default
//    init (kaiming_uniform(a=sqrt(5)) = U(+-1/sqrt(fan_in)) for Linear/Conv2d
//    weights and biases, N(0,1) for Embedding, ones/zeros for norms).
//  - apply() checks the input against the layer's view ("Linear 'fc': input has
//    144 features but in_features is 128", located at the layer object) and
//    emits ops with the layer's Loc. It never aborts on user input.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frontends/json_doc.h"
#include "ir/builder.h"
#include "ir/model_config.h"

namespace mlc {

struct BuiltinSpec;  // forward_builtins.h
struct DecodeState;
struct Val;

struct ParamDecl {
  std::string name;  // relative to the layer
  Shape shape;
  ParamInit init;
  DType dtype = DType::f32;  // buffers may be i64 (num_batches_tracked)
  // Its place among the layer's params() in torch's draw order (-1: its
  // position); a layer's draws are a permutation of its positions.
  // init.same_as is relative to the layer too.
  int64_t draw = -1;
};

// What a layer sees while emitting.
struct LayerContext {
  Builder& b;
  std::string path;  // the layer's state_dict path ("layers.0.attn"); names it in messages
  // The value of a declared parameter or buffer, by relative name: the function
  // argument, or a buffer's newest value after update_buffer.
  std::function<Value*(const std::string& name)> param;
  // The mode the forward is lowered in: training (@loss, the train step) uses
  // batch statistics and draws dropout masks; evaluation (@eval) uses running
  // statistics and no dropout.
  bool training = false;
  // Training only: records a buffer's new value (a result of @loss that updates it).
  std::function<void(const std::string& name, Value* value)> update_buffer;
  // Training only: the {step} argument (added to the function on first use).
  std::function<Value*()> step;
  // The load-time build at train.batch_size: training shapes that PyTorch
  // refuses at run time (BatchNorm with one value per channel) are errors. Other
  // batches (an evaluation's remainder) build @loss anyway, never running it.
  bool training_batch = false;
  uint64_t seed = 0;    // train.seed: keys random_uniform
  uint32_t stream = 0;  // this call's random stream: a hash of the layer path and call number
  // Incremental decoding (frontends/decode_state.h), null otherwise: layers
  // that mix positions (attention) read and write its caches.
  DecodeState* decode = nullptr;
  // The model's float dtype (ModelConfig::dtype): its parameters', and what
  // the layers with parameters take (require_float).
  DType float_dtype = DType::f32;
};

// A parameter a layer uses but does not own: `param` (relative, "weight") is
// the model's parameter `target` (a full state_dict name, "tok_emb.weight"),
// as PyTorch's `head.weight = tok_emb.weight`.
struct TiedParam {
  std::string param, target;
  Shape shape;
  Loc loc;  // of the field naming the target
};

class Layer {
 public:
  virtual ~Layer() = default;
  const std::string& type() const { return type_; }
  const Loc& loc() const { return loc_; }
  // Parameters used but not declared by params() (checked by check_ties).
  virtual std::vector<TiedParam> ties() const { return {}; }
  virtual std::vector<ParamDecl> params() const { return {}; }
  // Buffers (PyTorch's register_buffer), in registration order, after the
  // parameters in the state_dict: saved and loaded like parameters, never trained.
  virtual std::vector<ParamDecl> buffers() const { return {}; }
  // Emits the layer on `x` (the builder's loc is set to loc() by the caller).
  virtual Expected<Value*> apply(LayerContext& ctx, Value* x) const = 0;
  // Layers whose forward takes more than one tensor or keyword arguments
  // (nn.MultiheadAttention's forward(query, key, value, key_padding_mask=None,
  // ...), nn.LSTM's forward(input, hx=None)): the parameters of that forward, in PyTorch's order, which a
  // forward statement's call binds by position and keyword as a built-in's
  // (the spec's name is the layer type). nullptr: the layer takes tensors only.
  virtual const BuiltinSpec* call_spec() const { return nullptr; }
  // Emits a call bound to call_spec() (one Val per parameter; absent ones of
  // kind absent; a tuple argument, LSTM's (h_0, c_0), is a list). The result
  // is a tensor, or a list (a tuple: (attn_output, attn_weights), None where
  // PyTorch returns None; LSTM's (output, (h_n, c_n))). Errors are located at `at`.
  virtual Expected<Val> apply_call(LayerContext& ctx, const std::vector<Val>& args, const Loc& at) const;
  // An upper bound on the ops one apply() emits, whatever the input: the model
  // file's work budget counts it before anything is emitted
  // (tests/frontends/layers_test.cc checks it for every layer type).
  virtual int64_t max_ops() const = 0;

 protected:
  // "Type 'path': message" at the layer object.
  Error error(const LayerContext& ctx, const std::string& message) const;
  // Checks that x is float with the parameters' dtype (f32) when the layer has any.
  Status require_float(const LayerContext& ctx, Value* x, bool needs_f32) const;

 private:
  friend Expected<std::unique_ptr<Layer>> parse_layer(const Fields& f, const std::string& type);
  std::string type_;
  Loc loc_;
};

// Known layer types, in the order of the docs' table.
const std::vector<std::string>& layer_types();
bool is_layer_type(const std::string& type);

// Parses a layer object of a known `type` ("type" and "trainable" are allowed
// fields of every layer and are read by the caller).
Expected<std::unique_ptr<Layer>> parse_layer(const Fields& f, const std::string& type);

// ---- shared by the layer files
// U(+-1/sqrt(fan_in)).
// PyTorch's default inits: bias U(±1/sqrt(fan_in)); weight kaiming_uniform(a=sqrt(5)).
ParamInit uniform_fan_in(double fan_in);
ParamInit kaiming_uniform(double fan_in);
// Linear parameters under `prefix` ("" or "wq."): weight [out,in] (+ bias [out]).
void linear_params(std::vector<ParamDecl>& out, const std::string& prefix, int64_t in,
                   int64_t out_features, bool bias);
// y = x W^T (+ b) for the Linear parameters under `prefix`; x's last dim must be `in`.
Expected<Value*> emit_linear(LayerContext& ctx, Value* x, const std::string& prefix, bool bias);
// An int or a pair of ints at `key` (`dflt` when absent): sizes (>= 1), or
// paddings (>= 0) with `allow_zero`; errors at the value.
Expected<std::array<int64_t, 2>> pair_field(const Fields& f, std::string_view key, std::array<int64_t, 2> dflt,
                                            bool allow_zero);
// Fields allowed for a layer of this type, besides "type" and "trainable".
std::vector<std::string> with_common_fields(std::vector<std::string> fields);
// Activations, softmaxes and Identity (layers_activation.cc); nullptr result if `type` is not one.
Expected<std::unique_ptr<Layer>> parse_activation_layer(const Fields& f, const std::string& type);
// Transformer-style layers (layers_transformer.cc); nullptr result if `type` is not one.
Expected<std::unique_ptr<Layer>> parse_transformer_layer(const Fields& f, const std::string& type);
// Layers that differ between training and evaluation, BatchNorm1d/2d and Dropout
// (layers_train_mode.cc); nullptr result if `type` is not one.
Expected<std::unique_ptr<Layer>> parse_train_mode_layer(const Fields& f, const std::string& type);
// Recurrent layers, RNN/LSTM/GRU and their cells (layers_recurrent.cc); nullptr
// result if `type` is not one.
Expected<std::unique_ptr<Layer>> parse_recurrent_layer(const Fields& f, const std::string& type);
// Spatial layers (layers_spatial.cc): Conv1d, ConvTranspose1d/2d, adaptive
// pools, Upsample, PixelShuffle/Unshuffle, padding layers, GroupNorm and
// InstanceNorm2d; nullptr result if `type` is not one.
Expected<std::unique_ptr<Layer>> parse_spatial_layer(const Fields& f, const std::string& type);
// nn.MultiheadAttention (layers_multihead.cc) and the Transformer layers
// (layers_transformer_block.cc); nullptr result if `type` is not one.
Expected<std::unique_ptr<Layer>> parse_attention_layer(const Fields& f, const std::string& type);
// Dropout's training-mode mask on `x` (the Dropout layer's: docs/model-format.md)
// drawn on random stream `stream`; `x` itself in evaluation mode or for p = 0.
Expected<Value*> emit_dropout(LayerContext& ctx, Value* x, double p, uint32_t stream);
// A BatchNorm layer without "sync": true (a mesh with a data axis refuses it).
bool is_unsynced_batch_norm(const Layer& layer);

}  // namespace mlc
