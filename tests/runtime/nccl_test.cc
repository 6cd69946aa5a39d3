// The pieces of the "cuda" target's collectives that need no executor:
// NCCL's loader, names and versions (and the toolkit's libnccl.so.2 where
// this machine has it), the chunk layout of the 2D copies against the CPU's
// chunks (runtime/cuda/chunk_rows.h), the GPU a rank picks
// (runtime/cuda/rank_device.h), and NCCL_ALGO's default
// (runtime/cuda/nccl_world.h).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/cuda/chunk_rows.h"
#include "runtime/cuda/nccl.h"
#include "runtime/cuda/nccl_world.h"
#include "runtime/cuda/rank_device.h"
#include "runtime/tensor_chunks.h"

namespace mlc::rt {
namespace {

TEST(Nccl, LoaderErrorsAndNames) {
  auto none = cuda::load_nccl("libmlc-no-such-nccl.so.2");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message,
            "cuda: collectives need NCCL: libmlc-no-such-nccl.so.2 not found (install NCCL, or add its lib directory "
            "to LD_LIBRARY_PATH)");
  auto libm = cuda::load_nccl("libm.so.6");
  ASSERT_FALSE(libm.ok());
  EXPECT_EQ(libm.error().message, "cuda: libm.so.6 lacks ncclGetVersion");

  EXPECT_EQ(cuda::nccl_version_name(22809), "2.28.9");
  EXPECT_EQ(cuda::nccl_version_name(21800), "2.18.0");
  EXPECT_EQ(cuda::nccl_version_name(2804), "2.8.4");
  EXPECT_TRUE(cuda::check_nccl_version(21800).ok());
  EXPECT_EQ(cuda::check_nccl_version(21203).error().message,
            "cuda: NCCL 2.12.3 (21203) is too old: mlc needs NCCL 2.18.0 (21800) or newer");
  EXPECT_EQ(cuda::nccl_result_name(cuda::kNcclRemoteError), "ncclRemoteError");
  EXPECT_EQ(cuda::nccl_result_name(42), "ncclResult_t 42");
  EXPECT_EQ(cuda::nccl_reduce_type(DType::bf16), cuda::kNcclBfloat16);
  EXPECT_EQ(cuda::nccl_reduce_type(DType::boolean), std::nullopt);

  // Error texts over a table whose NCCL says what NCCL 2.28 says.
  static std::string last;
  last.clear();
  cuda::Nccl n;
  n.ncclGetErrorString = [](cuda::ncclResult_t r) -> const char* {
    return r == cuda::kNcclRemoteError ? "remote process exited or there was a network error"
                                       : "invalid usage (run with NCCL_DEBUG=WARN for details)";
  };
  n.ncclGetLastError = [](cuda::ncclComm_t) { return last.c_str(); };
  EXPECT_EQ(n.error_text("ncclAllReduce", cuda::kNcclRemoteError),
            "ncclAllReduce failed: ncclRemoteError (remote process exited or there was a network error)");
  last = "peer 1 is gone";
  EXPECT_EQ(n.error_text("ncclSend", cuda::kNcclInvalidUsage),
            "ncclSend failed: ncclInvalidUsage (invalid usage (run with NCCL_DEBUG=WARN for details)); NCCL says: peer "
            "1 is gone");
  EXPECT_TRUE(n.check(cuda::kNcclSuccess, "ncclSend").ok());
}

// The toolkit's libnccl.so.2, where this machine has it: it loads without a
// GPU (nothing is initialized before a communicator is made), and its
// version and error strings are what the messages use.
TEST(Nccl, TheRealLibraryLoads) {
  auto n = cuda::nccl();
  if (!n.ok()) GTEST_SKIP() << n.error().message;
  EXPECT_GE((*n)->version, cuda::kMinNcclVersion);
  EXPECT_EQ((*n)->library, "libnccl.so.2");
  EXPECT_EQ((*n)->error_text("ncclAllReduce", cuda::kNcclRemoteError),
            "ncclAllReduce failed: ncclRemoteError (remote process exited or there was a network error)");
}

// One 2D copy per chunk (chunk_rows.h), done on the host, moves exactly the
// bytes the CPU's extract_chunk and insert_chunk move.
TEST(ChunkRows, TwoDimensionalCopiesAreTheCpusChunks) {
  struct Case {
    Shape shape;
    int64_t d, n;
  };
  for (const Case& c : {Case{{2, 6}, 1, 2}, Case{{6, 2}, 0, 3}, Case{{2, 3, 4}, 1, 3}, Case{{3, 2, 4}, 2, 4},
                        Case{{1, 1, 8}, 2, 2}, Case{{1, 4, 3}, 1, 2}, Case{{5}, 0, 5}}) {
    const int64_t e = 4;
    const TensorType t{DType::f32, c.shape};
    std::vector<std::byte> whole(static_cast<size_t>(t.num_bytes()));
    for (size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<std::byte>(i * 7 + 1);
    const cuda::ChunkRows rows = cuda::chunk_rows(c.shape, e, c.d, c.n);
    EXPECT_EQ(rows.rows * rows.pitch, t.num_bytes());
    bool leading = true;
    for (int64_t i = 0; i < c.d; ++i) leading = leading && c.shape[static_cast<size_t>(i)] == 1;
    EXPECT_EQ(rows.contiguous(), leading);
    const size_t chunk_bytes = whole.size() / static_cast<size_t>(c.n);
    std::vector<std::byte> rebuilt(whole.size());
    for (int64_t k = 0; k < c.n; ++k) {
      std::vector<std::byte> want(chunk_bytes), got(chunk_bytes);
      extract_chunk(c.shape, e, c.d, c.n, k, whole.data(), want.data());
      for (int64_t r = 0; r < rows.rows; ++r)  // extract: src pitch = pitch, dst pitch = width
        std::memcpy(got.data() + r * rows.width, whole.data() + rows.offset(k) + r * rows.pitch,
                    static_cast<size_t>(rows.width));
      EXPECT_EQ(got, want) << "chunk " << k << " of " << t.str() << " along " << c.d;
      for (int64_t r = 0; r < rows.rows; ++r)  // insert: the same, swapped
        std::memcpy(rebuilt.data() + rows.offset(k) + r * rows.pitch, got.data() + r * rows.width,
                    static_cast<size_t>(rows.width));
    }
    EXPECT_EQ(rebuilt, whole) << t.str() << " along " << c.d;
  }
}

TEST(RankDevice, LaunchedProcessesUseTheirLocalRank) {
  EXPECT_EQ(*cuda::rank_device_ordinal(2, "1", "0", "3"), 1);
  EXPECT_EQ(*cuda::rank_device_ordinal(4, nullptr, "3", nullptr), 3);
  EXPECT_EQ(*cuda::rank_device_ordinal(2, nullptr, nullptr, "2"), 2);
  // One process (or no launcher): $MLC_CUDA_DEVICE, even inside a Slurm job.
  EXPECT_EQ(*cuda::rank_device_ordinal(1, "0", "0", "2"), 2);
  EXPECT_EQ(*cuda::rank_device_ordinal(0, nullptr, nullptr, nullptr), 0);
  EXPECT_EQ(cuda::rank_device_ordinal(2, "one", nullptr, nullptr).error().message,
            "OMPI_COMM_WORLD_LOCAL_RANK is 'one': expected a process index (0, 1, ...)");
  EXPECT_EQ(cuda::rank_device_ordinal(2, nullptr, "", "x").error().message,
            "MLC_CUDA_DEVICE is 'x': expected a GPU ordinal (0, 1, ...)");
  EXPECT_EQ(cuda::rank_device_ordinal(2, nullptr, "-1", nullptr).error().message,
            "SLURM_LOCALID is '-1': expected a process index (0, 1, ...)");
}

TEST(NcclWorld, RingUnlessTheEnvironmentChoosesAnAlgorithm) {
  const char* before = std::getenv("NCCL_ALGO");
  const std::string saved = before ? before : "";
  setenv("NCCL_ALGO", "Tree", 1);
  EXPECT_FALSE(cuda::default_nccl_algorithm());
  EXPECT_STREQ(std::getenv("NCCL_ALGO"), "Tree");
  unsetenv("NCCL_ALGO");
  EXPECT_TRUE(cuda::default_nccl_algorithm());
  EXPECT_STREQ(std::getenv("NCCL_ALGO"), "Ring");
  if (before) setenv("NCCL_ALGO", saved.c_str(), 1);
  else unsetenv("NCCL_ALGO");
}

}  // namespace
}  // namespace mlc::rt
