// The runtime's thread pool runs every share of a region exactly once, on
// any pool size and share count, region after region; and a GEMM split into
// shares (blas::dot_part) writes every element of the unsplit one, equal to
// it within the rounding of a k-term f32 dot product.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <random>
#include <vector>

#include "runtime/blas.h"
#include "runtime/thread_pool.h"

namespace mlc::rt {
namespace {

TEST(ThreadPool, RunsEveryShareOnceInEveryRegion) {
  for (int threads : {1, 2, 3, 8}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.threads(), threads);
    for (int region = 0; region < 2000; ++region) {
      const int n = 1 + region % threads;
      std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
      auto fn = [&](int t) { runs[static_cast<size_t>(t)].fetch_add(1); };
      pool.parallel(n, fn);
      for (int t = 0; t < n; ++t) ASSERT_EQ(runs[static_cast<size_t>(t)].load(), 1) << threads << " " << region << " " << t;
    }
  }
}

TEST(ThreadPool, RunsMoreSharesThanThreads) {
  ThreadPool pool(2);
  for (int n : {3, 7, 64}) {
    std::vector<std::atomic<int>> runs(static_cast<size_t>(n));
    auto fn = [&](int t) { runs[static_cast<size_t>(t)].fetch_add(1); };
    pool.parallel(n, fn);
    for (int t = 0; t < n; ++t) EXPECT_EQ(runs[static_cast<size_t>(t)].load(), 1) << n << " " << t;
  }
}

TEST(ThreadPool, RegionsSeeTheCallersWritesAndTheCallerSeesTheirs) {
  ThreadPool pool(2);
  std::vector<int64_t> data(1 << 12);
  for (int region = 0; region < 200; ++region) {
    for (size_t i = 0; i < data.size(); ++i) data[i] = region;
    auto fn = [&](int t) {
      int64_t begin, end;
      split_range(static_cast<int64_t>(data.size()), 2, t, begin, end);
      for (int64_t i = begin; i < end; ++i) data[static_cast<size_t>(i)] += i;
    };
    pool.parallel(2, fn);
    for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], region + static_cast<int64_t>(i));
  }
}

TEST(ThreadPool, SplitRangeCoversTheRangeInOrder) {
  for (int64_t total : {0, 1, 5, 64, 1001})
    for (int parts : {1, 2, 3, 7}) {
      int64_t next = 0;
      for (int t = 0; t < parts; ++t) {
        int64_t b, e;
        split_range(total, parts, t, b, e);
        EXPECT_EQ(b, next);
        EXPECT_LE(b, e);
        next = e;
      }
      EXPECT_EQ(next, total);
    }
}

TEST(ThreadPool, ProcessPoolFollowsSetNumThreads) {
  set_num_threads(3);
  EXPECT_EQ(num_threads(), 3);
  set_num_threads(0);
  EXPECT_EQ(num_threads(), 1);
}

// Every way of splitting a dot (by batch, by rows, by columns; transposed
// operands, shared B) writes every element of the unsplit dot. Not always
// its bits: OpenBLAS chooses kernels by size (small-matrix kernels below a
// threshold), so a share may round differently; each element stays within
// the bound of a k-term f32 dot product, k * 2^-24 * sum |a_i b_i| <= k * 2^-24
// here (|a|, |b| <= 1), and the split is deterministic.
TEST(DotPart, SharesTogetherAreTheWholeDot) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<blas::DotShape> shapes;
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (bool shared : {false, true})
        for (auto [batch, m, n, k] : std::vector<std::array<int64_t, 4>>{
                 {1, 37, 5, 19}, {1, 3, 41, 8}, {3, 17, 9, 33}, {1, 1, 1, 1}, {2, 0, 4, 3}, {5, 6, 7, 0}})
          shapes.push_back({batch, m, n, k, ta, tb, shared});
  for (const blas::DotShape& d : shapes) {
    std::vector<float> a(static_cast<size_t>(d.batch * d.m * d.k)), b(static_cast<size_t>((d.b_shared ? 1 : d.batch) * d.k * d.n));
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    std::vector<float> whole(static_cast<size_t>(d.batch * d.m * d.n), -7.0f);
    blas::dot(d, a.data(), b.data(), whole.data());
    for (int parts : {2, 3, 4}) {
      std::vector<float> split(whole.size(), -7.0f), again(whole.size(), -7.0f);
      for (int t = parts; t-- > 0;) blas::dot_part(d, parts, t, a.data(), b.data(), split.data());
      for (int t = 0; t < parts; ++t) blas::dot_part(d, parts, t, a.data(), b.data(), again.data());
      float worst = 0;
      for (size_t i = 0; i < whole.size(); ++i) worst = std::max(worst, std::fabs(split[i] - whole[i]));
      EXPECT_TRUE(split == again);
      EXPECT_LE(worst, static_cast<float>(d.k) * 0x1p-24f) << "batch " << d.batch << " m " << d.m << " n " << d.n << " k " << d.k << " ta "
                                  << d.trans_a << " tb " << d.trans_b << " shared " << d.b_shared << " parts " << parts;
    }
  }
}

TEST(DotPart, ThreadsGrowWithWorkAndNeverExceedTheSplittableDims) {
  EXPECT_EQ(blas::dot_threads({1, 8, 8, 8}, 2), 1);              // tiny: one thread
  EXPECT_EQ(blas::dot_threads({1, 1024, 1024, 1024}, 2), 2);     // large: both
  EXPECT_EQ(blas::dot_threads({1, 1, 1, 1 << 24}, 4), 1);        // nothing to split
  EXPECT_EQ(blas::dot_threads({1, 1024, 1024, 1024}, 1), 1);
}

}  // namespace
}  // namespace mlc::rt
