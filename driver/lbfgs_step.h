// torch.optim.LBFGS.step(closure) (torch 1.13, line_search_fn None or
// "strong_wolfe", driver/lbfgs_wolfe.h) on the
// host, over the parameters as one flat f32 vector (PyTorch's
// _gather_flat_grad order: the {param} arguments of @loss_grad in order).
//
// The arithmetic is torch's where it decides a value: every vector op is f32
// (y = g - g_prev, s = d * t, q and r of the two-loop recursion, x += t * d
// as one fused multiply-add per element, as the vectorized `add_(alpha=)`
// does), scalars that torch keeps as f32 tensors (ys, ro, H_diag, the
// alphas, gtd) are f32, the loss and the lr are doubles, and tolerances are
// compared in f32 against f32 tensors. Dot products and |g|'s sum are
// accumulated in f64 and rounded to f32 once: torch's BLAS order is not
// reproducible, and these differ from it by about an f32 ulp. T is the
// parameters' dtype: float, or double for an f64 model (model.double()),
// whose tensors and tensor scalars are then f64 throughout.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include "ir/expected.h"
#include "ir/model_config.h"
#include "driver/lbfgs_wolfe.h"

namespace mlc {

template <typename T>
class Lbfgs {
 public:
  // The loss at `x` (torch's float(closure())), writing the gradient into `grad`.
  using Closure = std::function<Expected<T>(const std::vector<T>& x, std::vector<T>& grad)>;

  explicit Lbfgs(const OptimizerConfig& config) : config_(config) {}

  // One optimizer step from `x`, updated in place: up to max_iter
  // iterations and max_eval closure calls. Returns the closure's first loss
  // (what torch's step returns). The history persists across steps.
  Expected<double> step(std::vector<T>& x, const Closure& closure);

  int64_t func_evals() const { return func_evals_; }  // closure calls over all steps
  int64_t n_iter() const { return n_iter_; }          // iterations over all steps

 private:
  OptimizerConfig config_;
  std::vector<T> d_, prev_flat_grad_;
  TorchScalar t_;  // the last step: a Python float or, after some steps, a tensor
  double prev_loss_ = 0;
  std::deque<std::vector<T>> old_dirs_, old_stps_;
  std::deque<T> ro_;
  std::vector<T> al_;
  T h_diag_ = 1;
  int64_t func_evals_ = 0, n_iter_ = 0;
};

}  // namespace mlc
