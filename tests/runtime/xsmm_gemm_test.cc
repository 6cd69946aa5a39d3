// Small GEMMs on libxsmm (runtime/xsmm_gemm.h): every split into shares (by
// batch, rows or columns; a transposed A; shared B) computes the dot that
// OpenBLAS computes, deterministically (tests/runtime/gemm_split_check.h); a
// transposed B, which libxsmm 1.17 has no kernel for, is declined (the
// executor then runs OpenBLAS).
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "runtime/xsmm_gemm.h"
#include "tests/runtime/gemm_split_check.h"

namespace mlc::rt {
namespace {

TEST(XsmmGemm, PreferredOnlyForSmallF32Dots) {
  EXPECT_TRUE(XsmmGemm::preferred({1, 512, 64, 64}, DType::f32));
  EXPECT_TRUE(XsmmGemm::preferred({256, 32, 32, 16}, DType::f32));  // per product, not per batch
  EXPECT_FALSE(XsmmGemm::preferred({1, 512, 64, 64}, DType::f64));
  EXPECT_FALSE(XsmmGemm::preferred({1, 256, 4096, 1024}, DType::f32));
  EXPECT_FALSE(XsmmGemm::preferred({1, 8, 8, 0}, DType::f32));
  // A shared B folds the batch into the rows: one 8192x64x64 product.
  EXPECT_FALSE(XsmmGemm::preferred({16, 512, 64, 64, false, false, true}, DType::f32));
}

TEST(XsmmGemm, DeclinesTransposedB) {
  EXPECT_FALSE(XsmmGemm::create({1, 32, 32, 16, false, true}, 1).has_value());
  EXPECT_FALSE(XsmmGemm::create({4, 32, 32, 16, true, true}, 2).has_value());
}

TEST(XsmmGemm, EverySplitMatchesOpenBlas) {
  std::vector<blas::DotShape> shapes;
  for (bool ta : {false, true})
    for (bool shared : {false, true})
      for (auto [batch, m, n, k] : std::vector<std::array<int64_t, 4>>{
               {1, 67, 45, 33}, {1, 5, 130, 17}, {3, 21, 19, 40}, {6, 32, 32, 16}, {1, 1, 1, 1}})
        shapes.push_back({batch, m, n, k, ta, false, shared});
  testing::expect_every_split_matches_openblas(shapes, &XsmmGemm::create);
}

}  // namespace
}  // namespace mlc::rt
