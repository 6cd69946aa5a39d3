// Large GEMMs on oneDNN (runtime/onednn_gemm.h): every split into shares (by
// batch, rows or columns; transposed operands; shared B) computes the dot
// that OpenBLAS computes, within the rounding bound of a k-term f32 dot
// product (k * 2^-24 * sum |a_i b_i|, at most k * 2^-24 here with |a|, |b| <= 1),
// and deterministically.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/onednn_gemm.h"

namespace mlc::rt {
namespace {

TEST(OneDnnGemm, PreferredOnlyForLargeF32Dots) {
  EXPECT_TRUE(OneDnnGemm::preferred({1, 256, 4096, 1024}, DType::f32));
  EXPECT_FALSE(OneDnnGemm::preferred({1, 256, 4096, 1024}, DType::f64));
  EXPECT_FALSE(OneDnnGemm::preferred({1, 512, 64, 64}, DType::f32));
}

TEST(OneDnnGemm, EverySplitMatchesOpenBlas) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<blas::DotShape> shapes;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool shared : {false, true})
        for (auto [batch, m, n, k] : std::vector<std::array<int64_t, 4>>{{1, 67, 45, 33}, {1, 5, 130, 17}, {3, 21, 19, 40}})
          shapes.push_back({batch, m, n, k, ta, tb, shared});
  for (const blas::DotShape& d : shapes) {
    std::vector<float> a(static_cast<size_t>(d.batch * d.m * d.k)),
        b(static_cast<size_t>((d.b_shared ? 1 : d.batch) * d.k * d.n));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    std::vector<float> want(static_cast<size_t>(d.batch * d.m * d.n));
    blas::dot(d, a.data(), b.data(), want.data());
    for (int parts : {1, 2, 3, 4}) {
      auto g = OneDnnGemm::create(d, parts);
      ASSERT_TRUE(g.ok()) << g.error().message;
      ASSERT_EQ(g->parts(), parts);
      std::vector<float> got(want.size(), -7.0f), again(want.size(), -7.0f);
      for (int t = 0; t < parts; ++t) g->run(t, a.data(), b.data(), got.data());
      for (int t = parts; t-- > 0;) g->run(t, a.data(), b.data(), again.data());
      float worst = 0;
      for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
      EXPECT_LE(worst, static_cast<float>(d.k) * 0x1p-24f)
          << "batch " << d.batch << " m " << d.m << " n " << d.n << " k " << d.k << " ta " << d.trans_a << " tb "
          << d.trans_b << " shared " << d.b_shared << " parts " << parts;
      EXPECT_TRUE(got == again);
    }
  }
}

}  // namespace
}  // namespace mlc::rt
