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
#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

std::vector<float> to_f32(const Tensor& t) {
  std::vector<float> v(t.num_elements());
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = convert<float>(p[i]);
    return 0;
  });
  return v;
}

void store_from_f32(const std::vector<float>& v, Tensor& t) {
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
  const Shape& xs = in[0]->shape();
  const Shape& ws = in[1]->shape();
  const auto& st = op.attrs.get_ints("stride");
  const auto& pad = op.attrs.get_ints("padding");
  const auto& dil = op.attrs.get_ints("dilation");
  ConvDims d{xs[0], xs[1], xs[2], xs[3], ws[0], ws[2], ws[3], out.shape()[2], out.shape()[3],
             st[0], st[1], pad[0], pad[1], dil[0], dil[1], op.attrs.get_int("groups")};
  return float_dispatch(op, *in[0], *in[1], out, [&](const auto* px, const auto* pw, auto* py) {
    conv_impl(d, px, pw, py);
  });
}

}  // namespace mlc::rt
