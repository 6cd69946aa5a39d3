// The "cuda" target's collectives on GPUs (ctest -L gpu; every test skips
// without an NVIDIA driver, or without NCCL where it needs it): the
// driver's 2D copies move the CPU's chunks; every collective through the
// executor on a World of one rank (NCCL communicators of one GPU: the
// values are the inputs, and what is checked is that NCCL, the comm stream
// and its events, the scratch copies and the capture into a CUDA graph
// work), eagerly, as a replayed graph and profiled; and, where the machine
// has two GPUs, two ranks as threads against the CPU's run_collective.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>

#include "runtime/collective_run.h"
#include "runtime/comm/local.h"
#include "runtime/cuda/chunk_rows.h"
#include "runtime/cuda/cuda_executor.h"
#include "runtime/cuda/nccl.h"
#include "runtime/cuda/rank_device.h"
#include "runtime/tensor_chunks.h"
#include "runtime/verify_executable.h"
#include "tests/runtime/cuda_collective_steps.h"

namespace mlc::rt {
namespace {

using namespace mlc::testing;

class CudaGpuNccl : public ::testing::Test {
 protected:
  void SetUp() override {
    auto driver = cuda::cuda_driver();
    if (!driver.ok()) GTEST_SKIP() << driver.error().message;
    auto ordinal = cuda::rank_device_ordinal();
    ASSERT_TRUE(ordinal.ok()) << ordinal.error().message;
    auto device = cuda::cuda_device(*ordinal);
    ASSERT_TRUE(device.ok()) << device.error().message;
    device_ = *device;
  }
  cuda::CudaExecutorOptions options(bool graph) const {
    cuda::CudaExecutorOptions o;
    o.graph = graph;
    return o;
  }

  const cuda::CudaDevice* device_ = nullptr;
};

// Chunk c of n along d out of a whole tensor and back in, each with one
// cuMemcpy2DAsync as cuda_collectives.cc makes it, against extract_chunk.
TEST_F(CudaGpuNccl, TwoDimensionalCopiesMoveTheCpusChunks) {
  const cuda::CudaDriver& cu = *device_->cu;
  ASSERT_TRUE(device_->make_current().ok());
  cuda::CUstream stream = nullptr;
  ASSERT_TRUE(cu.check(cu.cuStreamCreate(&stream, cuda::kStreamNonBlocking), "cuStreamCreate").ok());
  const Shape shape{3, 8, 5};
  const TensorType t{DType::f32, shape};
  const auto bytes = static_cast<size_t>(t.num_bytes());
  std::vector<std::byte> whole(bytes), back(bytes);
  for (size_t i = 0; i < bytes; ++i) whole[i] = static_cast<std::byte>(i * 13 + 5);
  cuda::CUdeviceptr dwhole = 0, dchunk = 0, drebuilt = 0;
  ASSERT_EQ(cu.cuMemAlloc(&dwhole, bytes), cuda::kCudaSuccess);
  ASSERT_EQ(cu.cuMemAlloc(&dchunk, bytes), cuda::kCudaSuccess);
  ASSERT_EQ(cu.cuMemAlloc(&drebuilt, bytes), cuda::kCudaSuccess);
  ASSERT_EQ(cu.cuMemcpyHtoDAsync(dwhole, whole.data(), bytes, stream), cuda::kCudaSuccess);
  for (int64_t d : {0, 1, 2})
    for (int64_t n : {1, 2, 4}) {
      if (shape[static_cast<size_t>(d)] % n) continue;
      const cuda::ChunkRows rows = cuda::chunk_rows(shape, 4, d, n);
      for (int64_t c = 0; c < n; ++c) {
        const cuda::CudaMemcpy2D out = cuda::device_copy_2d(dchunk, rows.width, dwhole + rows.offset(c), rows.pitch,
                                                            rows.width, rows.rows);
        ASSERT_EQ(cu.cuMemcpy2DAsync(&out, stream), cuda::kCudaSuccess);
        const cuda::CudaMemcpy2D in = cuda::device_copy_2d(drebuilt + rows.offset(c), rows.pitch, dchunk, rows.width,
                                                           rows.width, rows.rows);
        ASSERT_EQ(cu.cuMemcpy2DAsync(&in, stream), cuda::kCudaSuccess);
        std::vector<std::byte> got(bytes / static_cast<size_t>(n)), want(got.size());
        ASSERT_EQ(cu.cuMemcpyDtoHAsync(got.data(), dchunk, got.size(), stream), cuda::kCudaSuccess);
        ASSERT_EQ(cu.cuStreamSynchronize(stream), cuda::kCudaSuccess);
        extract_chunk(shape, 4, d, n, c, whole.data(), want.data());
        EXPECT_EQ(got, want) << "chunk " << c << " of " << n << " along " << d;
      }
      ASSERT_EQ(cu.cuMemcpyDtoHAsync(back.data(), drebuilt, bytes, stream), cuda::kCudaSuccess);
      ASSERT_EQ(cu.cuStreamSynchronize(stream), cuda::kCudaSuccess);
      EXPECT_EQ(back, whole) << n << " chunks along " << d;
    }
  for (cuda::CUdeviceptr p : {dwhole, dchunk, drebuilt}) cu.cuMemFree(p);
  cu.cuStreamDestroy(stream);
}

// Every collective on a World of one rank, through the executor: three
// modes (a captured graph, eager, profiled), four runs each, every result
// the CPU's (for one rank: the input, moved through NCCL and the scratch).
TEST_F(CudaGpuNccl, EveryCollectiveOnOneRank) {
  if (auto n = cuda::nccl(); !n.ok()) GTEST_SKIP() << n.error().message;
  using K = CollectiveKind;
  const TensorType t{DType::f32, {2, 4}};
  CollectiveParams max = collective(K::all_reduce), gather = collective(K::all_gather),
                   scatter = collective(K::reduce_scatter), a2a = collective(K::all_to_all),
                   slice = collective(K::shard_slice);
  max.reduce_max = true;
  gather.dim = scatter.dim = slice.dim = 1;
  a2a.split_dim = 1, a2a.concat_dim = 0;
  const std::vector<Link> links = {{collective(K::all_reduce), t}, {max, t}, {gather, t}, {scatter, t}, {a2a, t},
                                   {collective(K::collective_broadcast), t}, {slice, t}};
  auto exe = collective_step(t, links);
  ASSERT_TRUE(verify_executable(*exe).ok()) << verify_executable(*exe).error().message;
  for (int mode = 0; mode < 3; ++mode) {
    const std::vector<Status> ranks = run_local_ranks(MeshShape{{"dp"}, {1}}, {}, [&](World& w) -> Status {
      MLC_TRY(auto x, cuda::CudaExecutor::create(exe, nullptr, *device_, options(mode == 0)));
      x->set_world(&w);
      if (mode == 2) x->enable_profiling();
      for (int run = 0; run < 4; ++run) {
        Tensor in = step_input(t, 0, run);
        Tensor* args[] = {&in};
        MLC_CHECK_OK(x->run(args));
        EXPECT_EQ(bytes_of(x->result(0)), bytes_of(in)) << "mode " << mode << " run " << run;
      }
      EXPECT_EQ(x->replays_graph(), mode == 0) << "NCCL's calls are captured into the graph";
      if (mode == 2) {
        EXPECT_EQ(x->profile()->calls, std::vector<int64_t>(links.size() + 2, 4));
      }
      return {};
    });
    ASSERT_TRUE(ranks[0].ok()) << "mode " << mode << ": " << ranks[0].error().message;
  }
}

// Two GPUs, two ranks as threads of one process, each collective against
// run_collective on the CPU, graph replays included.
TEST_F(CudaGpuNccl, TwoGpusMatchTheCpu) {
  if (auto n = cuda::nccl(); !n.ok()) GTEST_SKIP() << n.error().message;
  int count = 0;
  ASSERT_EQ(device_->cu->cuDeviceGetCount(&count), cuda::kCudaSuccess);
  if (count < 2) GTEST_SKIP() << "this machine has " << count << " GPU";
  using K = CollectiveKind;
  struct Case {
    TensorType in;
    Link link;
  };
  auto with = [](CollectiveParams c, int64_t dim) {
    c.dim = c.split_dim = dim;
    c.concat_dim = 1 - dim;
    return c;
  };
  const TensorType a{DType::f32, {4, 6}};
  const std::vector<Case> cases = {
      {a, {collective(K::all_reduce), a}},
      {TensorType{DType::bf16, {8}}, {collective(K::all_reduce), TensorType{DType::bf16, {8}}}},
      {a, {with(collective(K::all_gather), 0), TensorType{DType::f32, {8, 6}}}},
      {a, {with(collective(K::all_gather), 1), TensorType{DType::f32, {4, 12}}}},
      {a, {with(collective(K::reduce_scatter), 0), TensorType{DType::f32, {2, 6}}}},
      {a, {with(collective(K::reduce_scatter), 1), TensorType{DType::f32, {4, 3}}}},
      {a, {with(collective(K::all_to_all), 1), TensorType{DType::f32, {8, 3}}}},
      {a, {with(collective(K::shard_slice), 1), TensorType{DType::f32, {4, 3}}}},
  };
  for (const Case& c : cases) {
    auto exe = collective_step(c.in, {c.link});
    ASSERT_TRUE(verify_executable(*exe).ok()) << verify_executable(*exe).error().message;
    const std::vector<Status> ranks = run_local_ranks(MeshShape{{"dp"}, {2}}, {}, [&](World& w) -> Status {
      MLC_TRY(const cuda::CudaDevice* device, cuda::cuda_device(w.rank()));
      MLC_TRY(auto x, cuda::CudaExecutor::create(exe, nullptr, *device, options(true)));
      x->set_world(&w);
      for (int run = 0; run < 3; ++run) {
        Tensor in = step_input(c.in, w.rank(), run);
        Tensor* args[] = {&in};
        MLC_CHECK_OK(x->run(args));
        Tensor want(c.link.out);
        const Tensor* operands[] = {&in};
        MLC_CHECK_OK(run_collective(exe->instructions[1].collective, w, operands, want));
        // Two ranks: a + b in either order is the CPU's sum.
        EXPECT_EQ(bytes_of(x->result(0)), bytes_of(want))
            << collective_kind_name(c.link.c.kind) << " rank " << w.rank() << " run " << run;
      }
      return {};
    });
    for (size_t r = 0; r < ranks.size(); ++r) EXPECT_TRUE(ranks[r].ok()) << "rank " << r << ": " << ranks[r].error().message;
  }
}

}  // namespace
}  // namespace mlc::rt
