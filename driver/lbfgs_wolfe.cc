#include "driver/lbfgs_wolfe.h"

#include <cmath>

namespace mlc {

namespace {
float as_f32(TorchScalar a) { return static_cast<float>(a.v); }
bool any_tensor(TorchScalar a, TorchScalar b) { return a.tensor || b.tensor; }
bool any_wide(TorchScalar a, TorchScalar b) { return a.wide || b.wide; }

template <typename T>
T dot(const std::vector<T>& a, const std::vector<T>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return static_cast<T>(sum);
}

// Python's min and max of two: the first unless the second is strictly beyond it.
TorchScalar py_min(TorchScalar a, TorchScalar b) { return b < a ? b : a; }
TorchScalar py_max(TorchScalar a, TorchScalar b) { return b > a ? b : a; }
TorchScalar sqrt(TorchScalar a) {
  return a.wide ? TorchScalar::f64(std::sqrt(a.v)) : TorchScalar::f32(std::sqrt(as_f32(a)));
}

TorchScalar py(double v) { return TorchScalar::py(v); }

// torch's _cubic_interpolate: the minimizer of the cubic through (x1, f1, g1), (x2, f2, g2) within the bounds.
TorchScalar cubic_interpolate(TorchScalar x1, TorchScalar f1, TorchScalar g1, TorchScalar x2, TorchScalar f2,
                              TorchScalar g2, TorchScalar lo, TorchScalar hi) {
  TorchScalar d1 = g1 + g2 - py(3) * (f1 - f2) / (x1 - x2);
  TorchScalar d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= py(0)) {
    TorchScalar d2 = sqrt(d2_square);
    TorchScalar min_pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + py(2) * d2))
                                   : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + py(2) * d2));
    return py_min(py_max(min_pos, lo), hi);
  }
  return (lo + hi) / py(2.);
}

TorchScalar cubic_interpolate(TorchScalar x1, TorchScalar f1, TorchScalar g1, TorchScalar x2, TorchScalar f2,
                              TorchScalar g2) {
  const bool ordered = x1 <= x2;
  return cubic_interpolate(x1, f1, g1, x2, f2, g2, ordered ? x1 : x2, ordered ? x2 : x1);
}
}  // namespace

// An op with an f64 tensor is f64 arithmetic: a Python float's value is already one.
TorchScalar operator+(TorchScalar a, TorchScalar b) {
  if (any_wide(a, b)) return TorchScalar::f64(a.v + b.v);
  return any_tensor(a, b) ? TorchScalar::f32(as_f32(a) + as_f32(b)) : py(a.v + b.v);
}
TorchScalar operator-(TorchScalar a, TorchScalar b) {
  if (any_wide(a, b)) return TorchScalar::f64(a.v - b.v);
  return any_tensor(a, b) ? TorchScalar::f32(as_f32(a) - as_f32(b)) : py(a.v - b.v);
}
TorchScalar operator*(TorchScalar a, TorchScalar b) {
  if (any_wide(a, b)) return TorchScalar::f64(a.v * b.v);
  return any_tensor(a, b) ? TorchScalar::f32(as_f32(a) * as_f32(b)) : py(a.v * b.v);
}
TorchScalar operator/(TorchScalar a, TorchScalar b) {
  if (any_wide(a, b)) return b.tensor && !a.tensor ? TorchScalar::f64((1.0 / b.v) * a.v) : TorchScalar::f64(a.v / b.v);
  if (!b.tensor) return a.tensor ? TorchScalar::f32(as_f32(a) / as_f32(b)) : py(a.v / b.v);
  if (!a.tensor) return TorchScalar::f32((1.0f / as_f32(b)) * as_f32(a));  // Tensor.__rtruediv__
  return TorchScalar::f32(as_f32(a) / as_f32(b));
}
bool operator<(TorchScalar a, TorchScalar b) {
  return any_tensor(a, b) && !any_wide(a, b) ? as_f32(a) < as_f32(b) : a.v < b.v;
}
bool operator<=(TorchScalar a, TorchScalar b) {
  return any_tensor(a, b) && !any_wide(a, b) ? as_f32(a) <= as_f32(b) : a.v <= b.v;
}
TorchScalar abs(TorchScalar a) { return {std::fabs(a.v), a.tensor, a.wide}; }

template <typename T>
Expected<LineSearch<T>> strong_wolfe(const DirectionalEvaluate<T>& obj, TorchScalar t, const std::vector<T>& d, T f0,
                                     const std::vector<T>& g, TorchScalar gtd, double tolerance_change) {
  const TorchScalar c1 = py(1e-4), neg_c2 = py(-0.9), f = py(f0);
  constexpr int max_ls = 25;
  T d_max = 0;
  for (T v : d) d_max = std::fmax(d_max, std::fabs(v));
  const TorchScalar d_norm = TorchScalar::of<T>(d_max);
  std::vector<T> g_new(g.size());
  MLC_TRY(T loss, obj(t, g_new));
  TorchScalar f_new = py(loss);
  int64_t evals = 1;
  TorchScalar gtd_new = TorchScalar::of<T>(dot(g_new, d));
  TorchScalar t_prev = py(0), f_prev = f, gtd_prev = gtd;
  std::vector<T> g_prev = g;
  bool done = false;
  int ls_iter = 0;
  TorchScalar bracket[2], bracket_f[2], bracket_gtd[2];
  std::vector<T> bracket_g[2];
  int size = 0;  // the bracket's points
  // The trial at `t`: its loss, gradient and directional derivative.
  auto trial = [&](TorchScalar at) -> Status {
    MLC_TRY(T l, obj(at, g_new));
    f_new = py(l);
    ++evals;
    gtd_new = TorchScalar::of<T>(dot(g_new, d));
    ++ls_iter;
    return {};
  };
  auto bracket_last_two = [&] {
    bracket[0] = t_prev, bracket[1] = t, bracket_f[0] = f_prev, bracket_f[1] = f_new;
    bracket_g[0] = g_prev, bracket_g[1] = g_new, bracket_gtd[0] = gtd_prev, bracket_gtd[1] = gtd_new;
    size = 2;
  };
  while (ls_iter < max_ls) {
    if (f_new > f + c1 * t * gtd || (ls_iter > 1 && f_new >= f_prev)) {
      bracket_last_two();
      break;
    }
    if (abs(gtd_new) <= neg_c2 * gtd) {
      bracket[0] = t, bracket_f[0] = f_new, bracket_g[0] = g_new;
      size = 1;
      done = true;
      break;
    }
    if (gtd_new >= py(0)) {
      bracket_last_two();
      break;
    }
    // Interpolate between the last two points, within [t + 0.01 (t - t_prev), 10 t].
    const TorchScalar min_step = t + py(0.01) * (t - t_prev), max_step = t * py(10);
    const TorchScalar tmp = t;
    t = cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, min_step, max_step);
    t_prev = tmp;
    f_prev = f_new;
    g_prev = g_new;
    gtd_prev = gtd_new;
    MLC_CHECK_OK(trial(t));
  }
  if (ls_iter == max_ls) {
    bracket[0] = py(0), bracket[1] = t, bracket_f[0] = f, bracket_f[1] = f_new, bracket_g[0] = g, bracket_g[1] = g_new;
    size = 2;
  }
  // Zoom: shrink the bracket until a point satisfies the strong Wolfe conditions.
  bool insuf_progress = false;
  int low = 0, high = 1;
  if (size == 2 && !(bracket_f[0] <= bracket_f[1])) low = 1, high = 0;
  while (!done && ls_iter < max_ls) {
    if (abs(bracket[1] - bracket[0]) * d_norm < py(tolerance_change)) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    const TorchScalar hi = py_max(bracket[0], bracket[1]), lo = py_min(bracket[0], bracket[1]);
    const TorchScalar eps = py(0.1) * (hi - lo);
    if (py_min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = abs(t - hi) < abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    MLC_CHECK_OK(trial(t));
    if (f_new > f + c1 * t * gtd || f_new >= bracket_f[low]) {
      bracket[high] = t, bracket_f[high] = f_new, bracket_g[high] = g_new, bracket_gtd[high] = gtd_new;
      if (bracket_f[0] <= bracket_f[1]) low = 0, high = 1;
      else low = 1, high = 0;
    } else {
      if (abs(gtd_new) <= neg_c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= py(0)) {
        bracket[high] = bracket[low], bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low], bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t, bracket_f[low] = f_new, bracket_g[low] = g_new, bracket_gtd[low] = gtd_new;
    }
  }
  return LineSearch<T>{static_cast<T>(bracket_f[low].v), std::move(bracket_g[low]), bracket[low], evals};
}

template Expected<LineSearch<float>> strong_wolfe(const DirectionalEvaluate<float>&, TorchScalar,
                                                  const std::vector<float>&, float, const std::vector<float>&,
                                                  TorchScalar, double);
template Expected<LineSearch<double>> strong_wolfe(const DirectionalEvaluate<double>&, TorchScalar,
                                                   const std::vector<double>&, double, const std::vector<double>&,
                                                   TorchScalar, double);

}  // namespace mlc
