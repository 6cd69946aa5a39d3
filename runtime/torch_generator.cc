#include "runtime/torch_generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

namespace mlc::rt {

namespace {
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
uint32_t to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// avx_mathfun.h's log256_ps (cephes logf) for one lane. The fma calls are the
// multiply-adds that torch's AVX2 build contracts (the earlier product of a
// sum fuses); every other operation rounds to float on its own.
float cephes_log(float x) {
  const bool invalid = x <= 0;
  x = std::max(x, from_bits(0x00800000u));
  const int32_t exponent = static_cast<int32_t>(to_bits(x) >> 23) - 0x7f;
  x = from_bits((to_bits(x) & ~0x7f800000u) | to_bits(0.5f));
  float e = static_cast<float>(exponent) + 1.0f;
  const bool below = x < 0.707106781186547524f;
  const float tmp = below ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  float y = 7.0376836292E-2f;
  for (float p : {-1.1514610310E-1f, 1.1676998740E-1f, -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
                  2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f})
    y = std::fma(y, x, p);
  y = y * x;
  y = std::fma(y, z, e * -2.12194440e-4f);
  y = std::fma(-z, 0.5f, y);
  x = x + y;
  x = std::fma(e, 0.693359375f, x);
  return invalid ? std::numeric_limits<float>::quiet_NaN() : x;
}

// avx_mathfun.h's sincos256_ps (cephes sinf/cosf) for one lane, likewise.
void cephes_sincos(float x, float& sin_out, float& cos_out) {
  uint32_t sign_sin = to_bits(x) & 0x80000000u;
  x = std::fabs(x);
  int32_t j = static_cast<int32_t>(x * 1.27323954473516f);
  j = (j + 1) & ~1;
  const float y = static_cast<float>(j);
  sign_sin ^= static_cast<uint32_t>(j & 4) << 29;
  const bool sine_poly = (j & 2) == 0;
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  x = std::fma(y, -0.78515625f, x);
  x = std::fma(y, -2.4187564849853515625e-4f, x);
  x = std::fma(y, -3.77489497744594108e-8f, x);
  const float z = x * x;
  float c = 2.443315711809948E-005f;
  c = std::fma(c, z, -1.388731625493765E-003f);
  c = std::fma(c, z, 4.166664568298827E-002f);
  c = c * z;
  c = std::fma(c, z, -(z * 0.5f));
  c = c + 1.0f;
  float s = -1.9515295891E-4f;
  s = std::fma(s, z, 8.3321608736E-3f);
  s = std::fma(s, z, -1.6666654611E-1f);
  s = s * z;
  s = std::fma(s, x, x);
  const float sin_part = sine_poly ? s : 0.0f, cos_part = sine_poly ? 0.0f : c;
  s = s - sin_part;
  c = c - cos_part;
  sin_out = from_bits(to_bits(cos_part + sin_part) ^ sign_sin);
  cos_out = from_bits(to_bits(c + s) ^ sign_cos);
}

// normal_fill_16_AVX2: 16 uniforms in place to 16 normals.
void normal_fill_16(float* data, float mean, float stddev) {
  const float two_pi = static_cast<float>(2.0f * std::numbers::pi);
  for (int j = 0; j < 8; ++j) {
    const float radius = std::sqrt(-2.0f * cephes_log(1.0f - data[j]));
    float s, c;
    cephes_sincos(two_pi * data[j + 8], s, c);
    data[j] = std::fma(radius * c, stddev, mean);
    data[j + 8] = std::fma(radius * s, stddev, mean);
  }
}
}  // namespace

uint64_t TorchGenerator::random64() {
  const uint64_t hi = random(), lo = random();
  return (hi << 32) | lo;
}

float TorchGenerator::uniform(float from, float to) {
  const double x = static_cast<double>(random() & ((1u << 24) - 1)) * 0x1p-24;
  return static_cast<float>(x * (static_cast<double>(to) - static_cast<double>(from)) + static_cast<double>(from));
}

double TorchGenerator::uniform_double() {
  return static_cast<double>(random64() & ((1ull << 53) - 1)) * 0x1p-53;
}

double TorchGenerator::normal_double(double mean, double stddev) {
  if (next_normal_) {
    const double cached = *next_normal_;
    next_normal_.reset();
    return cached * stddev + mean;
  }
  const double u1 = uniform_double(), u2 = uniform_double();
  const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  next_normal_ = r * std::sin(theta);
  return r * std::cos(theta) * stddev + mean;
}

void TorchGenerator::uniform_(std::span<float> out, double from, double to) {
  const float f = static_cast<float>(from), t = static_cast<float>(to);
  for (float& x : out) x = uniform(f, t);
}

void TorchGenerator::normal_(std::span<float> out, double mean, double stddev) {
  const size_t n = out.size();
  if (n < 16) {
    for (float& x : out) x = static_cast<float>(normal_double(mean, stddev));
    return;
  }
  const float m = static_cast<float>(mean), s = static_cast<float>(stddev);
  for (float& x : out) x = uniform(0.0f, 1.0f);
  for (size_t i = 0; i + 16 <= n; i += 16) normal_fill_16(out.data() + i, m, s);
  if (n % 16 != 0) {
    float* tail = out.data() + n - 16;
    for (int i = 0; i < 16; ++i) tail[i] = uniform(0.0f, 1.0f);
    normal_fill_16(tail, m, s);
  }
}

}  // namespace mlc::rt
