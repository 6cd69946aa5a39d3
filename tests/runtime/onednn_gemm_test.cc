// Large GEMMs on oneDNN (runtime/onednn_gemm.h): every split into shares (by
// batch, rows or columns; transposed operands; shared B) computes the dot
// that OpenBLAS computes, deterministically (tests/runtime/gemm_split_check.h).
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <vector>

#include "runtime/onednn_gemm.h"
#include "tests/runtime/gemm_split_check.h"

namespace mlc::rt {
namespace {

TEST(OneDnnGemm, PreferredOnlyForLargeF32Dots) {
  EXPECT_TRUE(OneDnnGemm::preferred({1, 256, 4096, 1024}, DType::f32));
  EXPECT_FALSE(OneDnnGemm::preferred({1, 256, 4096, 1024}, DType::f64));
  EXPECT_FALSE(OneDnnGemm::preferred({1, 512, 64, 64}, DType::f32));
}

TEST(OneDnnGemm, EverySplitMatchesOpenBlas) {
  std::vector<blas::DotShape> shapes;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool shared : {false, true})
        for (auto [batch, m, n, k] : std::vector<std::array<int64_t, 4>>{{1, 67, 45, 33}, {1, 5, 130, 17}, {3, 21, 19, 40}})
          shapes.push_back({batch, m, n, k, ta, tb, shared});
  testing::expect_every_split_matches_openblas(shapes, [](const blas::DotShape& d, int parts) {
    auto g = OneDnnGemm::create(d, parts);
    EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
    return g.ok() ? std::optional<OneDnnGemm>(std::move(*g)) : std::nullopt;
  });
}

// The gemm updates (compiler/fusion.h) of plain SGD, C = -lr * AB + C, and
// of SGD momentum, C = AB + mu * C.
TEST(OneDnnGemm, GemmUpdateMatchesOpenBlas) {
  std::vector<blas::DotShape> shapes;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) shapes.push_back({1, 67, 45, 33, ta, tb, false});
  shapes.push_back({3, 21, 19, 40, false, false, true});
  for (auto [alpha, beta] : {std::pair{-0.01, 1.0}, std::pair{1.0, 0.9}})
    testing::expect_every_split_matches_openblas(
        shapes,
        [&](const blas::DotShape& d, int parts) {
          auto g = OneDnnGemm::create(d, parts, alpha, beta);
          EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error().message);
          return g.ok() ? std::optional<OneDnnGemm>(std::move(*g)) : std::nullopt;
        },
        alpha, beta);
}

}  // namespace
}  // namespace mlc::rt
