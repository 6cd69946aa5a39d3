// Contraction kernels: dot (batched matmul) and conv2d, both on BLAS gemm.
//
// f32 and f64 call sgemm/dgemm directly. bf16 and f16 convert their operands
// to f32, run the f32 path and round each result element once.
//
// dot: blas::dot.
// conv2d: per image and group, im2col into a [C/g*KH*KW, OH*OW] buffer, then
// gemm with the group's [O/g, C/g*KH*KW] weights (1x1 kernels with unit stride
// and no padding skip im2col).
#include <vector>

#include "runtime/blas.h"
#include "runtime/kernels/conv_util.h"

namespace mlc::rt {

blas::DotShape dot_shape(const Op& op, const Shape& a, const Shape& b, const Shape& out) {
  blas::DotShape d;
  d.trans_a = op.attrs.get_bool("transpose_a");
  d.trans_b = op.attrs.get_bool("transpose_b");
  d.m = out[out.size() - 2];
  d.n = out[out.size() - 1];
  d.k = a[a.size() - (d.trans_a ? 2 : 1)];
  d.batch = num_elements(out) / std::max<int64_t>(1, d.m * d.n);
  if (d.m * d.n == 0) d.batch = 0;
  d.b_shared = b.size() == 2;
  return d;
}

namespace {
using namespace kern;

template <class T>
void conv_impl(const ConvDims& d, const T* x, const T* w, T* y) {
  const int64_t cg = d.c / d.groups, og = d.o / d.groups;
  const int64_t kdim = cg * d.kh * d.kw, plane = d.oh * d.ow;
  const bool direct = d.kh == 1 && d.kw == 1 && d.sh == 1 && d.sw == 1 && d.ph == 0 && d.pw == 0;
  std::vector<T> col(direct ? 0 : kdim * plane);
  for (int64_t n = 0; n < d.n; ++n)
    for (int64_t g = 0; g < d.groups; ++g) {
      const T* xg = x + (n * d.c + g * cg) * d.h * d.w;
      const T* b = xg;
      if (!direct) {
        im2col(d, cg, xg, col.data());
        b = col.data();
      }
      blas::gemm(false, false, og, plane, kdim, w + g * og * kdim, kdim, b, plane,
                 y + (n * d.o + g * og) * plane, plane);
    }
}

}  // namespace

Status kernel_Dot(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  blas::DotShape d = dot_shape(op, in[0]->shape(), in[1]->shape(), out.shape());
  return float_dispatch(op, *in[0], *in[1], out, [&](const auto* pa, const auto* pb, auto* pc) {
    blas::dot(d, pa, pb, pc);
  });
}

Status kernel_Conv2d(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  ConvDims d = conv_dims(op, in[0]->shape(), in[1]->shape(), out.shape());
  return float_dispatch(op, *in[0], *in[1], out, [&](const auto* px, const auto* pw, auto* py) {
    conv_impl(d, px, pw, py);
  });
}

}  // namespace mlc::rt
