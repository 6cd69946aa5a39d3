// Contraction kernels: dot (batched matmul) and conv2d, both on BLAS gemm.
//
// f32 and f64 call sgemm/dgemm directly. bf16 and f16 convert their operands
// to f32, run the f32 path and round each result element once.
//
// dot: the batch loop is outside gemm; when b is rank 2 (shared by every batch)
// and a is not transposed, the batch is folded into M (one gemm call).
// conv2d: per image and group, im2col into a [C/g*KH*KW, OH*OW] buffer, then
// gemm with the group's [O/g, C/g*KH*KW] weights (1x1 kernels with unit stride
// and no padding skip im2col).
#include <vector>

#include "runtime/blas.h"
#include "runtime/kernels/conv_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

struct DotDims {
  int64_t batch, m, n, k;
  bool ta, tb, b_shared;
};

template <class T>
void dot_impl(const DotDims& d, const T* a, const T* b, T* c) {
  int64_t lda = d.ta ? d.m : d.k, ldb = d.tb ? d.k : d.n;
  if (d.b_shared && !d.ta) {
    blas::gemm(false, d.tb, d.batch * d.m, d.n, d.k, a, lda, b, ldb, c, d.n);
    return;
  }
  for (int64_t i = 0; i < d.batch; ++i)
    blas::gemm(d.ta, d.tb, d.m, d.n, d.k, a + i * d.m * d.k, lda, d.b_shared ? b : b + i * d.k * d.n,
               ldb, c + i * d.m * d.n, d.n);
}

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
  const Tensor& a = *in[0];
  const Tensor& b = *in[1];
  DotDims d;
  d.ta = op.attrs.get_bool("transpose_a");
  d.tb = op.attrs.get_bool("transpose_b");
  const Shape& s = out.shape();
  d.m = s[s.size() - 2];
  d.n = s[s.size() - 1];
  d.k = a.shape()[a.rank() - (d.ta ? 2 : 1)];
  d.batch = out.num_elements() / std::max<int64_t>(1, d.m * d.n);
  if (d.m * d.n == 0) d.batch = 0;
  d.b_shared = b.rank() == 2;
  return float_dispatch(op, a, b, out, [&](const auto* pa, const auto* pb, auto* pc) {
    dot_impl(d, pa, pb, pc);
  });
}

Status kernel_Conv2d(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  ConvDims d = conv_dims(op, in[0]->shape(), in[1]->shape(), out.shape());
  return float_dispatch(op, *in[0], *in[1], out, [&](const auto* px, const auto* pw, auto* py) {
    conv_impl(d, px, pw, py);
  });
}

}  // namespace mlc::rt
