// Window-to-column kernels: unfold (PyTorch's F.unfold, im2col per image) and
// fold (F.fold, col2im per image).
//
// unfold moves elements only (padding reads as +0.0), so it runs on the bytes
// of any float dtype. fold sums each output element's terms in f64 in
// row-major (kernel row, kernel column) order and rounds once, as the compiled
// fold kernel does (compiler/kernel_ir.h), so the two agree bit for bit.
#include <vector>

#include "runtime/kernels/conv_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

// Geometry of unfold over an image [N, C, H, W] (`image`) from the op's attributes.
ConvDims window_dims(const Op& op, const Shape& image) {
  const auto& k = op.attrs.get_ints("kernel");
  const auto& st = op.attrs.get_ints("stride");
  const auto& pad = op.attrs.get_ints("padding");
  const auto& dil = op.attrs.get_ints("dilation");
  auto out = [](int64_t in, int64_t kernel, int64_t s, int64_t p, int64_t d) {
    return (in + 2 * p - d * (kernel - 1) - 1) / s + 1;
  };
  return ConvDims{image[0], image[1], image[2], image[3], 0, k[0], k[1],
                  out(image[2], k[0], st[0], pad[0], dil[0]), out(image[3], k[1], st[1], pad[1], dil[1]),
                  st[0], st[1], pad[0], pad[1], dil[0], dil[1], 1};
}

}  // namespace

Status kernel_Unfold(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const Tensor& x = *in[0];
  if (!is_float(x.dtype())) return unsupported_dtype(op, x.dtype());
  ConvDims d = window_dims(op, x.shape());
  const int64_t image = d.c * d.h * d.w, cols = d.c * d.kh * d.kw * d.oh * d.ow;
  visit_bytes(static_cast<int>(dtype_size(x.dtype())), [&](auto tag) {
    using U = typename decltype(tag)::type;  // +0.0 is all zero bits in every float dtype
    for (int64_t n = 0; n < d.n; ++n) im2col(d, d.c, x.data<U>() + n * image, out.data<U>() + n * cols);
    return 0;
  });
  return {};
}

Status kernel_Fold(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  if (!is_float(out.dtype())) return unsupported_dtype(op, out.dtype());
  ConvDims d = window_dims(op, out.shape());
  const int64_t image = d.c * d.h * d.w, cols = d.c * d.kh * d.kw * d.oh * d.ow;
  std::vector<double> acc(static_cast<size_t>(image));
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t n = 0; n < d.n; ++n) {
      std::fill(acc.begin(), acc.end(), 0.0);
      col2im(d, d.c, in[0]->data<T>() + n * cols, acc.data());
      T* y = out.data<T>() + n * image;
      for (int64_t i = 0; i < image; ++i) y[i] = convert<T>(acc[static_cast<size_t>(i)]);
    }
    return 0;
  });
  return {};
}

}  // namespace mlc::rt
