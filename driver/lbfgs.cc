#include "driver/lbfgs.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <numeric>

#include "runtime/safetensors.h"
#include "runtime/sampler.h"
#include "driver/evaluate.h"
#include "driver/lbfgs_step.h"
#include "driver/metrics_file.h"
#include "driver/progress.h"
#include "driver/train_metrics.h"

namespace mlc {

bool is_lbfgs(const ModelConfig& config) { return config.train.optimizer.type == "lbfgs"; }

Status check_lbfgs(const ModelConfig& config, const TrainOptions& o, const std::string& mesh) {
  if (!is_lbfgs(config)) return {};
  const TrainConfig& tc = config.train;
  auto refuse = [&](const std::string& what) {
    return make_error(config.path + ": error: optimizer \"lbfgs\" " + what);
  };
  if (!mesh.empty()) return refuse("with --mesh " + mesh + ": LBFGS runs on one device");
  if (!o.checkpoint_dir.empty() || o.resume)
    return refuse("keeps its history on the host: checkpoints and --resume are not supported; train without "
                  "--checkpoint-dir");
  if (tc.grad_accumulation_steps > 1 || tc.accumulate > 1 || o.grad_accumulation_steps.value_or(1) > 1)
    return refuse("re-evaluates the loss within its step: gradient accumulation is not supported");
  if (tc.optimizer.schedule.type != "constant")
    return refuse("with a learning-rate schedule: not supported (its lr is the optimizer's)");
  if (tc.optimizer.clip_grad_norm > 0) return refuse("with clip_grad_norm: not supported");
  if (tc.mixed_precision.enabled()) return refuse("with train.mixed_precision: not supported");
  if (std::any_of(config.params.begin(), config.params.end(), [](const ParamInfo& p) { return p.buffer; }))
    return refuse("with forward buffers (BatchNorm's running statistics): not supported");
  if (!o.dump_grads_path.empty() || o.grad_stats_every.value_or(tc.grad_stats_every) > 0)
    return refuse("with gradient diagnostics (--dump-grads, grad_stats_every): not supported");
  return {};
}

namespace {

// @loss_grad of one batch size, bound to the run's parameters, its batch and the step counter.
struct Closure {
  StepFunction fn;
  std::vector<rt::Tensor> batch;  // config.inputs order
  std::vector<rt::Tensor*> args;
};

// T: the parameters' dtype (float, or double for an f64 model).
template <typename T>
Expected<TrainSummary> train_lbfgs_as(const TrainSetup& setup, const TrainOptions& o, FunctionCache& functions) {
  const ModelConfig& config = *setup.config;
  const TrainConfig& tc = config.train;
  const int64_t n = setup.train_split.num_examples();
  // The trained parameters, in @loss_grad's {param} order (torch's flat order).
  std::vector<rt::NamedTensor> params = setup.params;
  MLC_TRY(Signature sig, functions.signature("loss_grad", setup.batch));
  std::vector<rt::NamedTensor*> trained;
  for (const Signature::Arg& a : sig.args)
    if (a.kind == ArgKind::param)
      for (rt::NamedTensor& p : params)
        if (p.name == a.name) trained.push_back(&p);
  int64_t numel = 0;
  for (const rt::NamedTensor* p : trained) numel += p->tensor.num_elements();
  std::vector<T> x(static_cast<size_t>(numel));
  // The trained parameters set from `flat`, in order.
  auto set_params = [&](const std::vector<T>& flat) {
    size_t at = 0;
    for (rt::NamedTensor* p : trained) {
      const size_t count = static_cast<size_t>(p->tensor.num_elements());
      std::memcpy(p->tensor.data<T>(), flat.data() + at, count * sizeof(T));
      at += count;
    }
  };
  for (size_t at = 0; const rt::NamedTensor* p : trained) {
    const size_t count = static_cast<size_t>(p->tensor.num_elements());
    std::memcpy(x.data() + at, p->tensor.data<T>(), count * sizeof(T));
    at += count;
  }

  rt::Tensor step_tensor(DType::i64, {});
  std::map<int64_t, Closure> closures;  // by batch size (a last partial batch has its own)
  auto closure_for = [&](int64_t batch) -> Expected<Closure*> {
    auto it = closures.find(batch);
    if (it != closures.end()) return &it->second;
    MLC_TRY(StepFunction fn, functions.get("loss_grad", batch));
    if (fn.num_results() != 1 + trained.size())  // the loss, then a gradient per {param}: no buffer updates
      return make_error("mlc internal error: @loss_grad has " + std::to_string(fn.num_results()) + " results for " +
                        std::to_string(trained.size()) + " parameters (lbfgs)");
    Closure& placed =
        closures.emplace(batch, Closure{std::move(fn), std::vector<rt::Tensor>(config.inputs.size()), {}}).first->second;
    for (const Signature::Arg& a : placed.fn.signature().args) {
      rt::Tensor* t = a.kind == ArgKind::step ? &step_tensor : nullptr;
      for (size_t j = 0; j < config.inputs.size() && a.kind == ArgKind::input; ++j)
        if (config.inputs[j].name == a.name) t = &placed.batch[j];
      for (rt::NamedTensor& p : params)
        if (p.name == a.name && (a.kind == ArgKind::param || a.kind == ArgKind::frozen)) t = &p.tensor;
      if (!t) return make_error("mlc internal error: no value for argument '" + a.name + "' of @loss_grad (lbfgs)");
      placed.args.push_back(t);
    }
    return &placed;
  };

  std::optional<MetricsFile> metrics;
  if (!o.metrics_path.empty()) {
    MLC_TRY(metrics, MetricsFile::create(o.metrics_path));
  }
  MLC_TRY(Evaluator evaluator, Evaluator::create(functions.program(), setup.eval_split.num_examples(), setup.eval_batch));
  const int64_t eval_every = o.eval_every.value_or(tc.eval_every);
  Lbfgs<T> lbfgs(tc.optimizer);
  Progress progress(o.progress_bar, setup.total_steps);
  std::vector<double> step_ms;
  TrainSummary summary;
  EpochLoss epoch_loss;
  std::vector<int64_t> order;
  for (int64_t s = setup.start; s < setup.total_steps; ++s) {
    const int64_t epoch = s / setup.steps_per_epoch, i = s % setup.steps_per_epoch;
    if (i == 0 || s == setup.start)
      order = rt::distributed_indices(rt::epoch_order(n, tc.shuffle, setup.seed, epoch), 1, 0, tc.drop_last);
    const int64_t begin = i * setup.batch, end = std::min<int64_t>(static_cast<int64_t>(order.size()), begin + setup.batch);
    MLC_TRY(Closure * c, closure_for(end - begin));
    setup.train_split.gather_into(std::span<const int64_t>(order).subspan(begin, end - begin), c->batch);
    step_tensor.data<int64_t>()[0] = s + 1;
    // The closure: the parameters set to `at`, @loss_grad run, its gradients gathered flat.
    auto evaluate = [&](const std::vector<T>& at, std::vector<T>& grad) -> Expected<T> {
      set_params(at);
      MLC_CHECK_OK(c->fn.run(c->args));
      size_t off = 0;
      for (size_t k = 0; k < trained.size(); ++k) {
        const rt::Tensor& g = c->fn.result(k + 1);
        std::memcpy(grad.data() + off, g.data<T>(), static_cast<size_t>(g.num_bytes()));
        off += static_cast<size_t>(g.num_elements());
      }
      return c->fn.result(0).data<T>()[0];
    };
    const auto t0 = std::chrono::steady_clock::now();
    MLC_TRY(double loss, lbfgs.step(x, evaluate));
    set_params(x);
    step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    progress.step(s + 1, loss);
    summary.final_loss = loss;
    ++summary.steps_run;
    // func_evals: the closure's calls so far, torch's state["func_evals"].
    if (metrics) metrics->write({{"step", s}, {"epoch", epoch}, {"loss", loss}, {"func_evals", lbfgs.func_evals()}});
    epoch_loss.add(loss);
    if (o.on_step) o.on_step(s, loss);
    const bool epoch_end = i == setup.steps_per_epoch - 1 || s + 1 == setup.total_steps;
    const double epoch_mean = epoch_loss.mean();
    if (i == setup.steps_per_epoch - 1) {  // a completed epoch
      const nlohmann::ordered_json record = epoch_loss.finish(epoch);
      if (metrics) metrics->write(record);
    }
    if (epoch_end || (eval_every > 0 && (s + 1) % eval_every == 0)) {
      MLC_TRY(EvalResult r, evaluator.run(setup.eval_split, params));
      if (metrics) metrics->write(eval_record(epoch, s + 1, r));
      summary.eval_loss = r.loss;
      summary.eval_accuracy = r.accuracy;
      summary.eval = r;
      if (epoch_end) progress.epoch(epoch, setup.epochs, epoch_mean, r);
      else progress.eval(s + 1, r);
    }
  }
  if (!step_ms.empty()) {
    summary.mean_step_ms = std::accumulate(step_ms.begin(), step_ms.end(), 0.0) / static_cast<double>(step_ms.size());
    std::sort(step_ms.begin(), step_ms.end());
    summary.median_step_ms = step_ms[step_ms.size() / 2];
  }
  if (metrics) MLC_CHECK_OK(metrics->status());
  if (!o.save_path.empty()) {
    std::vector<std::pair<std::string, const rt::Tensor*>> named;
    for (const rt::NamedTensor& p : params) named.emplace_back(p.name, &p.tensor);
    MLC_CHECK_OK(rt::write_safetensors(o.save_path, named, {{"model", config.name}}));
  }
  summary.memory.push_back(RankMemory{});
  for (const rt::NamedTensor& p : params) summary.memory.back().parameters += p.tensor.num_bytes();
  return summary;
}

}  // namespace

Expected<TrainSummary> train_lbfgs(const TrainSetup& setup, const TrainOptions& o, FunctionCache& functions) {
  return setup.config->dtype == DType::f64 ? train_lbfgs_as<double>(setup, o, functions)
                                           : train_lbfgs_as<float>(setup, o, functions);
}

}  // namespace mlc
