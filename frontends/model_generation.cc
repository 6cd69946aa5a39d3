// ModelFile::build_generation and generation_window (frontends/model_file.h).
#include <algorithm>

#include "frontends/custom_ops.h"
#include "frontends/decode_state.h"
#include "frontends/model_file.h"
#include "frontends/module_tree.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {
// The declared input named `name`, or null.
const InputInfo* declared_input(const ModelConfig& c, const std::string& name) {
  for (const InputInfo& i : c.inputs)
    if (i.name == name) return &i;
  return nullptr;
}
}  // namespace

Expected<int64_t> ModelFile::generation_window() const {
  const ModelConfig& c = config_;
  const std::string why = c.path + ": error: mlc generate needs a causal language model: a forward of one token "
                                   "input i64[batch, T] returning logits [batch, T, vocabulary]";
  if (!c.train.phases.empty()) return make_error(why + "; this model trains in phases and has no forward of its own");
  if (c.loss_type == "output") return make_error(why + "; this model's forward returns its loss");
  if (model_inputs_.size() != 1)
    return make_error(why + "; this model's forward takes " + std::to_string(model_inputs_.size()) + " inputs");
  const InputInfo* in = declared_input(c, model_inputs_[0]);
  if (!in || !is_integer(in->dtype) || in->shape.size() != 2 || !in->batched || in->batch_dim != 0 ||
      in->shape[1] < 1) {
    std::string shape;  // as the model file writes it: "f32[batch,1,8,8]"
    for (size_t i = 0; in && i < in->shape.size(); ++i)
      shape += (i ? "," : "") + (in->shape[i] < 0 ? std::string("batch") : std::to_string(in->shape[i]));
    return make_error(why + "; its input " +
                      (in ? squote(in->name) + " is " + std::string(dtype_name(in->dtype)) + "[" + shape + "]"
                          : std::string("is missing")));
  }
  return in->shape[1];
}

Expected<Module> ModelFile::build_generation(bool step) const {
  const ModelConfig& c = config_;
  MLC_TRY(const int64_t T, generation_window());
  return catch_out_of_memory(
      [&]() -> Expected<Module> {
        Module module;
        module.name = c.name;
        CustomOpEmitter custom(module, *custom_ops_);
        Function& f = module.add_function(step ? "decode" : "prefill");
        const InputInfo* in = declared_input(c, model_inputs_[0]);  // generation_window checked it
        Value* tokens = f.add_arg(in->name, TensorType{in->dtype, {1, step ? 1 : T}}, ArgKind::input);
        DecodeState decode;
        decode.mode = step ? DecodeState::Mode::step : DecodeState::Mode::prefill;
        decode.function = &f;
        decode.context = T;
        if (step) {
          std::string name = "position";
          while (std::any_of(c.inputs.begin(), c.inputs.end(), [&](const InputInfo& i) { return i.name == name; }))
            name += "_";
          decode.position = f.add_arg(name, TensorType{DType::i64, {}}, ArgKind::input);
        }
        EmitState state;
        state.float_dtype = c.dtype;
        state.decode = &decode;
        for (const ParamInfo& p : c.params)
          state.values[p.name] = f.add_arg(p.name, p.type, p.buffer      ? ArgKind::buffer
                                                           : p.trainable ? ArgKind::param
                                                                         : ArgKind::frozen);
        Builder b(f);
        MLC_TRY(Value* out, emit_module(*model_, b, state, "", {tokens}, &custom));
        const int64_t L = step ? 1 : T;
        if (out->type.rank() != 3 || out->type.shape[0] != 1 || out->type.shape[1] != L || !is_float(out->type.dtype))
          return make_error(c.path + ": error: mlc generate: the forward returns " + out->type.str() +
                            " for tokens [1, " + std::to_string(L) + "]; expected logits [1, " + std::to_string(L) +
                            ", vocabulary]");
        f.results.push_back(out);
        f.result_updates.push_back(-1);
        for (const DecodeState::Update& u : decode.updates) {
          f.results.push_back(u.value);
          const auto arg = std::find(f.args.begin(), f.args.end(), u.arg) - f.args.begin();
          f.result_updates.push_back(static_cast<int>(arg));
        }
        if (decode.updates.empty()) f.result_updates.clear();
        return module;
      },
      c.path + ": error: out of memory while building the IR");
}

}  // namespace mlc
