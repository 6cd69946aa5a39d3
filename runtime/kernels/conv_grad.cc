// Gradient kernels of conv2d, on BLAS gemm like the forward kernel:
//   input grad:  per image and group, dcol = W_g^T dy_g, then col2im into dx.
//   weight grad: per image and group, dW_g += dy_g im2col(x_g)^T.
// Accumulation over images is in the tensor's dtype (f32/f64; bf16/f16 go
// through f32 and round once).
#include <algorithm>
#include <vector>

#include "runtime/blas.h"
#include "runtime/kernels/conv_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

template <class T>
void input_grad(const ConvDims& d, const T* dy, const T* w, T* dx) {
  const int64_t cg = d.c / d.groups, og = d.o / d.groups;
  const int64_t kdim = cg * d.kh * d.kw, plane = d.oh * d.ow;
  std::fill(dx, dx + d.n * d.c * d.h * d.w, T(0));
  std::vector<T> dcol(kdim * plane);
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t g = 0; g < d.groups; ++g) {
      blas::gemm(true, false, kdim, plane, og, w + g * og * kdim, kdim,
                 dy + (n * d.o + g * og) * plane, plane, dcol.data(), plane);
      col2im(d, cg, dcol.data(), dx + (n * d.c + g * cg) * d.h * d.w);
    }
}

template <class T>
void weight_grad(const ConvDims& d, const T* x, const T* dy, T* dw) {
  const int64_t cg = d.c / d.groups, og = d.o / d.groups;
  const int64_t kdim = cg * d.kh * d.kw, plane = d.oh * d.ow;
  std::fill(dw, dw + d.o * kdim, T(0));
  std::vector<T> col(kdim * plane), part(og * kdim);
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t g = 0; g < d.groups; ++g) {
      im2col(d, cg, x + (n * d.c + g * cg) * d.h * d.w, col.data());
      blas::gemm(false, true, og, kdim, plane, dy + (n * d.o + g * og) * plane, plane, col.data(),
                 plane, part.data(), kdim);
      T* out = dw + g * og * kdim;
      for (int64_t i = 0; i < og * kdim; ++i) out[i] += part[i];
    }
}

}  // namespace

Status kernel_Conv2dInputGrad(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  // in: dy [N,O,OH,OW], w; out: dx [N,C,H,W]
  ConvDims d = conv_dims(op, out.shape(), in[1]->shape(), in[0]->shape());
  return float_dispatch(op, *in[0], *in[1], out, [&](const auto* pdy, const auto* pw, auto* pdx) {
    input_grad(d, pdy, pw, pdx);
  });
}

Status kernel_Conv2dWeightGrad(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  // in: x [N,C,H,W], dy; out: dw [O,C/g,KH,KW]
  ConvDims d = conv_dims(op, in[0]->shape(), out.shape(), in[1]->shape());
  return float_dispatch(op, *in[0], *in[1], out, [&](const auto* px, const auto* pdy, auto* pdw) {
    weight_grad(d, px, pdy, pdw);
  });
}

}  // namespace mlc::rt
