// Window kernels: max_pool2d and avg_pool2d over [N, C, H, W].
//
// max_pool2d: padding is -inf (never selected unless a whole window is
// padding); a NaN in the window wins (the first one); otherwise the first
// maximal element in row-major window order.
// avg_pool2d: zero padding; every dtype sums in double and rounds once. The
// divisor is, as in PyTorch (ceil_mode off): with count_include_pad, the
// window's area clipped to the padded input (= KH*KW); without it, the number
// of non-padding elements in the window.
#include <algorithm>
#include <cmath>
#include <limits>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

struct PoolDims {
  int64_t planes, h, w, oh, ow;  // planes = N*C
  int64_t kh, kw, sh, sw, ph, pw;
};

PoolDims pool_dims(const Op& op, const Tensor& x, const Tensor& y) {
  const auto& k = op.attrs.get_ints("kernel");
  const auto& s = op.attrs.get_ints("stride");
  const auto& p = op.attrs.get_ints("padding");
  const Shape& xs = x.shape();
  return PoolDims{xs[0] * xs[1], xs[2], xs[3], y.shape()[2], y.shape()[3],
                  k[0], k[1], s[0], s[1], p[0], p[1]};
}

// Calls f(plane, oy, ox, y0, y1, x0, x1) for each output element with the
// window's rows [y0, y1) and columns [x0, x1) clipped to the input.
template <class F>
void for_each_window(const PoolDims& d, F f) {
  for (int64_t p = 0; p < d.planes; ++p)
    for (int64_t oy = 0; oy < d.oh; ++oy) {
      int64_t ys = oy * d.sh - d.ph;
      int64_t y0 = std::max<int64_t>(ys, 0), y1 = std::min(ys + d.kh, d.h);
      for (int64_t ox = 0; ox < d.ow; ++ox) {
        int64_t xs = ox * d.sw - d.pw;
        int64_t x0 = std::max<int64_t>(xs, 0), x1 = std::min(xs + d.kw, d.w);
        f(p, oy, ox, y0, y1, x0, x1);
      }
    }
}

template <class T>
void max_pool(const PoolDims& d, const T* x, T* y) {
  using C = Compute<T>;
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    const T* plane = x + p * d.h * d.w;
    C best = -std::numeric_limits<C>::infinity();
    bool found_nan = false;
    for (int64_t i = y0; i < y1 && !found_nan; ++i)
      for (int64_t j = x0; j < x1; ++j) {
        C v = load(plane[i * d.w + j]);
        if (std::isnan(v)) {
          best = v;
          found_nan = true;
          break;
        }
        if (v > best) best = v;
      }
    y[(p * d.oh + oy) * d.ow + ox] = store<T>(best);
  });
}

template <class T>
void avg_pool(const PoolDims& d, bool count_include_pad, const T* x, T* y) {
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    const T* plane = x + p * d.h * d.w;
    double sum = 0;
    for (int64_t i = y0; i < y1; ++i)
      for (int64_t j = x0; j < x1; ++j) sum += static_cast<double>(load(plane[i * d.w + j]));
    int64_t divisor;
    if (count_include_pad) {
      int64_t ys = oy * d.sh - d.ph, xs = ox * d.sw - d.pw;
      int64_t rows = std::min(ys + d.kh, d.h + d.ph) - ys;
      int64_t cols = std::min(xs + d.kw, d.w + d.pw) - xs;
      divisor = rows * cols;
    } else {
      divisor = (y1 - y0) * (x1 - x0);
    }
    y[(p * d.oh + oy) * d.ow + ox] = convert<T>(sum / static_cast<double>(divisor));
  });
}

}  // namespace

Status kernel_MaxPool2d(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  PoolDims d = pool_dims(op, *in[0], out);
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      max_pool<T>(d, in[0]->data<T>(), out.data<T>());
      return {};
    } else {
      return unsupported_dtype(op, out.dtype());
    }
  });
}

Status kernel_AvgPool2d(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  PoolDims d = pool_dims(op, *in[0], out);
  bool include_pad = op.attrs.get_bool("count_include_pad");
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      avg_pool<T>(d, include_pad, in[0]->data<T>(), out.data<T>());
      return {};
    } else {
      return unsupported_dtype(op, out.dtype());
    }
  });
}

}  // namespace mlc::rt
