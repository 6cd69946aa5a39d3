#include "driver/step_function.h"

namespace mlc {

std::optional<Backend> parse_backend(std::string_view name) {
  if (name == "compiled") return Backend::compiled;
  if (name == "interp") return Backend::interp;
  return std::nullopt;
}

Signature Signature::of(const Function& f) {
  Signature s;
  s.name = f.name;
  for (size_t i = 0; i < f.args.size(); ++i)
    s.args.push_back({f.args[i]->name, f.args[i]->type, f.arg_kinds[i], f.args[i]->placements});
  for (size_t k = 0; k < f.results.size(); ++k) s.results.push_back({f.results[k]->type, f.updated_arg(k)});
  return s;
}

Signature Signature::of(const rt::Executable& e) {
  Signature s;
  s.name = e.function;
  for (const rt::ArgSpec& a : e.args) s.args.push_back({a.name, e.slots[a.slot].type, a.kind, a.placements});
  for (const rt::ResultSpec& r : e.results) s.results.push_back({e.slots[r.slot].type, r.updates});
  return s;
}

Expected<rt::Executor> StepFunction::make_executor() const {
  auto x = rt::Executor::create(exe_, options_);
  if (!x && !file_.empty()) return make_error(file_ + ": error: " + x.error().message);
  return x;
}

Expected<StepFunction> StepFunction::create(const Function& f, Backend backend, const std::string& file,
                                            const Device& device) {
  StepFunction s;
  s.file_ = file;
  s.options_ = device.executor;
  if (backend == Backend::interp) {
    MLC_TRY(rt::Interpreter interp, rt::Interpreter::create(f));
    s.signature_ = Signature::of(interp.function());
    s.interp_ = std::make_shared<const rt::Interpreter>(std::move(interp));
  } else {
    // Compiled kernels are cached across runs (compiler/kernel_cache.h).
    static const std::optional<KernelCache> cache = KernelCache::from_environment();
    LowerOptions options;
    options.cache = cache ? &*cache : nullptr;
    options.target = device.target;
    options.arch = device.arch;
    options.gemm_epilogues = device.gemm_epilogues;
    MLC_TRY(LoweredFunction lowered, lower_function(f, options));
    s.signature_ = Signature::of(f);
    s.exe_ = lowered.executable;
    MLC_TRY(rt::Executor exe, s.make_executor());
    s.executor_.emplace(std::move(exe));
    s.lowered_ = std::make_shared<LoweredFunction>(std::move(lowered));
  }
  s.result_ptrs_.assign(s.signature_.results.size(), nullptr);
  return s;
}

Expected<StepFunction> StepFunction::create(std::shared_ptr<const rt::Executable> exe, const std::string& file,
                                            const rt::ExecutorOptions& options) {
  StepFunction s;
  s.file_ = file;
  s.options_ = options;
  s.signature_ = Signature::of(*exe);
  s.exe_ = std::move(exe);
  MLC_TRY(rt::Executor x, s.make_executor());
  s.executor_.emplace(std::move(x));
  s.result_ptrs_.assign(s.signature_.results.size(), nullptr);
  return s;
}

StepFunction StepFunction::code() const {
  StepFunction s;
  s.signature_ = signature_;
  s.file_ = file_;
  s.options_ = options_;
  s.interp_ = interp_;
  s.lowered_ = lowered_;
  s.exe_ = exe_;
  s.result_ptrs_.assign(signature_.results.size(), nullptr);
  return s;
}

Expected<StepFunction> StepFunction::replica() const {
  StepFunction s = code();
  if (exe_) {
    MLC_TRY(rt::Executor x, make_executor());
    s.executor_.emplace(std::move(x));
  }
  return s;
}

void StepFunction::set_world(rt::World* world) {
  world_ = world;
  if (executor_) executor_->set_world(world);
}

Status StepFunction::set_device_tensors(rt::DeviceTensors* tensors) {
  if (executor_) return executor_->set_device_tensors(tensors);
  if (tensors && interp_ && !tensors->empty())
    return make_error("mlc internal error: @" + signature_.name + " runs on the interpreter, which cannot read device copies");
  return {};
}

std::shared_ptr<const rt::Executable> StepFunction::executable() const {
  return exe_;
}

void StepFunction::enable_profiling() {
  if (executor_) executor_->enable_profiling();
}

const rt::ExecutionProfile* StepFunction::profile() const { return executor_ ? executor_->profile() : nullptr; }

Status StepFunction::run(std::span<rt::Tensor* const> args) {
  MLC_CHECK_OK(start(args));
  return finish();
}

Status StepFunction::finish() {
  if (!executor_) return {};  // the interpreter ran in start
  MLC_CHECK_OK(executor_->finish());
  for (size_t k = 0; k < result_ptrs_.size(); ++k) result_ptrs_[k] = &executor_->result(k);
  return {};
}

Status StepFunction::start(std::span<rt::Tensor* const> args) {
  if (executor_) return executor_->start(args);
  if (!interp_) return make_error("mlc internal error: @" + signature_.name + " run from its code alone (StepFunction::code)");
  std::vector<const rt::Tensor*> in(args.begin(), args.end());
  MLC_TRY(interp_results_, interp_->run(in, world_));
  for (size_t k = 0; k < result_ptrs_.size(); ++k) {
    int a = signature_.results[k].updates;
    if (a >= 0) {
      *args[a] = std::move(interp_results_[k]);
      result_ptrs_[k] = args[a];
    } else {
      result_ptrs_[k] = &interp_results_[k];
    }
  }
  return {};
}

const rt::Tensor& StepFunction::result(size_t k) const { return *result_ptrs_[k]; }

}  // namespace mlc
