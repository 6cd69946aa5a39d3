// ModelFile::build_module_output (frontends/model_file.h).
#include <algorithm>

#include "frontends/custom_ops.h"
#include "frontends/model_file.h"
#include "frontends/module_tree.h"
#include "ir/diagnostics.h"
#include "support/suggest.h"

namespace mlc {

Expected<Module> ModelFile::build_module_output(int64_t batch, const std::string& path) const {
  const ModelConfig& c = config_;
  if (batch < 1) return error_at(Loc{c.path}, "batch must be positive, got " + std::to_string(batch));
  return catch_out_of_memory(
      [&]() -> Expected<Module> {
        Module module;
        module.name = c.name;
        CustomOpEmitter custom(module, *custom_ops_);
        Function& f = module.add_function("predict");
        // A model trained in phases runs its phases' losses in order (the
        // module's first call is in the first phase that calls it), which read
        // every input; another model, its forward's inputs.
        const bool phased = !c.train.phases.empty();
        std::vector<std::string> read = model_inputs_;
        if (phased) {
          read.clear();
          for (const InputInfo& in : c.inputs) read.push_back(in.name);
        }
        std::vector<Value*> model_args;
        for (const std::string& name : read)
          for (const InputInfo& in : c.inputs)
            if (in.name == name) {
              Shape shape = in.shape;
              std::replace(shape.begin(), shape.end(), int64_t{-1}, batch);
              model_args.push_back(f.add_arg(in.name, TensorType{in.dtype, shape}, ArgKind::input));
            }
        EmitState state;
        state.float_dtype = c.dtype;
        state.capture_path = path;
        for (const ParamInfo& p : c.params)
          state.values[p.name] = f.add_arg(p.name, p.type, p.buffer      ? ArgKind::buffer
                                                           : p.trainable ? ArgKind::param
                                                                         : ArgKind::frozen);
        Builder b(f);
        if (!phased) {
          MLC_TRY(Value* out, emit_module(*model_, b, state, "", model_args, &custom));
          (void)out;
        }
        for (size_t i = 0; phased && i < c.train.phases.size() && !state.captured; ++i) {
          MLC_TRY(Value* loss, emit_forward(*model_, (*phase_losses_)[i], b, state,
                                            "phase " + c.train.phases[i].name, model_args, &custom));
          (void)loss;
        }
        if (!state.captured) {
          std::string known;
          for (const std::string& p : state.called) known += (known.empty() ? "" : ", ") + p;
          return make_error(c.path + ": error: --value: the " + (phased ? "phases' losses call" : "forward calls") +
                            " no module " + squote(path) +
                            did_you_mean(path, state.called) + " (modules: " + known + ")");
        }
        f.results.push_back(state.captured);
        return module;
      },
      c.path + ": error: out of memory while building the IR");
}

}  // namespace mlc
