// A function of the model, ready to run on a backend: compiled (lowered to an
// executable with native kernels, compiler/lower.h, run by rt::Executor) or
// interp (the reference interpreter, the oracle).
//
// Contract of run(args): one tensor per argument of the function, of the
// declared types. Results that update an argument (`{updates = %name}`) are
// in that argument's tensor afterwards (written in place by the compiled
// backend; replaced by the interpreter); result(k) is every result's value,
// valid until the next run.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/lower.h"
#include "runtime/executor.h"
#include "runtime/interpreter.h"

namespace mlc {

enum class Backend { compiled, interp };
// "compiled" or "interp"; nullopt for anything else.
std::optional<Backend> parse_backend(std::string_view name);

class StepFunction {
 public:
  static Expected<StepFunction> create(const Function& f, Backend backend);

  // The function as compiled (attribute defaults filled, composites decomposed
  // for interp): names, kinds and the calling convention of its arguments.
  const Function& function() const { return *function_; }
  Status run(std::span<rt::Tensor* const> args);
  const rt::Tensor& result(size_t k) const;
  size_t num_results() const { return function_->results.size(); }
  // The compiled backend's lowering (memory plan, kernels); null for interp.
  const LoweredFunction* lowered() const { return lowered_.get(); }

 private:
  std::unique_ptr<Function> function_;
  std::optional<rt::Interpreter> interp_;
  std::optional<rt::Executor> executor_;
  std::shared_ptr<LoweredFunction> lowered_;
  std::vector<rt::Tensor> interp_results_;
  std::vector<const rt::Tensor*> result_ptrs_;
};

}  // namespace mlc
