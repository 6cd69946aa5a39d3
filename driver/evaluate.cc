#include "driver/evaluate.h"

#include <algorithm>
#include <numeric>

#include "ir/inline_calls.h"
#include "runtime/sampler.h"
#include "driver/pipeline_step_schedule.h"

namespace mlc {

namespace {
// Function `name` of the model built for `batch` examples.
Expected<StepFunction> compile(const ModelFile& model, int64_t batch, const char* name, Backend backend) {
  MLC_TRY(Module module, model.build(batch));
  inline_calls(module);  // custom ops' calls (nothing runs a call)
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
// Whether evaluation reads the training data: the model file has no "eval"
// split (it defaults to "train", and artifacts keep that copy), or one that
// maps the same tensors and slices.
bool eval_is_train(const DataConfig& d) {
  auto same = [](const InputMapping& a, const InputMapping& b) {
    auto same_slice = [](const SliceRange& x, const SliceRange& y) { return x.start == y.start && x.stop == y.stop; };
    return a.input == b.input && a.tensor == b.tensor &&
           std::equal(a.slices.begin(), a.slices.end(), b.slices.begin(), b.slices.end(), same_slice);
  };
  return std::equal(d.train.begin(), d.train.end(), d.eval.begin(), d.eval.end(), same);
}

}  // namespace

Expected<Evaluator> Evaluator::create(const Program& program, int64_t examples, int64_t batch) {
  FunctionCache functions(program);
  Rank rank;
  rank.functions = &functions;
  MLC_TRY(Evaluator e, create(rank, program.config(), examples, batch));
  e.rank_.functions = nullptr;  // everything is compiled
  return e;
}

EvalBatches eval_batches(int64_t examples, int64_t batch, int64_t data_ranks) {
  const int64_t w = data_ranks, per_rank = examples / w;
  EvalBatches b;
  if (per_rank > 0) {
    const int64_t local = std::min(std::max<int64_t>(1, std::min(batch, examples) / w), per_rank);
    b.full = local * w;
    b.tail = per_rank % local * w;
  }
  b.remainder = examples % w != 0;
  return b;
}

Expected<Evaluator> Evaluator::create(const Rank& rank, const ModelConfig& config, int64_t examples, int64_t batch) {
  if (examples == 0) return make_error("error: the evaluation split has no examples");
  Evaluator e;
  e.config_ = &config;
  e.rank_ = rank;
  e.examples_ = examples;
  const int64_t w = rank.data_ranks;
  EvalBatches batches = eval_batches(examples, batch, w);
  e.batch_ = std::max<int64_t>(1, batches.full / w);
  if (const std::optional<size_t> axis = pipeline_axis(rank)) {
    // Every replica of the pipeline (its data axes) evaluates the whole split.
    batches = eval_batches(examples, batch, 1);
    e.batch_ = std::max<int64_t>(1, batches.full);
    MLC_TRY(PipelineSchedule schedule, rank.functions->program().pipeline_schedule());
    e.num_stages_ = schedule.stages();
    e.pipeline_ranks_ = schedule.ranks;
    e.pipeline_axis_ = *axis;
    for (int s = rank.coords[*axis]; s < e.num_stages_; s += schedule.ranks) {
      const std::string name = "stage" + std::to_string(s) + (s + 1 == e.num_stages_ ? ".eval" : ".eval_forward");
      Stage stage{s, {}, {}};
      if (batches.full) {
        MLC_TRY(StepFunction f, rank.function(name, batches.full));
        stage.full.emplace(std::move(f));
      }
      if (batches.tail) {
        MLC_TRY(StepFunction f, rank.function(name, batches.tail));
        stage.tail.emplace(std::move(f));
      }
      e.stages_.push_back(std::move(stage));
    }
    return e;
  }
  if (batches.full) {
    MLC_TRY(StepFunction full, rank.function("eval", batches.full));
    e.full_.emplace(std::move(full));
  }
  if (batches.tail) {
    MLC_TRY(StepFunction tail, rank.function("eval", batches.tail));
    e.tail_.emplace(std::move(tail));
  }
  if (batches.remainder) {
    if (!rank.unsharded) return make_error("mlc internal error: uneven evaluation without unsharded functions");
    MLC_TRY(StepFunction one, rank.unsharded->get("eval", 1));
    e.remainder_.emplace(std::move(one));
  }
  return e;
}

// What the evaluation's mean divides the summed loss by: every element of the
// targets (class indices, or regression targets), or with a loss computed by
// the forward ("output") the batch's examples.
namespace {
int64_t loss_positions(const ModelConfig& config, const std::vector<rt::Tensor>& inputs) {
  int64_t positions = 0;
  for (size_t i = 0; i < config.inputs.size(); ++i) {
    const InputInfo& in = config.inputs[i];
    if (config.loss_targets.empty() && in.batched) return inputs[i].shape()[in.batch_dim];
    if (in.name == config.loss_targets) positions += inputs[i].num_elements();
  }
  return positions;
}
}  // namespace

Status Evaluator::add(StepFunction& f, std::vector<rt::Tensor>& inputs, const std::vector<rt::NamedTensor>& params,
                      double& loss_sum, int64_t& correct, int64_t& positions) const {
  MLC_CHECK_OK(f.run(arguments(inputs, params)));
  loss_sum += scalar_value(f.result(0));
  if (f.num_results() > 1) correct += static_cast<int64_t>(scalar_value(f.result(1)));
  positions += loss_positions(*config_, inputs);
  return {};
}

Status Evaluator::add_remainder(const rt::Split& split, const std::vector<rt::NamedTensor>& params,
                                double& loss_sum, int64_t& correct, int64_t& positions) {
  const int64_t w = rank_.data_ranks, mine = examples_ / w * w + rank_.data_rank;
  // The whole parameters, as the sharded @eval's arguments place them (a
  // collective: every rank gathers, whether or not it has an example), from
  // the host's copies made current.
  MLC_CHECK_OK(rank_.to_host(params));
  std::vector<rt::NamedTensor> whole;
  const Signature* placed = full_ ? &full_->signature() : nullptr;
  for (size_t i = 0; i < params.size(); ++i) {
    const size_t arg = config_->inputs.size() + i;
    Placements p = placed && arg < placed->args.size() ? placed->args[arg].placements : Placements{};
    MLC_TRY(rt::Tensor t, rank_.gather(params[i].tensor, p, params[i].name));
    whole.push_back({params[i].name, std::move(t)});
  }
  std::vector<double> sums = {0, 0, 0};  // loss, correct, positions
  if (mine < examples_) {
    std::vector<rt::Tensor> inputs = split.gather({mine});
    int64_t c = 0, pos = 0;
    MLC_CHECK_OK(add(*remainder_, inputs, whole, sums[0], c, pos));
    sums[1] = static_cast<double>(c);
    sums[2] = static_cast<double>(pos);
  }
  MLC_CHECK_OK(rank_.sum_over_data_ranks(sums, "evaluation of the examples beyond the even split"));
  loss_sum += sums[0];
  correct += static_cast<int64_t>(sums[1]);
  positions += static_cast<int64_t>(sums[2]);
  return {};
}

Expected<EvalResult> Evaluator::run_pipeline(const rt::Split& split, const std::vector<rt::NamedTensor>& params) {
  const int64_t n = split.num_examples();
  rt::Group& world = rank_.world->all();
  auto world_rank = [&](int stage) {
    return rank_.world->axis_group(pipeline_axis_).world_rank(stage % pipeline_ranks_);
  };
  const int last = num_stages_ - 1;
  std::vector<double> sums = {0, 0, 0};  // loss, correct, positions (the last stage's)
  for (int64_t begin = 0; begin < n; begin += batch_) {
    const int64_t end = std::min(n, begin + batch_);
    std::vector<int64_t> rows(static_cast<size_t>(end - begin));
    std::iota(rows.begin(), rows.end(), begin);
    std::vector<rt::Tensor> inputs = split.gather(rows);
    for (Stage& st : stages_) {
      StepFunction& f = end - begin == batch_ ? *st.full : *st.tail;
      const Signature& sig = f.signature();
      std::vector<rt::Tensor> received;
      received.reserve(sig.args.size());
      std::vector<rt::Tensor*> args;
      for (const Signature::Arg& a : sig.args) {
        rt::Tensor* t = nullptr;
        if (a.name.starts_with("pipe.in.")) {
          rt::Tensor& r = received.emplace_back(a.type);
          MLC_CHECK_OK(world.recv(r.bytes(), r.num_bytes(), world_rank(st.stage - 1),
                                  "evaluation: stage " + std::to_string(st.stage - 1) + "'s " + a.name));
          t = &r;
        }
        for (size_t j = 0; j < config_->inputs.size() && !t && a.kind == ArgKind::input; ++j)
          if (config_->inputs[j].name == a.name) t = &inputs[j];
        for (const rt::NamedTensor& p : params)
          if (!t && a.kind != ArgKind::input && p.name == a.name) t = const_cast<rt::Tensor*>(&p.tensor);
        if (!t) return make_error("mlc internal error: evaluation: no value for argument '" + a.name + "' of @" + sig.name);
        args.push_back(t);
      }
      MLC_CHECK_OK(f.run(args));
      if (st.stage < last) {
        for (size_t k = 0; k < f.num_results(); ++k) {
          const rt::Tensor& r = f.result(k);
          MLC_CHECK_OK(world.send(const_cast<rt::Tensor&>(r).bytes(), r.num_bytes(), world_rank(st.stage + 1),
                                  "evaluation: stage " + std::to_string(st.stage) + "'s pipe.in." + std::to_string(k)));
        }
        continue;
      }
      sums[0] += scalar_value(f.result(0));
      if (f.num_results() > 1) sums[1] += scalar_value(f.result(1));
      sums[2] += static_cast<double>(loss_positions(*config_, inputs));
    }
  }
  // Within this replica's pipeline ranks (every replica evaluates the whole split).
  MLC_CHECK_OK(rank_.world->axis_group(pipeline_axis_).broadcast(
      sums.data(), static_cast<int64_t>(sums.size() * sizeof(double)), last % pipeline_ranks_,
      "evaluation: the last stage's sums"));
  EvalResult result;
  result.training_data = eval_is_train(config_->data);
  result.correct = static_cast<int64_t>(sums[1]);
  result.positions = static_cast<int64_t>(sums[2]);
  result.examples = n;
  result.loss = sums[0] / sums[2];
  if (config_->classifier) result.accuracy = sums[1] / sums[2];
  return result;
}

Expected<EvalResult> Evaluator::run(const rt::Split& split, const std::vector<rt::NamedTensor>& params) {
  const int64_t n = split.num_examples();
  if (n != examples_)
    return make_error("error: the evaluator was compiled for " + std::to_string(examples_) +
                      " examples, the split has " + std::to_string(n));
  if (num_stages_ > 0) return run_pipeline(split, params);
  const int64_t w = rank_.data_ranks;
  std::vector<int64_t> all(static_cast<size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  // DistributedSampler(drop_last=True)'s share: the even split.
  const std::vector<int64_t> even = rt::distributed_indices(all, w, rank_.data_rank, true);
  EvalResult result;
  result.training_data = eval_is_train(config_->data);
  double loss_sum = 0;
  int64_t local_positions = 0;
  for (size_t begin = 0; begin < even.size(); begin += static_cast<size_t>(batch_)) {
    const size_t end = std::min(even.size(), begin + static_cast<size_t>(batch_));
    std::vector<rt::Tensor> inputs =
        split.gather(std::vector<int64_t>(even.begin() + static_cast<std::ptrdiff_t>(begin),
                                          even.begin() + static_cast<std::ptrdiff_t>(end)));
    StepFunction& f = end - begin == static_cast<size_t>(batch_) ? *full_ : *tail_;
    // The sharded @eval's sums and counts are already totals over the data ranks.
    MLC_CHECK_OK(add(f, inputs, params, loss_sum, result.correct, local_positions));
  }
  // Every data rank evaluates as many positions as this one.
  result.positions = local_positions * w;
  if (n % w) MLC_CHECK_OK(add_remainder(split, params, loss_sum, result.correct, result.positions));
  result.examples = n;
  result.loss = loss_sum / static_cast<double>(result.positions);
  if (config_->classifier)
    result.accuracy = static_cast<double>(result.correct) / static_cast<double>(result.positions);
  return result;
}

std::string eval_label(const EvalResult& r) {
  return r.training_data ? "eval (training data, no eval split)" : "eval";
}

void Evaluator::enable_profiling() {
  for (auto* f : {&full_, &tail_, &remainder_})
    if (*f) (*f)->enable_profiling();
  for (Stage& s : stages_)
    for (auto* f : {&s.full, &s.tail})
      if (*f) (*f)->enable_profiling();
}

std::vector<FunctionProfile> Evaluator::profiles() const {
  std::vector<FunctionProfile> out;
  const int64_t w = rank_.data_ranks;
  if (full_)
    if (auto p = function_profile(*full_, batch_ * w)) out.push_back(std::move(*p));
  if (tail_)
    if (auto p = function_profile(*tail_, examples_ / w % batch_ * w)) out.push_back(std::move(*p));
  if (remainder_)
    if (auto p = function_profile(*remainder_, 1)) out.push_back(std::move(*p));
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
      if ((t < 0 || t >= classes) && t != config.loss_ignore_index)
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
