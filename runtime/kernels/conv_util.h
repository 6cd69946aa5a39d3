// Internal helpers shared by the contraction kernels (dot_conv.cc,
// conv_grad.cc, unfold.cc): float dispatch through f32 for half types, conv geometry and
// im2col / col2im.
#pragma once

#include <vector>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt::kern {

inline std::vector<float> to_f32(const Tensor& t) {
  std::vector<float> v(t.num_elements());
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = convert<float>(p[i]);
    return 0;
  });
  return v;
}

inline void store_from_f32(const std::vector<float>& v, Tensor& t) {
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) p[i] = convert<T>(v[i]);
    return 0;
  });
}

// Runs `f32_path(a, b, out)` on f32 copies of bf16/f16 tensors, or `path` on
// the tensors' own data for f32/f64.
template <class Path>
Status float_dispatch(const Op& op, const Tensor& a, const Tensor& b, Tensor& out, Path path) {
  switch (out.dtype()) {
    case DType::f32:
      path(a.data<float>(), b.data<float>(), out.data<float>());
      return {};
    case DType::f64:
      path(a.data<double>(), b.data<double>(), out.data<double>());
      return {};
    case DType::bf16:
    case DType::f16: {
      std::vector<float> fa = to_f32(a), fb = to_f32(b), fo(out.num_elements());
      path(fa.data(), fb.data(), fo.data());
      store_from_f32(fo, out);
      return {};
    }
    default:
      return unsupported_dtype(op, out.dtype());
  }
}

struct ConvDims {
  int64_t n, c, h, w;     // input
  int64_t o, kh, kw;      // weight [o, c/groups, kh, kw]
  int64_t oh, ow;         // output spatial size
  int64_t sh, sw, ph, pw, dh, dw, groups;
};

// col[(c*KH + i)*KW + j][y*OW + x] = input[c][y*sh - ph + i*dh][x*sw - pw + j*dw] (0 outside).
template <class T>
void im2col(const ConvDims& d, int64_t channels, const T* x, T* col) {
  const int64_t plane = d.oh * d.ow;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < d.kh; ++i)
      for (int64_t j = 0; j < d.kw; ++j) {
        T* row = col + ((c * d.kh + i) * d.kw + j) * plane;
        const T* img = x + c * d.h * d.w;
        for (int64_t y = 0; y < d.oh; ++y) {
          int64_t iy = y * d.sh - d.ph + i * d.dh;
          T* out = row + y * d.ow;
          if (iy < 0 || iy >= d.h) {
            for (int64_t xo = 0; xo < d.ow; ++xo) out[xo] = T(0);
            continue;
          }
          for (int64_t xo = 0; xo < d.ow; ++xo) {
            int64_t ix = xo * d.sw - d.pw + j * d.dw;
            out[xo] = (ix >= 0 && ix < d.w) ? img[iy * d.w + ix] : T(0);
          }
        }
      }
}

// The transpose of im2col: input[c][...] += col[...] (input must start zeroed),
// accumulated in Acc; each input element receives its terms in row-major (i, j)
// order.
template <class T, class Acc>
void col2im(const ConvDims& d, int64_t channels, const T* col, Acc* x) {
  const int64_t plane = d.oh * d.ow;
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t i = 0; i < d.kh; ++i)
      for (int64_t j = 0; j < d.kw; ++j) {
        const T* row = col + ((c * d.kh + i) * d.kw + j) * plane;
        Acc* img = x + c * d.h * d.w;
        for (int64_t y = 0; y < d.oh; ++y) {
          int64_t iy = y * d.sh - d.ph + i * d.dh;
          if (iy < 0 || iy >= d.h) continue;
          for (int64_t xo = 0; xo < d.ow; ++xo) {
            int64_t ix = xo * d.sw - d.pw + j * d.dw;
            if (ix >= 0 && ix < d.w) img[iy * d.w + ix] += convert<Acc>(row[y * d.ow + xo]);
          }
        }
      }
}

// Geometry of a conv2d (or its gradients) from x's, w's and y's shapes.
inline ConvDims conv_dims(const Op& op, const Shape& xs, const Shape& ws, const Shape& ys) {
  const auto& st = op.attrs.get_ints("stride");
  const auto& pad = op.attrs.get_ints("padding");
  const auto& dil = op.attrs.get_ints("dilation");
  return ConvDims{xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], ws[3], ys[2], ys[3],
                  st[0], st[1], pad[0], pad[1], dil[0], dil[1], op.attrs.get_int("groups")};
}

}  // namespace mlc::rt::kern
