#include "runtime/gemm_epilogue.h"

#include <cmath>
#include <cstring>
#include <type_traits>

#include "ir/scalar_math.h"
#include "runtime/half.h"

namespace mlc::rt {

namespace {

using H = scalar::CppScalar<float>;

// The decomposition's constants as f32 constants hold them.
constexpr float kHalf = 0.5f, kOne = 1.0f, kCubic = static_cast<float>(0.044715);
const float kSqrt2OverPi = static_cast<float>(std::sqrt(2.0 / M_PI));

// A value of the gemm's dtype T from a float or double: f32 rounds once to
// nearest, bf16 and f16 too (runtime/half.h).
template <class T>
T stored(double v) {
  if constexpr (std::is_same_v<T, float>) return static_cast<float>(v);
  else return T::from_double(v);
}

// The epilogue over one dtype's buffers (operand, results), computing in f32.
template <class T>
void apply(const GemmParams& g, const std::byte* a_bytes, const std::byte* extra_bytes, float* out,
           std::byte* more_bytes) {
  const GemmEpilogue e = g.epilogue;
  const blas::DotShape& d = g.shape;
  const int64_t rows = d.batch * d.m, n = d.n;
  const auto* extra = reinterpret_cast<const T*>(extra_bytes);
  auto* more = reinterpret_cast<T*>(more_bytes);
  if (e == GemmEpilogue::bgradb) {
    // Row i of op(a) ([m, k]): a[i, kk], or a[kk, i] transposed.
    const auto* A = reinterpret_cast<const T*>(a_bytes);
    for (int64_t i = 0; i < d.m; ++i) {
      double s = 0;
      for (int64_t kk = 0; kk < d.k; ++kk)
        s += static_cast<double>(static_cast<float>(d.trans_a ? A[kk * d.m + i] : A[i * d.k + kk]));
      more[i] = stored<T>(s);
    }
    return;
  }
  H h;
  const T* bias = epilogue_has_bias(e) ? extra : nullptr;
  const T* aux_in = epilogue_has_dgelu(e) ? extra : nullptr;
  T* aux_out = epilogue_stores_aux(e) ? more : nullptr;
  for (int64_t r = 0; r < rows; ++r) {
    float* row = out + r * n;
    for (int64_t j = 0; j < n; ++j) {
      float x = row[j];
      if (bias) x = scalar::binary<OpCode::Add>(h, x, static_cast<float>(bias[j]));
      if (aux_out) aux_out[r * n + j] = stored<T>(x);
      if (epilogue_has_relu(e)) x = scalar::binary<OpCode::Max>(h, x, 0.0f);
      else if (epilogue_has_gelu(e)) x = gelu_tanh_f32(x);
      else if (aux_in) x = dgelu_tanh_f32(x, static_cast<float>(aux_in[r * n + j]));
      row[j] = x;
    }
  }
  if (e == GemmEpilogue::dgelu_bgrad)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t r = 0; r < rows; ++r) s += static_cast<double>(out[r * n + j]);
      more[j] = stored<T>(s);
    }
}

// c = the product rounded once to T (bf16, f16).
template <class T>
void round_into(const float* product, std::byte* c, int64_t count) {
  T* out = reinterpret_cast<T*>(c);
  for (int64_t i = 0; i < count; ++i) out[i] = T::from_float(product[i]);
}

}  // namespace

float gelu_tanh_f32(float x) {
  H h;
  const float half_x = scalar::binary<OpCode::Mul>(h, x, kHalf);
  const float cube = scalar::binary<OpCode::Mul>(h, scalar::binary<OpCode::Mul>(h, x, x), x);
  const float poly = scalar::binary<OpCode::Add>(h, x, scalar::binary<OpCode::Mul>(h, cube, kCubic));
  const float t = scalar::unary<OpCode::Tanh>(h, scalar::binary<OpCode::Mul>(h, poly, kSqrt2OverPi));
  return scalar::binary<OpCode::Mul>(h, half_x, scalar::binary<OpCode::Add>(h, kOne, t));
}

double gelu_grad_constant(GeluGradLeaf leaf) {
  switch (leaf) {
    case kGeluHalf: return 0.5;
    case kGeluOne: return 1.0;
    case kGeluCubic: return 0.044715;
    case kGeluSqrt2OverPi: return std::sqrt(2.0 / M_PI);
    case kGeluX: case kGeluG: break;
  }
  return 0;
}

float dgelu_tanh_f32(float g, float x) {
  H h;
  std::array<float, kGeluGradSteps.size()> v{};
  auto value = [&](int8_t i) -> float {
    if (i >= 0) return v[static_cast<size_t>(i)];
    if (i == kGeluX) return x;
    if (i == kGeluG) return g;
    return static_cast<float>(gelu_grad_constant(static_cast<GeluGradLeaf>(i)));
  };
  for (size_t i = 0; i < kGeluGradSteps.size(); ++i) {
    const GeluGradStep& s = kGeluGradSteps[i];
    if (s.code == OpCode::Tanh) scalar::unary_dispatch(h, s.code, value(s.a), v[i]);
    else scalar::binary_dispatch(h, s.code, value(s.a), value(s.b), v[i]);
  }
  return v.back();
}

void apply_gemm_epilogue(const GemmParams& g, const std::byte* a, const std::byte* extra, float* product,
                         std::byte* c, std::byte* more) {
  if (g.epilogue == GemmEpilogue::none) return;
  const int64_t count = g.shape.batch * g.shape.m * g.shape.n;
  switch (g.dtype) {
    case DType::f32:
      apply<float>(g, a, extra, product, more);
      if (reinterpret_cast<std::byte*>(product) != c) std::memcpy(c, product, static_cast<size_t>(count) * sizeof(float));
      return;
    case DType::bf16:
      apply<bf16>(g, a, extra, product, more);
      return round_into<bf16>(product, c, count);
    case DType::f16:
      apply<f16>(g, a, extra, product, more);
      return round_into<f16>(product, c, count);
    default: return;  // verify_executable refuses epilogues on other dtypes
  }
}

}  // namespace mlc::rt
