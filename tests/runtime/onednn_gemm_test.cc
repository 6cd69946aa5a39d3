// Large GEMMs on oneDNN (runtime/onednn_gemm.h): every split into shares (by
// batch, rows or columns; transposed operands; shared B) computes the dot
// that OpenBLAS computes, deterministically (tests/runtime/gemm_split_check.h).
#include <gtest/gtest.h>

#include <array>
#include <optional>
#include <vector>

#include <dnnl.hpp>

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

// A batch folded into the rows (B shared, A not transposed: x [8, 128, 256]
// times a weight) is one share of batch 1 whose batch stride is one batch's
// matrix; oneDNN's brgemm kernels refuse a batch stride smaller than the
// matrix, and its fallback, gemm:jit, ran gpt256's bf16 products at a few
// percent of brgemm's rate. Where this CPU has brgemm kernels for the dtype,
// every such share must get one, in every layout.
TEST(OneDnnGemm, FoldedBatchesGetTheBrgemmKernels) {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  if (isa < dnnl::cpu_isa::avx512_core) GTEST_SKIP() << "oneDNN has no brgemm kernels on this CPU (no AVX-512)";
  for (DType dtype : {DType::f32, DType::bf16}) {
    if (dtype == DType::bf16 && isa < dnnl::cpu_isa::avx512_core_bf16) continue;  // f32 is checked
    for (bool tb : {false, true})
      for (int parts : {1, 2}) {
        const blas::DotShape d{8, 128, 256, 256, false, tb, true};
        Expected<OneDnnGemm> g = OneDnnGemm::create(d, parts, 1, 0, dtype);
        ASSERT_TRUE(g.ok()) << g.error().message;
        for (int t = 0; t < g->parts(); ++t)
          EXPECT_EQ(g->implementation(t).rfind("brg:", 0), 0u)
              << dtype_name(dtype) << " transpose_b=" << tb << " share " << t << " of " << parts << ": "
              << g->implementation(t);
      }
  }
}

// Threads for a GEMM: with AMX a bf16 product of tiny_gpt's weight-gradient
// size (64x64x512, 2M multiply-adds) is faster on one thread than split in
// two, where sgemm's threshold would split it; large ones still split.
TEST(OneDnnGemm, HalfProductsNeedMoreWorkPerThreadUnderAmx) {
  const blas::DotShape small{1, 64, 64, 512, true, false, true}, large{1, 1024, 256, 256, false, true, true};
  EXPECT_EQ(blas::dot_threads(small, 2, OneDnnGemm::min_thread_work(DType::f32)), 2);
  const bool amx = dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core_amx;
  for (DType dtype : {DType::bf16, DType::f16}) {
    EXPECT_EQ(blas::dot_threads(small, 2, OneDnnGemm::min_thread_work(dtype)), amx ? 1 : 2) << dtype_name(dtype);
    EXPECT_EQ(blas::dot_threads(large, 2, OneDnnGemm::min_thread_work(dtype)), 2) << dtype_name(dtype);
  }
}

}  // namespace
}  // namespace mlc::rt
