// 16-bit float storage types: bf16 (bfloat16: 8 exponent bits, 7 mantissa
// bits) and f16 (IEEE binary16: 5 exponent bits, 10 mantissa bits).
//
// Contracts:
//  - Both are plain 2-byte storage types (trivially copyable, standard
//    layout); arithmetic is done by converting to float, computing, and
//    converting back once per op result.
//  - Conversions to float are exact. Conversions from float and from double
//    round to nearest, ties to even, in ONE rounding step (from double via a
//    round-to-odd step to float, which is exact for these narrower formats);
//    overflow gives +-inf; NaN stays NaN (quiet), with its sign.
//  - Written by hand on bit patterns; no compiler _Float16/__bf16 types.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>

namespace mlc::rt {

namespace half_detail {

inline uint32_t float_bits(float f) { return std::bit_cast<uint32_t>(f); }
inline float bits_float(uint32_t b) { return std::bit_cast<float>(b); }

// Rounds `d` to float with round-to-odd: truncate toward zero, then set the
// last mantissa bit if the result is inexact. Rounding that float once more to
// a format with at least 2 fewer mantissa bits gives the correctly rounded
// result of `d`.
inline float double_to_float_round_odd(double d) {
  float f = static_cast<float>(d);  // round to nearest even
  if (std::isnan(d) || std::isinf(f) || static_cast<double>(f) == d) return f;
  uint32_t b = float_bits(f);
  if ((b & 1u) == 0) {
    // f is the even neighbour of d; the odd one is one step toward d.
    b = std::fabs(static_cast<double>(f)) > std::fabs(d) ? b - 1 : b + 1;
  }
  return bits_float(b);
}

inline uint16_t float_to_bf16_bits(float f) {
  uint32_t x = float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((x >> 16) | 0x0040u);  // NaN
  x += 0x7FFFu + ((x >> 16) & 1u);  // round to nearest even; carries into the exponent (-> inf)
  return static_cast<uint16_t>(x >> 16);
}

inline float bf16_bits_to_float(uint16_t h) { return bits_float(static_cast<uint32_t>(h) << 16); }

inline uint16_t float_to_f16_bits(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  uint32_t exp = (x >> 23) & 0xFFu;
  uint32_t mant = x & 0x7FFFFFu;
  if (exp == 0xFF) return sign | 0x7C00u | (mant ? 0x0200u | (mant >> 13) : 0u);  // inf, NaN
  int32_t e = static_cast<int32_t>(exp) - 127 + 15;  // binary16 biased exponent
  if (e >= 31) return sign | 0x7C00u;                // |f| >= 2^16: overflow
  if (e <= 0) {
    // Subnormal result: value = M * 2^(e-38) = (M >> shift) units of 2^-24.
    if (e < -10) return sign;  // below half the smallest subnormal: rounds to 0
    uint32_t m = mant | 0x800000u;
    uint32_t shift = static_cast<uint32_t>(14 - e);  // 14..24
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into the smallest normal
    return static_cast<uint16_t>(sign | q);
  }
  uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13), rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // may carry up to inf
  return static_cast<uint16_t>(sign | h);
}

inline float f16_bits_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, mant = h & 0x3FFu;
  if (exp == 0x1F) return bits_float(sign | 0x7F800000u | (mant << 13));
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);  // exact
    return sign ? -v : v;
  }
  return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

}  // namespace half_detail

struct bf16 {
  uint16_t bits = 0;

  static bf16 from_bits(uint16_t b) { bf16 h; h.bits = b; return h; }
  static bf16 from_float(float f) { return from_bits(half_detail::float_to_bf16_bits(f)); }
  static bf16 from_double(double d) {
    return from_float(half_detail::double_to_float_round_odd(d));
  }
  float to_float() const { return half_detail::bf16_bits_to_float(bits); }
  explicit operator float() const { return to_float(); }
  friend bool operator==(bf16 a, bf16 b) { return a.bits == b.bits; }  // bitwise
};

struct f16 {
  uint16_t bits = 0;

  static f16 from_bits(uint16_t b) { f16 h; h.bits = b; return h; }
  static f16 from_float(float f) { return from_bits(half_detail::float_to_f16_bits(f)); }
  static f16 from_double(double d) {
    return from_float(half_detail::double_to_float_round_odd(d));
  }
  float to_float() const { return half_detail::f16_bits_to_float(bits); }
  explicit operator float() const { return to_float(); }
  friend bool operator==(f16 a, f16 b) { return a.bits == b.bits; }  // bitwise
};

static_assert(sizeof(bf16) == 2 && sizeof(f16) == 2);

}  // namespace mlc::rt
