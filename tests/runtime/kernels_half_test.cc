// bf16 / f16 storage types (runtime/half.h): conversions against bit patterns
// worked out by hand from the formats.
#include "runtime/half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mlc::rt {
namespace {

const float kInf = std::numeric_limits<float>::infinity();

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(bf16::from_float(1.0f).bits, 0x3F80);
  EXPECT_EQ(bf16::from_float(-2.0f).bits, 0xC000);
  // 1 + 2^-8 is the midpoint of 1.0 (even) and 1 + 2^-7: down. 1 + 3 * 2^-8: up to even 1 + 2^-6.
  EXPECT_EQ(bf16::from_float(1.0f + 0x1p-8f).bits, 0x3F80);
  EXPECT_EQ(bf16::from_float(1.0f + 3 * 0x1p-8f).bits, 0x3F82);
  EXPECT_EQ(bf16::from_float(1.0f + 0x1p-8f + 0x1p-20f).bits, 0x3F81);
  EXPECT_EQ(bf16::from_float(std::numeric_limits<float>::max()).bits, 0x7F80);  // overflow -> inf
  EXPECT_EQ(bf16::from_float(-kInf).bits, 0xFF80);
  EXPECT_EQ(bf16::from_float(0x1p-133f).bits, 0x0001);  // smallest bf16 subnormal
}

TEST(Bf16, NanStaysNanAndToFloatIsExact) {
  bf16 n = bf16::from_float(std::numeric_limits<float>::quiet_NaN());
  EXPECT_TRUE(std::isnan(n.to_float()));
  // A signalling NaN whose payload is only in the low bits must not become inf.
  EXPECT_TRUE(std::isnan(bf16::from_float(std::bit_cast<float>(0x7F800001u)).to_float()));
  EXPECT_EQ(bf16::from_bits(0x3FC0).to_float(), 1.5f);
  EXPECT_EQ(bf16::from_bits(0x8000).to_float(), -0.0f);
  EXPECT_TRUE(std::signbit(bf16::from_bits(0x8000).to_float()));
}

TEST(F16, NormalsOverflowAndRounding) {
  EXPECT_EQ(f16::from_float(1.0f).bits, 0x3C00);
  EXPECT_EQ(f16::from_float(-2.5f).bits, 0xC100);
  EXPECT_EQ(f16::from_float(65504.0f).bits, 0x7BFF);  // largest finite
  EXPECT_EQ(f16::from_float(65519.0f).bits, 0x7BFF);  // below the midpoint to 65536
  EXPECT_EQ(f16::from_float(65520.0f).bits, 0x7C00);  // the midpoint: ties to even = inf
  EXPECT_EQ(f16::from_float(1e10f).bits, 0x7C00);
  EXPECT_EQ(f16::from_float(-kInf).bits, 0xFC00);
  EXPECT_EQ(f16::from_float(1.0f + 0x1p-11f).bits, 0x3C00);        // midpoint, even is 1.0
  EXPECT_EQ(f16::from_float(1.0f + 3 * 0x1p-11f).bits, 0x3C02);    // midpoint, even is up
  EXPECT_EQ(f16::from_float(1.0f + 0x1p-11f + 0x1p-20f).bits, 0x3C01);
}

TEST(F16, Subnormals) {
  EXPECT_EQ(f16::from_float(0x1p-24f).bits, 0x0001);          // smallest subnormal
  EXPECT_EQ(f16::from_float(0x1p-25f).bits, 0x0000);          // midpoint to 0: even
  EXPECT_EQ(f16::from_float(0x1p-25f + 0x1p-40f).bits, 0x0001);
  EXPECT_EQ(f16::from_float(3 * 0x1p-25f).bits, 0x0002);      // 1.5 units: even is 2
  EXPECT_EQ(f16::from_float(0x1p-14f - 0x1p-25f).bits, 0x0400);  // rounds up into the normals
  EXPECT_EQ(f16::from_float(-0x1p-30f).bits, 0x8000);
  EXPECT_EQ(f16::from_bits(0x0001).to_float(), 0x1p-24f);
  EXPECT_EQ(f16::from_bits(0x03FF).to_float(), 1023 * 0x1p-24f);
  EXPECT_EQ(f16::from_bits(0x8001).to_float(), -0x1p-24f);
}

TEST(F16, SpecialsToFloat) {
  EXPECT_EQ(f16::from_bits(0x7C00).to_float(), kInf);
  EXPECT_TRUE(std::isnan(f16::from_bits(0x7E00).to_float()));
  EXPECT_TRUE(std::isnan(f16::from_float(std::numeric_limits<float>::quiet_NaN()).to_float()));
  EXPECT_EQ(f16::from_bits(0x3555).to_float(), 0.333251953125f);
}

TEST(Half, EveryF16BitPatternRoundTripsThroughFloat) {
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    f16 h = f16::from_bits(static_cast<uint16_t>(b));
    float f = h.to_float();
    if (std::isnan(f)) continue;
    ASSERT_EQ(f16::from_float(f).bits, b) << std::hex << b;
    ASSERT_EQ(f16::from_double(f).bits, b) << std::hex << b;
  }
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    bf16 h = bf16::from_bits(static_cast<uint16_t>(b));
    if (std::isnan(h.to_float())) continue;
    ASSERT_EQ(bf16::from_float(h.to_float()).bits, b) << std::hex << b;
    ASSERT_EQ(bf16::from_double(h.to_float()).bits, b) << std::hex << b;
  }
}

TEST(Half, FromDoubleRoundsOnce) {
  // Just above a midpoint by less than a float ulp: double -> float -> half
  // would round twice and land on the even side.
  EXPECT_EQ(f16::from_double(1.0 + 0x1p-11 + 0x1p-40).bits, 0x3C01);
  EXPECT_EQ(f16::from_double(1.0 + 0x1p-11 - 0x1p-40).bits, 0x3C00);
  EXPECT_EQ(bf16::from_double(1.0 + 0x1p-8 + 0x1p-40).bits, 0x3F81);
  EXPECT_EQ(bf16::from_double(1.0 + 0x1p-8).bits, 0x3F80);
  EXPECT_EQ(bf16::from_double(1e300).bits, 0x7F80);
  EXPECT_EQ(f16::from_double(-1e300).bits, 0xFC00);
  EXPECT_EQ(f16::from_double(0x1p-25 + 0x1p-60).bits, 0x0001);
  EXPECT_TRUE(std::isnan(bf16::from_double(std::nan("")).to_float()));
}

}  // namespace
}  // namespace mlc::rt
