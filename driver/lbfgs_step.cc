#include "driver/lbfgs_step.h"

#include <cmath>

namespace mlc {

namespace {

template <typename T>
T dot(const std::vector<T>& a, const std::vector<T>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return static_cast<T>(sum);
}

template <typename T>
T abs_max(const std::vector<T>& a) {
  T m = 0;
  for (T v : a) m = std::fmax(m, std::fabs(v));
  return m;
}

// v += alpha * w, as torch's vectorized add_(w, alpha=alpha): fmadd(w, alpha, v).
template <typename T>
void add_scaled(std::vector<T>& v, const std::vector<T>& w, T alpha) {
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::fma(w[i], alpha, v[i]);
}

}  // namespace

template <typename T>
Expected<double> Lbfgs<T>::step(std::vector<T>& x, const Closure& closure) {
  // A tensor compared with a Python float: the float rounded to the tensor's dtype.
  auto as_t = [](double v) { return static_cast<T>(v); };
  const OptimizerConfig& c = config_;
  const int64_t max_eval = c.max_eval > 0 ? c.max_eval : c.max_iter * 5 / 4;
  std::vector<T> flat_grad(x.size());
  MLC_TRY(T first, closure(x, flat_grad));
  const double orig_loss = first;
  double loss = first;
  int64_t current_evals = 1;
  func_evals_ += 1;
  bool opt_cond = abs_max(flat_grad) <= as_t(c.tolerance_grad);
  if (opt_cond) return orig_loss;
  if (al_.size() != static_cast<size_t>(c.history_size)) al_.assign(static_cast<size_t>(c.history_size), T(0));

  int64_t n_iter = 0;
  while (n_iter < c.max_iter) {
    ++n_iter;
    ++n_iter_;
    if (n_iter_ == 1) {
      d_.resize(flat_grad.size());
      for (size_t i = 0; i < d_.size(); ++i) d_[i] = -flat_grad[i];
      old_dirs_.clear();
      old_stps_.clear();
      ro_.clear();
      h_diag_ = 1;
    } else {
      std::vector<T> y(flat_grad.size()), s(flat_grad.size());
      const T t = static_cast<T>(t_.v);
      for (size_t i = 0; i < y.size(); ++i) {
        y[i] = flat_grad[i] - prev_flat_grad_[i];
        s[i] = d_[i] * t;
      }
      const T ys = dot(y, s);
      if (ys > as_t(1e-10)) {
        if (static_cast<int64_t>(old_dirs_.size()) == c.history_size) {
          old_dirs_.pop_front();
          old_stps_.pop_front();
          ro_.pop_front();
        }
        const T yy = dot(y, y);
        old_dirs_.push_back(std::move(y));
        old_stps_.push_back(std::move(s));
        ro_.push_back(T(1) / ys);
        h_diag_ = ys / yy;
      }
      // The two-loop recursion: d = H g's approximation, negated.
      const size_t num_old = old_dirs_.size();
      std::vector<T> q(flat_grad.size());
      for (size_t i = 0; i < q.size(); ++i) q[i] = -flat_grad[i];
      for (size_t i = num_old; i-- > 0;) {
        al_[i] = dot(old_stps_[i], q) * ro_[i];
        add_scaled(q, old_dirs_[i], -al_[i]);
      }
      for (T& v : q) v *= h_diag_;
      for (size_t i = 0; i < num_old; ++i) {
        const T be_i = dot(old_dirs_[i], q) * ro_[i];
        add_scaled(q, old_stps_[i], al_[i] - be_i);
      }
      d_ = std::move(q);
    }
    prev_flat_grad_ = flat_grad;
    prev_loss_ = loss;
    // The first iteration's step: min(1, 1 / sum|g|) * lr, a tensor where 1 / sum|g| < 1.
    if (n_iter_ == 1) {
      double sum = 0;
      for (T v : flat_grad) sum += std::fabs(v);
      const TorchScalar inv = TorchScalar::of<T>(T(1) / static_cast<T>(sum));
      t_ = (inv < TorchScalar::py(1.0) ? inv : TorchScalar::py(1.0)) * TorchScalar::py(c.lr);
    } else {
      t_ = TorchScalar::py(c.lr);
    }
    const T gtd = dot(flat_grad, d_);
    if (gtd > as_t(-c.tolerance_change)) break;

    int64_t ls_func_evals = 0;
    if (c.line_search_fn == "strong_wolfe") {
      const std::vector<T> x_init = x;
      std::vector<T> x_try;
      DirectionalEvaluate<T> directional = [&](TorchScalar t, std::vector<T>& grad) -> Expected<T> {
        x_try = x_init;
        add_scaled(x_try, d_, static_cast<T>(t.v));
        return closure(x_try, grad);
      };
      MLC_TRY(LineSearch<T> ls, strong_wolfe<T>(directional, t_, d_, static_cast<T>(loss), flat_grad,
                                                TorchScalar::of<T>(gtd), c.tolerance_change));
      loss = ls.loss;
      flat_grad = std::move(ls.grad);
      t_ = ls.t;
      ls_func_evals = ls.evals;
      add_scaled(x, d_, static_cast<T>(t_.v));
      opt_cond = abs_max(flat_grad) <= as_t(c.tolerance_grad);
    } else {
      add_scaled(x, d_, static_cast<T>(t_.v));
      if (n_iter != c.max_iter) {
        MLC_TRY(T l, closure(x, flat_grad));
        loss = l;
        opt_cond = abs_max(flat_grad) <= as_t(c.tolerance_grad);
        ls_func_evals = 1;
      }
    }
    current_evals += ls_func_evals;
    func_evals_ += ls_func_evals;
    if (n_iter == c.max_iter || current_evals >= max_eval || opt_cond) break;
    T step_max = 0;  // |d * t|'s max
    for (T v : d_) step_max = std::fmax(step_max, std::fabs(v * static_cast<T>(t_.v)));
    if (step_max <= as_t(c.tolerance_change)) break;
    if (std::fabs(loss - prev_loss_) < c.tolerance_change) break;
  }
  return orig_loss;
}

template class Lbfgs<float>;
template class Lbfgs<double>;

}  // namespace mlc
