#include "driver/predict.h"

#include <algorithm>
#include <cstring>

#include "runtime/dataset.h"
#include "runtime/safetensors.h"

namespace mlc {

Expected<Predictions> predict(const Program& program, const std::vector<rt::NamedTensor>& params,
                              const PredictOptions& options) {
  const ModelConfig& config = program.config();
  Predictions out;
  out.data_path = options.data_path.empty() ? config.data.file : options.data_path;
  if (out.data_path.empty())
    return make_error(config.path + ": error: no data file: give \"data\": {\"file\": ...} or --data");
  if (options.split != "eval" && options.split != "train")
    return make_error("error: --split: expected eval or train, got '" + options.split + "'");
  const std::string function = options.value.empty() ? "predict" : "predict:" + options.value;
  if (!config.train.phases.empty() && options.value.empty())
    return make_error(config.path + ": error: mlc predict: a model trained in phases (train.phases) has no forward "
                      "of its own to predict with; --value PATH gives a module's output (its first call in the phases' "
                      "losses)");
  if (config.loss_type == "output" && options.value.empty())
    return make_error(config.path + ": error: mlc predict: the forward returns the loss itself (\"loss\": {\"type\": "
                      "\"output\"}), so the model has no output apart from it to predict; --value PATH gives a module's output");
  const std::vector<InputMapping>& mapping = options.split == "eval" ? config.data.eval : config.data.train;
  // The inputs @predict reads (its {input} arguments), at a trial batch.
  MLC_TRY(const Function* trial, program.ir(function, 1));
  // One row per example: the output's first dim is the batch (a sequence
  // model's [T, batch, H] is not).
  const TensorType& row = trial->results.at(0)->type;
  const std::string what = options.value.empty() ? "the model's output" : "the output of " + options.value;
  if (row.rank() == 0 || row.shape[0] != 1)
    return make_error(config.path + ": error: mlc predict: " + what + " at batch 1 is " + row.str() +
                      ": its first dim is not the examples', and predict writes one row per example");
  std::vector<InputInfo> inputs;
  std::vector<InputMapping> read;
  for (size_t i = 0; i < trial->args.size(); ++i) {
    if (trial->arg_kinds[i] != ArgKind::input) continue;
    for (const InputInfo& in : config.inputs)
      if (in.name == trial->args[i]->name) inputs.push_back(in);
    for (const InputMapping& m : mapping)
      if (m.input == trial->args[i]->name) read.push_back(m);
  }
  MLC_TRY(rt::SafetensorsFile data, rt::read_safetensors(out.data_path));
  MLC_TRY(rt::Split split, rt::Split::load(data, read, inputs, options.split));
  out.examples = split.num_examples();
  if (out.examples == 0) return make_error(out.data_path + ": error: the " + options.split + " split has no examples");
  const int64_t configured = options.batch > 0 ? options.batch : config.train.eval_batch_size;
  out.batch = std::min(out.examples, configured > 0 ? configured : int64_t{1024});

  // One compiled function per batch size: the full batches' and the last one's.
  std::vector<std::pair<int64_t, StepFunction>> functions;
  auto function_for = [&](int64_t batch) -> Expected<StepFunction*> {
    for (auto& [b, f] : functions)
      if (b == batch) return &f;
    MLC_TRY(StepFunction f, program.function(function, batch));
    functions.emplace_back(batch, std::move(f));
    return &functions.back().second;
  };
  int64_t row_bytes = 0;
  for (int64_t begin = 0; begin < out.examples; begin += out.batch) {
    const int64_t end = std::min(out.examples, begin + out.batch);
    MLC_TRY(StepFunction * f, function_for(end - begin));
    std::vector<rt::Tensor> batch_inputs = split.rows(begin, end);
    const Signature& sig = f->signature();
    std::vector<rt::Tensor*> args;
    for (const Signature::Arg& a : sig.args) {
      rt::Tensor* t = nullptr;
      for (size_t j = 0; j < inputs.size() && a.kind == ArgKind::input; ++j)
        if (inputs[j].name == a.name) t = &batch_inputs[j];
      for (const rt::NamedTensor& p : params)
        if (!t && a.kind != ArgKind::input && p.name == a.name) t = const_cast<rt::Tensor*>(&p.tensor);
      if (!t) return make_error("mlc internal error: predict: no value for argument '" + a.name + "'");
      args.push_back(t);
    }
    MLC_CHECK_OK(f->run(args));
    const rt::Tensor& y = f->result(0);
    if (y.rank() == 0 || y.shape()[0] != end - begin)
      return make_error(config.path + ": error: mlc predict: " + what + " is " + y.type().str() + " for " +
                        std::to_string(end - begin) + " examples: its first dim is not the examples'");
    if (begin == 0) {
      Shape shape = y.shape();
      if (shape.empty()) return make_error(config.path + ": error: predict: the model's output is a scalar, not one per example");
      shape[0] = out.examples;
      out.outputs = rt::Tensor(TensorType{y.dtype(), shape});
      row_bytes = y.num_bytes() / (end - begin);
    }
    std::memcpy(out.outputs.bytes() + begin * row_bytes, y.bytes(), static_cast<size_t>(y.num_bytes()));
  }
  return out;
}

}  // namespace mlc
