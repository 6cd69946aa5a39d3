#include "tools/train.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "runtime/checkpoint.h"
#include "runtime/interpreter.h"
#include "runtime/safetensors.h"
#include "runtime/sampler.h"
#include "tools/evaluate.h"

namespace mlc {

namespace {

using Clock = std::chrono::steady_clock;

// The functions of one batch size. loss_grad is made only when asked for
// (--dump-grads).
struct BatchFunctions {
  std::optional<StepFunction> train_step, optimizer_init, loss_grad;
};

Expected<BatchFunctions> compile(const Program& program, int64_t batch, bool with_grad, bool profile) {
  BatchFunctions p;
  MLC_TRY(StepFunction step, program.function("train_step", batch));
  if (profile) step.enable_profiling();
  MLC_TRY(StepFunction init, program.function("optimizer_init", batch));
  p.train_step.emplace(std::move(step));
  p.optimizer_init.emplace(std::move(init));
  if (with_grad) {
    MLC_TRY(StepFunction grad, program.function("loss_grad", batch));
    p.loss_grad.emplace(std::move(grad));
  }
  return p;
}

double scalar_value(const rt::Tensor& t) {
  return t.dtype() == DType::f64 ? t.data<double>()[0] : t.data<float>()[0];
}

// Arguments of a compiled function, found by kind and name.
class ArgumentBinder {
 public:
  ArgumentBinder(const ModelConfig& config, std::vector<rt::NamedTensor>& params,
                 std::vector<rt::NamedTensor>& state)
      : config_(config), params_(params), state_(state) {}

  Expected<std::vector<rt::Tensor*>> bind(const Signature& f, std::vector<rt::Tensor>& batch,
                                          rt::Tensor* step) const {
    std::vector<rt::Tensor*> args;
    for (size_t i = 0; i < f.args.size(); ++i) {
      const std::string& name = f.args[i].name;
      rt::Tensor* t = nullptr;
      if (f.args[i].kind == ArgKind::step) {
        t = step;
      } else if (f.args[i].kind == ArgKind::input) {
        for (size_t j = 0; j < config_.inputs.size(); ++j)
          if (config_.inputs[j].name == name) t = &batch[j];
      } else {
        for (auto* list : {&params_, &state_})
          for (rt::NamedTensor& p : *list)
            if (p.name == name) t = &p.tensor;
      }
      if (!t) return make_error("mlc internal error: no value for argument '" + name + "' of @" + f.name);
      args.push_back(t);
    }
    return args;
  }

 private:
  const ModelConfig& config_;
  std::vector<rt::NamedTensor>& params_;
  std::vector<rt::NamedTensor>& state_;
};

std::vector<rt::NamedTensor> state_layout(const Signature& step_fn, std::vector<const rt::Tensor*> values) {
  std::vector<rt::NamedTensor> state;
  size_t k = 0;
  for (const Signature::Arg& a : step_fn.args)
    if (a.kind == ArgKind::state) state.push_back({a.name, rt::Tensor(*values[k++])});
  return state;
}

// Loads the newest checkpoint of `dir` that verifies; warns about the others.
Expected<std::optional<rt::TrainState>> newest_checkpoint(const std::string& dir, const ModelConfig& config,
                                                          const std::vector<rt::NamedTensor>& params,
                                                          const std::vector<rt::NamedTensor>& state) {
  std::vector<std::string> files = rt::list_checkpoints(dir);
  for (const std::string& file : files) {
    auto s = rt::read_checkpoint(file, config.name, params, state);
    if (s) return std::optional<rt::TrainState>(std::move(s).value());
    std::fprintf(stderr, "warning: skipping checkpoint: %s\n", s.error().message.c_str());
  }
  if (!files.empty()) return make_error(dir + ": error: no checkpoint in this directory verifies");
  return std::optional<rt::TrainState>();
}

class Progress {
 public:
  Progress(bool bar, int64_t total) : bar_(bar), total_(total), start_(Clock::now()) {}
  void step(int64_t done, double loss) {
    if (!bar_) return;
    auto now = Clock::now();
    if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    double elapsed = std::chrono::duration<double>(now - start_).count();
    double rate = elapsed > 0 ? done / elapsed : 0;
    double eta = rate > 0 ? (total_ - done) / rate : 0;
    int width = 30, filled = static_cast<int>(width * done / std::max<int64_t>(total_, 1));
    std::fprintf(stderr, "\r[%s%s] %lld/%lld  %.1f steps/s  loss %.4f  ETA %.0fs ",
                 std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(),
                 static_cast<long long>(done), static_cast<long long>(total_), rate, loss, eta);
    if (done == total_) std::fputc('\n', stderr);
  }
  void epoch(int64_t epoch, int64_t epochs, double loss, const std::optional<EvalResult>& eval) {
    if (bar_) std::fputc('\n', stderr);
    std::fprintf(stderr, "epoch %lld/%lld: loss %.5f", static_cast<long long>(epoch + 1),
                 static_cast<long long>(epochs), loss);
    if (eval) {
      std::fprintf(stderr, "  eval loss %.5f", eval->loss);
      if (eval->accuracy) std::fprintf(stderr, "  accuracy %.4f", *eval->accuracy);
    }
    std::fputc('\n', stderr);
  }

 private:
  bool bar_;
  int64_t total_;
  Clock::time_point start_, last_;
};

}  // namespace

// train() without the out-of-memory guard; `stage` says what it is doing.
Expected<TrainSummary> train_stages(const Program& program_source, const TrainOptions& o, std::string& stage) {
  const ModelConfig& config = program_source.config();
  const TrainConfig& tc = config.train;
  if (tc.optimizer.type.empty())
    return make_error(config.path + ": error: the model file has no \"train\": {\"optimizer\": ...}");
  const uint64_t seed = o.seed.value_or(tc.seed);

  // Data.
  stage = "reading the data";
  std::string data_path = o.data_path.empty() ? config.data.file : o.data_path;
  if (data_path.empty())
    return make_error(config.path + ": error: no data file: give \"data\": {\"file\": ...} or --data");
  MLC_TRY(rt::SafetensorsFile data, rt::read_safetensors(data_path));
  MLC_TRY(rt::Split train_split, rt::Split::load(data, config.data.train, config.inputs, "train"));
  MLC_TRY(rt::Split eval_split, rt::Split::load(data, config.data.eval, config.inputs, "eval"));
  const int64_t n = train_split.num_examples(), batch = tc.batch_size;
  const int64_t steps_per_epoch = tc.drop_last ? n / batch : (n + batch - 1) / batch;
  if (steps_per_epoch == 0)
    return make_error(config.path + ": error: the training split has " + std::to_string(n) +
                      " examples, fewer than one batch of " + std::to_string(batch));
  int64_t total_steps = o.steps ? *o.steps
                        : o.epochs ? *o.epochs * steps_per_epoch
                        : tc.steps ? tc.steps : tc.epochs * steps_per_epoch;
  const int64_t epochs = (total_steps + steps_per_epoch - 1) / steps_per_epoch;

  // Programs, parameters, optimizer state.
  stage = "compiling the train step";
  const bool with_grad = !o.dump_grads_path.empty();
  MLC_TRY(BatchFunctions program, compile(program_source, batch, with_grad, o.profile));
  MLC_CHECK_OK(check_class_targets(program_source, train_split, data_path, "train"));
  MLC_CHECK_OK(check_class_targets(program_source, eval_split, data_path, "eval"));
  std::map<int64_t, BatchFunctions> tail_programs;  // last partial batch when !drop_last
  stage = "creating the parameters and optimizer state";
  MLC_CHECK_OK(program.optimizer_init->run({}));
  std::vector<const rt::Tensor*> init_state;
  for (size_t k = 0; k < program.optimizer_init->num_results(); ++k)
    init_state.push_back(&program.optimizer_init->result(k));
  const Signature& step_fn = program.train_step->signature();  // state args in order
  std::vector<rt::NamedTensor> state = state_layout(step_fn, std::move(init_state));
  std::vector<rt::NamedTensor> params;
  if (!o.init_path.empty()) {
    MLC_TRY(params, rt::load_parameters(config.params, o.init_path, &state));
  } else {
    params = rt::init_parameters(config.params, seed);
  }

  int64_t start = o.start_step;
  if (o.resume) {
    if (o.checkpoint_dir.empty()) return make_error("error: --resume needs --checkpoint-dir");
    MLC_TRY(auto ckpt, newest_checkpoint(o.checkpoint_dir, config, params, state));
    if (ckpt) {
      if (ckpt->batch_size != batch || ckpt->steps_per_epoch != steps_per_epoch ||
          ckpt->shuffle != tc.shuffle || ckpt->seed != seed)
        return make_error(o.checkpoint_dir + ": error: the checkpoint was written with other data "
                          "settings (batch, shuffle or seed) than this run");
      start = ckpt->step;
      params = std::move(ckpt->params);
      state = std::move(ckpt->state);
      std::fprintf(stderr, "resuming from step %lld\n", static_cast<long long>(start));
    }
  }
  if (!o.checkpoint_dir.empty()) std::filesystem::create_directories(o.checkpoint_dir);

  std::ofstream metrics;
  if (!o.metrics_path.empty()) {
    metrics.open(o.metrics_path, o.resume && start > 0 ? std::ios::app : std::ios::trunc);
    if (!metrics) return make_error(o.metrics_path + ": error: cannot open for writing");
  }
  auto write_metric = [&](const nlohmann::ordered_json& line) {
    if (metrics.is_open()) metrics << line.dump() << "\n";
  };
  auto checkpoint = [&](int64_t steps_done) -> Status {
    rt::TrainState s{steps_done, seed, batch, steps_per_epoch, tc.shuffle, params, state};
    MLC_CHECK_OK(rt::write_checkpoint(rt::checkpoint_path(o.checkpoint_dir, steps_done), config.name, s));
    rt::prune_checkpoints(o.checkpoint_dir, o.keep_checkpoints);
    return {};
  };

  ArgumentBinder binder(config, params, state);
  Progress progress(o.progress_bar, total_steps);
  TrainSummary summary;
  std::vector<double> step_ms;
  std::vector<int64_t> order;
  int64_t order_epoch = -1;
  const int64_t eval_batch = tc.eval_batch_size > 0 ? tc.eval_batch_size
                                                    : std::min<int64_t>(eval_split.num_examples(), 1024);
  MLC_TRY(Evaluator evaluator, Evaluator::create(program_source, eval_split.num_examples(), eval_batch));
  if (o.profile) evaluator.enable_profiling();
  auto run_eval = [&](int64_t epoch, double last_loss) -> Status {
    MLC_TRY(EvalResult r, evaluator.run(eval_split, params));
    nlohmann::ordered_json eval = {{"loss", r.loss}};
    if (r.accuracy) eval["accuracy"] = *r.accuracy;
    write_metric({{"epoch", epoch}, {"eval", eval}});
    if (metrics.is_open()) metrics.flush();
    progress.epoch(epoch, epochs, last_loss, r);
    summary.eval_loss = r.loss;
    summary.eval_accuracy = r.accuracy;
    return {};
  };

  stage = "training";
  for (int64_t s = start; s < total_steps; ++s) {
    const int64_t epoch = s / steps_per_epoch, i = s % steps_per_epoch;
    if (epoch != order_epoch) {
      order = rt::epoch_order(n, tc.shuffle, seed, epoch);
      order_epoch = epoch;
    }
    int64_t begin = i * batch, end = std::min(n, begin + batch);
    std::vector<rt::Tensor> inputs =
        train_split.gather(std::vector<int64_t>(order.begin() + begin, order.begin() + end));
    BatchFunctions* prog = &program;
    if (end - begin != batch) {
      if (!tail_programs.count(end - begin)) {
        MLC_TRY(BatchFunctions tail, compile(program_source, end - begin, with_grad, o.profile));
        tail_programs.emplace(end - begin, std::move(tail));
      }
      prog = &tail_programs.at(end - begin);
    }
    rt::Tensor step_tensor(DType::i64, {});
    step_tensor.data<int64_t>()[0] = s + 1;

    if (s == start && !o.dump_grads_path.empty()) {
      MLC_TRY(auto args, binder.bind(prog->loss_grad->signature(), inputs, &step_tensor));
      MLC_CHECK_OK(prog->loss_grad->run(args));
      std::vector<std::pair<std::string, const rt::Tensor*>> named;
      size_t g = 1;
      const Signature& gf = prog->loss_grad->signature();
      for (const Signature::Arg& a : gf.args)
        if (a.kind == ArgKind::param) named.emplace_back(a.name, &prog->loss_grad->result(g++));
      MLC_CHECK_OK(rt::write_safetensors(o.dump_grads_path, named, {{"note", "gradients of step " + std::to_string(s)}}));
    }

    auto t0 = Clock::now();
    MLC_TRY(auto args, binder.bind(prog->train_step->signature(), inputs, &step_tensor));
    // Results other than the loss replace {param} and {state} arguments, as
    // the function declares (`{updates = %name}`): run writes them into args.
    MLC_CHECK_OK(prog->train_step->run(args));
    step_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());

    double loss = scalar_value(prog->train_step->result(0));
    summary.final_loss = loss;
    ++summary.steps_run;
    write_metric({{"step", s}, {"epoch", epoch}, {"loss", loss}});
    progress.step(s + 1, loss);
    bool epoch_end = i == steps_per_epoch - 1 || s + 1 == total_steps;
    if (epoch_end) MLC_CHECK_OK(run_eval(epoch, loss));
    if (!o.checkpoint_dir.empty() &&
        ((o.checkpoint_every > 0 && (s + 1) % o.checkpoint_every == 0) || s + 1 == total_steps))
      MLC_CHECK_OK(checkpoint(s + 1));
  }
  if (metrics.is_open()) {
    metrics.flush();
    if (!metrics) return make_error(o.metrics_path + ": error: write failed");
  }
  if (!o.save_path.empty()) {
    std::vector<std::pair<std::string, const rt::Tensor*>> named;
    for (const rt::NamedTensor& p : params) named.emplace_back(p.name, &p.tensor);
    MLC_CHECK_OK(rt::write_safetensors(o.save_path, named, {{"model", config.name}}));
  }
  if (!step_ms.empty()) {
    std::sort(step_ms.begin(), step_ms.end());
    summary.median_step_ms = step_ms[step_ms.size() / 2];
  }
  if (o.profile) {
    if (auto p = function_profile(*program.train_step, batch)) summary.profiles.push_back(std::move(*p));
    for (const auto& [size, tail] : tail_programs)
      if (auto p = function_profile(*tail.train_step, size)) summary.profiles.push_back(std::move(*p));
    for (FunctionProfile& p : evaluator.profiles()) summary.profiles.push_back(std::move(p));
  }
  return summary;
}

Expected<TrainSummary> train(const Program& program, const TrainOptions& o) {
  std::string stage = "starting";
  try {
    return train_stages(program, o, stage);
  } catch (const std::bad_alloc&) {
  } catch (const std::length_error&) {
  }
  return make_error(program.path() + ": error: out of memory while " + stage);
}

Expected<TrainSummary> train(const ModelFile& model, const TrainOptions& o) {
  return train(Program::from_model(model, o.backend), o);
}

}  // namespace mlc
