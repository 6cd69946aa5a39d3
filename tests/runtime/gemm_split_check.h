// The check both GEMM libraries' tests share (onednn_gemm_test.cc,
// xsmm_gemm_test.cc): a library's shares of a dot, for 1 to 4 shares, compute
// the dot that OpenBLAS computes (blas::dot), within the rounding bound of a
// k-term f32 dot product (k * 2^-24 * sum |a_i b_i|, at most k * 2^-24 here
// with |a|, |b| <= 1), and give the same bits when run in reverse order.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "runtime/blas.h"

namespace mlc::rt::testing {

// create(d, parts) returns the library's object (with parts() and run(t, a,
// b, c)) as an optional-like or Expected-like value. With beta != 0 the
// library computes C = alpha * AB + beta * C (a gemm update) from a random C
// in [-1, 1], against OpenBLAS's, within |alpha| k 2^-24 more for the final
// scaling and add: 2^-23 (|beta| + |alpha| k).
template <class Create>
void expect_every_split_matches_openblas(const std::vector<blas::DotShape>& shapes, Create create,
                                         double alpha = 1, double beta = 0) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const blas::DotShape& d : shapes) {
    std::vector<float> a(static_cast<size_t>(d.batch * d.m * d.k)),
        b(static_cast<size_t>((d.b_shared ? 1 : d.batch) * d.k * d.n));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    std::vector<float> c0(static_cast<size_t>(d.batch * d.m * d.n));
    if (beta != 0)
      for (float& x : c0) x = u(rng);
    std::vector<float> want = c0;
    blas::dot_part(d, 1, 0, a.data(), b.data(), want.data(), alpha, beta);
    const float bound = static_cast<float>(std::fabs(alpha) * static_cast<double>(d.k) * 0x1p-24 +
                                           (beta != 0 ? 0x1p-23 * (std::fabs(beta) + std::fabs(alpha) * d.k) : 0));
    for (int parts : {1, 2, 3, 4}) {
      SCOPED_TRACE(::testing::Message() << "batch " << d.batch << " m " << d.m << " n " << d.n << " k " << d.k
                                        << " ta " << d.trans_a << " tb " << d.trans_b << " shared " << d.b_shared
                                        << " parts " << parts);
      auto g = create(d, parts);
      ASSERT_TRUE(static_cast<bool>(g));
      ASSERT_EQ(g->parts(), parts);
      std::vector<float> got(want.size(), -7.0f), again(want.size(), -7.0f);
      if (beta != 0) got = again = c0;
      for (int t = 0; t < parts; ++t) g->run(t, a.data(), b.data(), got.data());
      for (int t = parts; t-- > 0;) g->run(t, a.data(), b.data(), again.data());
      float worst = 0;
      for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
      EXPECT_LE(worst, bound);
      EXPECT_TRUE(got == again);
    }
  }
}

}  // namespace mlc::rt::testing
