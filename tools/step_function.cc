#include "tools/step_function.h"

namespace mlc {

std::optional<Backend> parse_backend(std::string_view name) {
  if (name == "compiled") return Backend::compiled;
  if (name == "interp") return Backend::interp;
  return std::nullopt;
}

Expected<StepFunction> StepFunction::create(const Function& f, Backend backend) {
  StepFunction s;
  if (backend == Backend::interp) {
    MLC_TRY(rt::Interpreter interp, rt::Interpreter::create(f));
    s.function_ = interp.function().clone();
    s.interp_.emplace(std::move(interp));
  } else {
    // Compiled kernels are cached across runs (compiler/kernel_cache.h).
    static const std::optional<KernelCache> cache = KernelCache::from_environment();
    LowerOptions options;
    options.cache = cache ? &*cache : nullptr;
    MLC_TRY(LoweredFunction lowered, lower_function(f, options));
    s.function_ = f.clone();
    MLC_TRY(rt::Executor exe, rt::Executor::create(lowered.executable));
    s.executor_.emplace(std::move(exe));
    s.lowered_ = std::make_shared<LoweredFunction>(std::move(lowered));
  }
  s.result_ptrs_.assign(s.function_->results.size(), nullptr);
  return s;
}

Status StepFunction::run(std::span<rt::Tensor* const> args) {
  if (executor_) {
    MLC_CHECK_OK(executor_->run(args));
    for (size_t k = 0; k < result_ptrs_.size(); ++k) result_ptrs_[k] = &executor_->result(k);
    return {};
  }
  std::vector<const rt::Tensor*> in(args.begin(), args.end());
  MLC_TRY(interp_results_, interp_->run(in));
  for (size_t k = 0; k < result_ptrs_.size(); ++k) {
    int a = function_->updated_arg(k);
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
