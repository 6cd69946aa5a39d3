#include "runtime/gemm_epilogue.h"

#include <cmath>
#include <cstring>

#include "ir/scalar_math.h"

namespace mlc::rt {

namespace {

using H = scalar::CppScalar<float>;

// The decomposition's constants as f32 constants hold them.
constexpr float kHalf = 0.5f, kOne = 1.0f, kCubic = static_cast<float>(0.044715);
const float kSqrt2OverPi = static_cast<float>(std::sqrt(2.0 / M_PI));

}  // namespace

float gelu_tanh_f32(float x) {
  H h;
  const float half_x = scalar::binary<OpCode::Mul>(h, x, kHalf);
  const float cube = scalar::binary<OpCode::Mul>(h, scalar::binary<OpCode::Mul>(h, x, x), x);
  const float poly = scalar::binary<OpCode::Add>(h, x, scalar::binary<OpCode::Mul>(h, cube, kCubic));
  const float t = scalar::unary<OpCode::Tanh>(h, scalar::binary<OpCode::Mul>(h, poly, kSqrt2OverPi));
  return scalar::binary<OpCode::Mul>(h, half_x, scalar::binary<OpCode::Add>(h, kOne, t));
}

float gelu_tanh_grad_f32(float x) {
  const float t = std::tanh(kSqrt2OverPi * (x + kCubic * x * x * x));
  const float du = kSqrt2OverPi * (1.0f + 3.0f * kCubic * x * x);
  return kHalf * (1.0f + t) + kHalf * x * (1.0f - t * t) * du;
}

void apply_gemm_epilogue(const GemmParams& g, const std::byte* a, const std::byte* extra, std::byte* c,
                         std::byte* more) {
  const GemmEpilogue e = g.epilogue;
  if (e == GemmEpilogue::none) return;
  const blas::DotShape& d = g.shape;
  const int64_t rows = d.batch * d.m, n = d.n;
  auto* out = reinterpret_cast<float*>(c);
  if (e == GemmEpilogue::bgradb) {
    // Row i of op(a) ([m, k]): a[i, kk], or a[kk, i] transposed.
    const auto* A = reinterpret_cast<const float*>(a);
    auto* grad = reinterpret_cast<float*>(more);
    for (int64_t i = 0; i < d.m; ++i) {
      double s = 0;
      for (int64_t kk = 0; kk < d.k; ++kk) s += static_cast<double>(d.trans_a ? A[kk * d.m + i] : A[i * d.k + kk]);
      grad[i] = static_cast<float>(s);
    }
    return;
  }
  if (e == GemmEpilogue::dgelu) {
    const auto* aux = reinterpret_cast<const float*>(extra);
    for (int64_t i = 0; i < rows * n; ++i) out[i] = out[i] * gelu_tanh_grad_f32(aux[i]);
    return;
  }
  H h;
  const auto* bias = epilogue_has_bias(e) ? reinterpret_cast<const float*>(extra) : nullptr;
  auto* aux = e == GemmEpilogue::gelu_aux || e == GemmEpilogue::bias_gelu_aux ? reinterpret_cast<float*>(more) : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = out + r * n;
    for (int64_t j = 0; j < n; ++j) {
      float x = row[j];
      if (bias) x = scalar::binary<OpCode::Add>(h, x, bias[j]);
      if (aux) aux[r * n + j] = x;
      if (epilogue_has_relu(e)) x = scalar::binary<OpCode::Max>(h, x, 0.0f);
      else if (epilogue_has_gelu(e)) x = gelu_tanh_f32(x);
      row[j] = x;
    }
  }
}

}  // namespace mlc::rt
