// Window kernels: max_pool2d and avg_pool2d over [N, C, H, W].
//
// max_pool2d: padding is -inf (never selected unless a whole window is
// padding); a NaN in the window wins (the first one); otherwise the first
// maximal element in row-major window order. max_pool2d_indices gives that
// choice as an index in the plane; max_pool2d_grad and max_pool2d_scatter route
// dy to it (recomputed, or as given).
// avg_pool2d: zero padding; every dtype sums in double and rounds once. The
// divisor is, as in PyTorch (ceil_mode off): with count_include_pad, the
// window's area clipped to the padded input (= KH*KW); without it, the number
// of non-padding elements in the window.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

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

// Index (in the plane) of the element max_pool2d selects in a window: the
// first NaN, else the first maximal element in row-major order; -1 if the
// window holds only padding.
template <class T>
int64_t select_max(const PoolDims& d, const T* plane, int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
  using C = Compute<T>;
  C best = -std::numeric_limits<C>::infinity();
  int64_t where = -1;
  for (int64_t i = y0; i < y1; ++i)
    for (int64_t j = x0; j < x1; ++j) {
      C v = load(plane[i * d.w + j]);
      if (std::isnan(v)) return i * d.w + j;
      if (where < 0 || v > best) {
        best = v;
        where = i * d.w + j;
      }
    }
  return where;
}

template <class T>
void max_pool(const PoolDims& d, const T* x, T* y) {
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    const T* plane = x + p * d.h * d.w;
    int64_t at = select_max(d, plane, y0, y1, x0, x1);
    y[(p * d.oh + oy) * d.ow + ox] =
        at < 0 ? store<T>(-std::numeric_limits<Compute<T>>::infinity()) : plane[at];
  });
}

// max_pool2d's choice (select_max) of every window, as max_pool2d_indices.
template <class T>
void max_pool_indices(const PoolDims& d, const T* x, int64_t* indices) {
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    indices[(p * d.oh + oy) * d.ow + ox] = select_max(d, x + p * d.h * d.w, y0, y1, x0, x1);
  });
}

// dx = dy of each window added in f64 at the plane index chosen(p, oy, ox, y0, y1, x0, x1)
// returns, where that lies in the window's clipped rows [y0, y1) and columns [x0, x1).
template <class T, class Chosen>
void route_to_chosen(const PoolDims& d, const T* dy, T* dx, Chosen chosen) {
  std::vector<double> acc(d.planes * d.h * d.w, 0.0);
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    int64_t at = chosen(p, oy, ox, y0, y1, x0, x1);
    if (at < 0 || at / d.w < y0 || at / d.w >= y1 || at % d.w < x0 || at % d.w >= x1) return;
    acc[p * d.h * d.w + at] += static_cast<double>(load(dy[(p * d.oh + oy) * d.ow + ox]));
  });
  for (size_t i = 0; i < acc.size(); ++i) dx[i] = convert<T>(acc[i]);
}

template <class T>
void max_pool_grad(const PoolDims& d, const T* x, const T* dy, T* dx) {
  route_to_chosen(d, dy, dx, [&](int64_t p, int64_t, int64_t, int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
    return select_max(d, x + p * d.h * d.w, y0, y1, x0, x1);
  });
}

template <class T>
void max_pool_scatter(const PoolDims& d, const int64_t* indices, const T* dy, T* dx) {
  route_to_chosen(d, dy, dx, [&](int64_t p, int64_t oy, int64_t ox, int64_t, int64_t, int64_t, int64_t) {
    return indices[(p * d.oh + oy) * d.ow + ox];
  });
}

// avg_pool2d's divisor for output (oy, ox) with clipped window [y0,y1) x [x0,x1).
int64_t avg_divisor(const PoolDims& d, bool count_include_pad, int64_t oy, int64_t ox, int64_t y0,
                    int64_t y1, int64_t x0, int64_t x1) {
  if (!count_include_pad) return (y1 - y0) * (x1 - x0);
  int64_t ys = oy * d.sh - d.ph, xs = ox * d.sw - d.pw;
  int64_t rows = std::min(ys + d.kh, d.h + d.ph) - ys;
  int64_t cols = std::min(xs + d.kw, d.w + d.pw) - xs;
  return rows * cols;
}

template <class T>
void avg_pool(const PoolDims& d, bool count_include_pad, const T* x, T* y) {
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    const T* plane = x + p * d.h * d.w;
    double sum = 0;
    for (int64_t i = y0; i < y1; ++i)
      for (int64_t j = x0; j < x1; ++j) sum += static_cast<double>(load(plane[i * d.w + j]));
    y[(p * d.oh + oy) * d.ow + ox] =
        convert<T>(sum / static_cast<double>(avg_divisor(d, count_include_pad, oy, ox, y0, y1, x0, x1)));
  });
}

template <class T>
void avg_pool_grad(const PoolDims& d, bool count_include_pad, const T* dy, T* dx) {
  std::vector<double> acc(d.planes * d.h * d.w, 0.0);
  for_each_window(d, [&](int64_t p, int64_t oy, int64_t ox, int64_t y0, int64_t y1, int64_t x0,
                         int64_t x1) {
    double share = static_cast<double>(load(dy[(p * d.oh + oy) * d.ow + ox])) /
                   static_cast<double>(avg_divisor(d, count_include_pad, oy, ox, y0, y1, x0, x1));
    for (int64_t i = y0; i < y1; ++i)
      for (int64_t j = x0; j < x1; ++j) acc[(p * d.h + i) * d.w + j] += share;
  });
  for (size_t i = 0; i < acc.size(); ++i) dx[i] = convert<T>(acc[i]);
}

// Runs `body(Tag<T>)` for float dtypes, or reports the dtype as unsupported.
template <class Body>
Status float_only(const Op& op, DType t, Body body) {
  return visit_dtype(t, [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T>) {
      body(tag);
      return {};
    } else {
      return unsupported_dtype(op, t);
    }
  });
}

}  // namespace

Status kernel_MaxPool2dGrad(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  PoolDims d = pool_dims(op, *in[0], *in[1]);
  return float_only(op, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_grad<T>(d, in[0]->data<T>(), in[1]->data<T>(), out.data<T>());
  });
}

Status kernel_MaxPool2dScatter(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  PoolDims d = pool_dims(op, out, *in[0]);
  return float_only(op, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_scatter<T>(d, in[1]->data<int64_t>(), in[0]->data<T>(), out.data<T>());
  });
}

Status kernel_MaxPool2dIndices(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  PoolDims d = pool_dims(op, *in[0], out);
  return float_only(op, in[0]->dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    max_pool_indices<T>(d, in[0]->data<T>(), out.data<int64_t>());
  });
}

Status kernel_AvgPool2dGrad(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  PoolDims d = pool_dims(op, out, *in[0]);
  bool include_pad = op.attrs.get_bool("count_include_pad");
  return float_only(op, out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    avg_pool_grad<T>(d, include_pad, in[0]->data<T>(), out.data<T>());
  });
}

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
