#include "runtime/init_fill.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace mlc::rt {

namespace {
// ATen's calc_erfinv: a rational first guess, then two Newton steps; the
// polynomials' multiply-adds fused as torch's AVX2 build compiles them (its
// erfinv_ kernel is scalar code built with FMA). The other operations are
// separate roundings (x86-64 without FMA contraction, the project's build).
template <typename T>
T calc_erfinv(T y) {
  constexpr T kCentral = 0.7;
  const T a[4] = {0.886226899, -1.645349621, 0.914624893, -0.140543331};
  const T b[4] = {-2.118377725, 1.442710462, -0.329097515, 0.012229801};
  const T c[4] = {-1.970840454, -1.624906493, 3.429567803, 1.641345311};
  const T d[2] = {3.543889200, 1.637067800};
  const T y_abs = std::abs(y);
  if (y_abs > 1) return std::numeric_limits<T>::quiet_NaN();
  if (y_abs == 1) return std::copysign(std::numeric_limits<T>::infinity(), y);
  T x;
  if (y_abs <= kCentral) {
    const T z = y * y;
    const T num = std::fma(std::fma(std::fma(a[3], z, a[2]), z, a[1]), z, a[0]);
    const T dem = std::fma(std::fma(std::fma(std::fma(b[3], z, b[2]), z, b[1]), z, b[0]), z, static_cast<T>(1.0));
    x = y * num / dem;
  } else {
    const T z = std::sqrt(-std::log((static_cast<T>(1.0) - y_abs) / static_cast<T>(2.0)));
    const T num = std::fma(std::fma(std::fma(c[3], z, c[2]), z, c[1]), z, c[0]);
    const T dem = std::fma(std::fma(d[1], z, d[0]), z, static_cast<T>(1.0));
    x = std::copysign(num, y) / dem;
  }
  const T two_over_sqrt_pi = static_cast<T>(2.0) / static_cast<T>(std::sqrt(std::numbers::pi));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  x = x - (std::erf(x) - y) / (two_over_sqrt_pi * std::exp(-x * x));
  return x;
}

// torch.nn.init.trunc_normal_ (1.13): uniform_ over [2l-1, 2u-1] with l, u the
// normal CDF at the bounds, erfinv_, mul_(std * sqrt(2)), add_(mean), clamp_.
void trunc_normal(std::span<float> out, const ParamInit& init, TorchGenerator& gen) {
  auto cdf = [](double x) { return (1. + std::erf(x / std::sqrt(2.))) / 2.; };
  const double l = cdf((init.low - init.mean) / init.stddev), u = cdf((init.high - init.mean) / init.stddev);
  gen.uniform_(out, 2 * l - 1, 2 * u - 1);
  // mul_ and add_ by Python floats: float scalars, two roundings.
  const float scale = static_cast<float>(init.stddev * std::sqrt(2.)), mean = static_cast<float>(init.mean);
  const float low = static_cast<float>(init.low), high = static_cast<float>(init.high);
  for (float& x : out) x = std::clamp(calc_erfinv(x) * scale + mean, low, high);
}

// torch.nn.init.orthogonal_: normal_ on [rows, cols], Q of its QR (of the
// transpose when rows < cols) with R's diagonal made positive, times gain.
void orthogonal(std::span<float> out, const Shape& shape, double gain, TorchGenerator& gen) {
  if (out.empty()) return;
  const int64_t rows = shape.at(0), cols = static_cast<int64_t>(out.size()) / rows;
  std::vector<float> flat(out.size());
  gen.normal_(flat, 0, 1);
  const bool transposed = rows < cols;
  const int64_t m = transposed ? cols : rows, n = transposed ? rows : cols;  // A is m x n, m >= n
  std::vector<double> q(static_cast<size_t>(m * n));                         // column j at q[j*m ...]
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const double v = flat[static_cast<size_t>(i * cols + j)];
      if (transposed) q[static_cast<size_t>(i * m + j)] = v;  // A = flat^T: column i is row i
      else q[static_cast<size_t>(j * m + i)] = v;
    }
  // Modified Gram-Schmidt, each column orthogonalized twice: the Q whose R has
  // a positive diagonal.
  for (int64_t j = 0; j < n; ++j) {
    double* qj = &q[static_cast<size_t>(j * m)];
    for (int pass = 0; pass < 2; ++pass)
      for (int64_t k = 0; k < j; ++k) {
        const double* qk = &q[static_cast<size_t>(k * m)];
        double dot = 0;
        for (int64_t i = 0; i < m; ++i) dot += qk[i] * qj[i];
        for (int64_t i = 0; i < m; ++i) qj[i] -= dot * qk[i];
      }
    double norm = 0;
    for (int64_t i = 0; i < m; ++i) norm += qj[i] * qj[i];
    norm = std::sqrt(norm);
    for (int64_t i = 0; i < m; ++i) qj[i] /= norm;
  }
  const float g = static_cast<float>(gain);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) {
      const double v = transposed ? q[static_cast<size_t>(i * m + j)] : q[static_cast<size_t>(j * m + i)];
      out[static_cast<size_t>(i * cols + j)] = static_cast<float>(v) * g;
    }
}
}  // namespace

void fill_init(std::span<float> out, const Shape& shape, const ParamInit& init, TorchGenerator& gen) {
  switch (init.kind) {
    case ParamInit::Kind::kaiming_uniform: {
      // torch.nn.init.kaiming_uniform_(a=sqrt(5)), computed as torch does.
      const double gain = std::sqrt(2.0 / (1 + 5.0));
      const double bound = std::sqrt(3.0) * (gain / std::sqrt(init.fan_in));
      gen.uniform_(out, -bound, bound);
      break;
    }
    case ParamInit::Kind::uniform:
      gen.uniform_(out, -init.bound, init.bound);
      break;
    case ParamInit::Kind::uniform_range:
      gen.uniform_(out, init.low, init.high);
      break;
    case ParamInit::Kind::normal:
      gen.normal_(out, init.mean, init.stddev);
      break;
    case ParamInit::Kind::trunc_normal:
      trunc_normal(out, init, gen);
      break;
    case ParamInit::Kind::orthogonal:
      orthogonal(out, shape, init.gain, gen);
      break;
    case ParamInit::Kind::ones:
      std::fill(out.begin(), out.end(), 1.0f);
      break;
    case ParamInit::Kind::zeros:
      std::fill(out.begin(), out.end(), 0.0f);
      break;
    case ParamInit::Kind::constant:
      std::fill(out.begin(), out.end(), static_cast<float>(init.value));
      break;
  }
}

}  // namespace mlc::rt
