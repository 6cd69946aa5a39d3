#include "tools/evaluate.h"

#include <algorithm>

namespace mlc {

namespace {
// Function `name` of the model built for `batch` examples.
Expected<StepFunction> compile(const ModelFile& model, int64_t batch, const char* name, Backend backend) {
  MLC_TRY(Module module, model.build(batch));
  Function* f = module.find(name);
  if (!f) return make_error(std::string("error: the model has no @") + name + " function");
  return StepFunction::create(*f, backend);
}

// Arguments of @eval / @loss: the inputs, then the parameters (read only).
std::vector<rt::Tensor*> arguments(std::vector<rt::Tensor>& inputs, const std::vector<rt::NamedTensor>& params) {
  std::vector<rt::Tensor*> args;
  for (rt::Tensor& t : inputs) args.push_back(&t);
  for (const rt::NamedTensor& p : params) args.push_back(const_cast<rt::Tensor*>(&p.tensor));
  return args;
}

// Scalar value of a 0-d result as double.
double scalar_value(const rt::Tensor& t) {
  switch (t.dtype()) {
    case DType::f32: return t.data<float>()[0];
    case DType::f64: return t.data<double>()[0];
    case DType::i64: return static_cast<double>(t.data<int64_t>()[0]);
    case DType::i32: return t.data<int32_t>()[0];
    default: return 0;
  }
}
}  // namespace

Expected<Evaluator> Evaluator::create(const Program& program, int64_t examples, int64_t batch) {
  if (examples == 0) return make_error("error: the evaluation split has no examples");
  Evaluator e;
  e.config_ = &program.config();
  e.examples_ = examples;
  e.batch_ = std::min(batch, examples);
  MLC_TRY(StepFunction full, program.function("eval", e.batch_));
  e.full_.emplace(std::move(full));
  if (examples % e.batch_) {
    MLC_TRY(StepFunction tail, program.function("eval", examples % e.batch_));
    e.tail_.emplace(std::move(tail));
  }
  return e;
}

Expected<EvalResult> Evaluator::run(const rt::Split& split, const std::vector<rt::NamedTensor>& params) {
  const int64_t n = split.num_examples();
  if (n != examples_)
    return make_error("error: the evaluator was compiled for " + std::to_string(examples_) +
                      " examples, the split has " + std::to_string(n));
  EvalResult result;
  double loss_sum = 0;
  const ModelConfig& config = *config_;
  for (int64_t begin = 0; begin < n; begin += batch_) {
    int64_t end = std::min(n, begin + batch_);
    std::vector<rt::Tensor> inputs = split.rows(begin, end);
    StepFunction& run = end - begin == batch_ ? *full_ : *tail_;
    MLC_CHECK_OK(run.run(arguments(inputs, params)));
    loss_sum += scalar_value(run.result(0));
    if (run.num_results() > 1) result.correct += static_cast<int64_t>(scalar_value(run.result(1)));
    // Positions: every element of the targets (class indices, or regression targets).
    for (size_t i = 0; i < config.inputs.size(); ++i)
      if (config.inputs[i].name == config.loss_targets) result.positions += inputs[i].num_elements();
  }
  result.examples = n;
  result.loss = loss_sum / static_cast<double>(result.positions);
  if (config.classifier)
    result.accuracy = static_cast<double>(result.correct) / static_cast<double>(result.positions);
  return result;
}

void Evaluator::enable_profiling() {
  for (auto* f : {&full_, &tail_})
    if (*f) (*f)->enable_profiling();
}

std::vector<FunctionProfile> Evaluator::profiles() const {
  std::vector<FunctionProfile> out;
  if (auto p = function_profile(*full_, batch_)) out.push_back(std::move(*p));
  if (tail_)
    if (auto p = function_profile(*tail_, examples_ % batch_)) out.push_back(std::move(*p));
  return out;
}

Status check_class_targets(const Program& program, const rt::Split& split, const std::string& data_path,
                           const std::string& split_name) {
  const ModelConfig& config = program.config();
  MLC_TRY(std::optional<int64_t> num_classes, program.num_classes());
  if (!config.classifier || !num_classes) return {};
  const int64_t classes = *num_classes;
  for (size_t i = 0; i < config.inputs.size(); ++i) {
    if (config.inputs[i].name != config.loss_targets) continue;
    rt::Tensor targets = std::move(split.rows(0, split.num_examples())[i]);
    for (int64_t k = 0; k < targets.num_elements(); ++k) {
      int64_t t = targets.dtype() == DType::i64 ? targets.data<int64_t>()[k] : targets.data<int32_t>()[k];
      if (t < 0 || t >= classes)
        return make_error(data_path + ": error: " + split_name + " target '" + config.loss_targets +
                          "' element " + std::to_string(k) + " is " + std::to_string(t) +
                          ", not a class index in [0, " + std::to_string(classes) + ")");
    }
  }
  return {};
}

Expected<EvalResult> evaluate(const Program& program, const rt::Split& split,
                              const std::vector<rt::NamedTensor>& params, int64_t batch) {
  MLC_TRY(Evaluator e, Evaluator::create(program, split.num_examples(), batch));
  return e.run(split, params);
}

Expected<double> batch_loss(const ModelFile& model, const rt::Split& split,
                            const std::vector<rt::NamedTensor>& params, int64_t begin, int64_t batch) {
  if (begin + batch > split.num_examples())
    return make_error("error: batch [" + std::to_string(begin) + ", " + std::to_string(begin + batch) +
                      ") is beyond the split's " + std::to_string(split.num_examples()) + " examples");
  MLC_TRY(StepFunction run, compile(model, batch, "loss", Backend::interp));
  std::vector<rt::Tensor> inputs = split.rows(begin, begin + batch);
  MLC_CHECK_OK(run.run(arguments(inputs, params)));
  return scalar_value(run.result(0));
}

}  // namespace mlc
