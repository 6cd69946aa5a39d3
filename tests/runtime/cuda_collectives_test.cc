// The "cuda" target's collectives (runtime/cuda/cuda_collectives.h) on
// machines without a GPU: the executor end to end on the fake driver and a
// fake NCCL over host memory (tests/runtime/fake_cuda.h, fake_nccl.h), two
// ranks as threads of a local World: every collective's values equal
// run_collective's on the CPU, run eagerly, captured into a graph and
// replayed; the timeout, asynchronous errors, a missing NCCL, and what is
// refused. nccl_test.cc tests the pieces; cuda_nccl_gpu_test.cc runs on GPUs.
#include <gtest/gtest.h>

#include <cstring>
#include <mutex>

#include "runtime/collective_run.h"
#include "runtime/comm/local.h"
#include "runtime/cuda/cuda_executor.h"
#include "runtime/cuda/nccl.h"
#include "runtime/verify_executable.h"
#include "tests/runtime/cuda_collective_steps.h"
#include "tests/runtime/cuda_test_executables.h"
#include "tests/runtime/fake_nccl.h"
#include "tests/runtime/synthetic_cubin.h"

namespace mlc::rt {
namespace {

using namespace mlc::testing;

const MeshShape kDp2{{"dp"}, {2}};
const MeshShape kDp1{{"dp"}, {1}};

struct FakeCluster {
  cuda::CudaDevice device;
  FakeCluster() {
    fake_cuda().reset();
    fake_nccl().reset();
    device = *cuda::open_cuda_device(fake_driver(), 0);
  }
  ~FakeCluster() {
    EXPECT_EQ(fake_cuda().allocations, 0) << "everything the executors made is freed";
    EXPECT_EQ(fake_nccl().comms_made, fake_nccl().comms_destroyed + fake_nccl().comms_aborted)
        << "every communicator is destroyed or aborted";
    fake_nccl().reset();
  }
  cuda::CudaExecutorOptions options(bool graph = true) const {
    cuda::CudaExecutorOptions o;
    o.graph = graph;
    o.nccl_loader = []() -> Expected<const cuda::Nccl*> { return &fake_nccl_library(); };
    return o;
  }
  Expected<std::unique_ptr<cuda::CudaExecutor>> executor(std::shared_ptr<const Executable> e,
                                                         cuda::CudaExecutorOptions o) const {
    MLC_CHECK_OK(verify_executable(*e));
    return cuda::CudaExecutor::create(std::move(e), nullptr, device, std::move(o));
  }
};

// Runs body(world) on every rank of `mesh` and fails the test with each
// rank's error.
void on_ranks(const MeshShape& mesh, const std::function<Status(World&)>& body,
              std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  CommOptions options;
  options.timeout = timeout;
  const std::vector<Status> ranks = run_local_ranks(mesh, options, body);
  for (size_t r = 0; r < ranks.size(); ++r) EXPECT_TRUE(ranks[r].ok()) << "rank " << r << ": " << ranks[r].error().message;
}

// Three runs with new inputs (eager; captured into a graph; replayed), each
// result bit for bit run_collective's on the CPU over the same World.
Status run_against_the_cpu(FakeCluster& cluster, World& w, const TensorType& x_type, const Link& link,
                           const std::string& what) {
  auto exe = collective_step(x_type, {link});
  MLC_TRY(std::unique_ptr<cuda::CudaExecutor> x, cluster.executor(exe, cluster.options()));
  x->set_world(&w);
  for (int run = 0; run < 3; ++run) {
    Tensor in = step_input(x_type, w.rank(), run);
    Tensor* args[] = {&in};
    MLC_CHECK_OK(x->run(args));
    Tensor want(link.out);
    const Tensor* operands[] = {&in};
    MLC_CHECK_OK(run_collective(exe->instructions[1].collective, w, operands, want));
    EXPECT_EQ(bytes_of(x->result(0)), bytes_of(want)) << what << ", rank " << w.rank() << ", run " << run;
    EXPECT_EQ(x->replays_graph(), run >= 1) << what;
  }
  return {};
}

TEST(CudaCollectives, EveryCollectiveEqualsTheCpusOnTwoRanks) {
  struct Case {
    const char* what;
    CollectiveKind kind;
    DType dtype;
    Shape in, out;
    int64_t dim = 0, split = 0, concat = 0, peer = 0;
    bool max = false;
  };
  using K = CollectiveKind;
  const std::vector<Case> cases = {
      {"all_reduce sum", K::all_reduce, DType::f32, {2, 3}, {2, 3}},
      {"all_reduce max", K::all_reduce, DType::f32, {2, 3}, {2, 3}, 0, 0, 0, 0, true},
      {"all_reduce sum f64", K::all_reduce, DType::f64, {5}, {5}},
      {"all_reduce sum bf16", K::all_reduce, DType::bf16, {4}, {4}},
      {"all_reduce sum f16", K::all_reduce, DType::f16, {4}, {4}},
      {"all_reduce sum i32", K::all_reduce, DType::i32, {3}, {3}},
      {"all_reduce max i64", K::all_reduce, DType::i64, {3}, {3}, 0, 0, 0, 0, true},
      {"all_gather dim 0", K::all_gather, DType::f32, {2, 3}, {4, 3}},
      {"all_gather dim 1", K::all_gather, DType::f32, {2, 3}, {2, 6}, 1},
      {"all_gather dim 1 of bool", K::all_gather, DType::boolean, {3, 1}, {3, 2}, 1},
      {"all_gather dim 2", K::all_gather, DType::f64, {2, 1, 3}, {2, 1, 6}, 2},
      {"reduce_scatter dim 0", K::reduce_scatter, DType::f32, {4, 3}, {2, 3}},
      {"reduce_scatter dim 1", K::reduce_scatter, DType::f32, {3, 4}, {3, 2}, 1},
      {"reduce_scatter dim 1 of bf16", K::reduce_scatter, DType::bf16, {2, 4}, {2, 2}, 1},
      {"all_to_all split 1 concat 0", K::all_to_all, DType::f32, {2, 4}, {4, 2}, 0, 1, 0},
      {"all_to_all split 0 concat 1", K::all_to_all, DType::f32, {4, 2}, {2, 4}, 0, 0, 1},
      {"all_to_all split 1 concat 1", K::all_to_all, DType::f32, {2, 4}, {2, 4}, 0, 1, 1},
      {"collective_broadcast from rank 1", K::collective_broadcast, DType::f32, {2, 3}, {2, 3}, 0, 0, 0, 1},
      {"shard_slice dim 1", K::shard_slice, DType::f32, {2, 4}, {2, 2}, 1},
      {"shard_slice dim 0", K::shard_slice, DType::i32, {4, 3}, {2, 3}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    FakeCluster cluster;
    fake_nccl().in_progress_polls = 2;  // every call settles through ncclCommGetAsyncError
    Link link{collective(c.kind), TensorType{c.dtype, c.out}};
    link.c.dim = c.dim, link.c.split_dim = c.split, link.c.concat_dim = c.concat, link.c.peer = c.peer;
    link.c.reduce_max = c.max;
    on_ranks(kDp2, [&](World& w) { return run_against_the_cpu(cluster, w, TensorType{c.dtype, c.in}, link, c.what); });
    const bool local = c.kind == K::shard_slice || (c.kind == K::all_to_all && c.split == c.concat);
    EXPECT_EQ(fake_nccl().calls, local ? 0 : 2 * 2) << "called eagerly, then captured";
    if (c.kind == K::all_gather && c.dim > 0 && c.in[0] > 1) {
      EXPECT_EQ(fake_cuda().copies_2d, 2 * 3 * 2) << "a 2D copy per rank's chunk";
    }
    if (local) {
      EXPECT_EQ(fake_nccl().comms_made, 0) << "no NCCL where nothing is communicated";
    }
  }
}

// Point to point, both ways: rank 0 sends x and receives it back; rank 1
// receives and sends what it got. Two collectives in one step, in order.
TEST(CudaCollectives, SendAndRecvBetweenTwoRanks) {
  FakeCluster cluster;
  const TensorType t{DType::f32, {2, 3}};
  CollectiveParams send = collective(CollectiveKind::send), recv = collective(CollectiveKind::recv);
  send.peer = recv.peer = 1;
  auto first = collective_step(t, {{send, t}, {recv, t}});
  send.peer = recv.peer = 0;
  auto second = collective_step(t, {{recv, t}, {send, t}});
  std::vector<std::vector<std::byte>> sent(3);
  std::mutex mutex;
  on_ranks(kDp2, [&](World& w) -> Status {
    MLC_TRY(std::unique_ptr<cuda::CudaExecutor> x, cluster.executor(w.rank() == 0 ? first : second, cluster.options()));
    x->set_world(&w);
    for (int run = 0; run < 3; ++run) {
      Tensor in = step_input(t, w.rank(), run);
      Tensor* args[] = {&in};
      MLC_CHECK_OK(x->run(args));
      if (w.rank() == 0) {
        EXPECT_EQ(bytes_of(x->result(0)), bytes_of(in)) << "run " << run << ": x, there and back";
        std::lock_guard lock(mutex);
        sent[static_cast<size_t>(run)] = bytes_of(in);
      }
      MLC_CHECK_OK(w.all().barrier("compare"));
      if (w.rank() == 1) {
        EXPECT_EQ(bytes_of(x->result(0)), sent[static_cast<size_t>(run)]) << "run " << run;
      }
      MLC_CHECK_OK(w.all().barrier("compared"));
    }
    EXPECT_TRUE(x->replays_graph());
    return {};
  });
  EXPECT_EQ(fake_nccl().calls, 2 * 2 * 2) << "called eagerly, then captured";
}

// Profiled runs launch instruction by instruction, collectives included.
TEST(CudaCollectives, ProfilesCollectives) {
  FakeCluster cluster;
  const TensorType t{DType::f32, {2, 3}};
  on_ranks(kDp2, [&](World& w) -> Status {
    MLC_TRY(auto x, cluster.executor(collective_step(t, {{collective(CollectiveKind::all_reduce), t}}), cluster.options()));
    x->set_world(&w);
    x->enable_profiling();
    Tensor in = step_input(t, w.rank(), 0);
    Tensor* args[] = {&in};
    for (int run = 0; run < 2; ++run) MLC_CHECK_OK(x->run(args));
    EXPECT_EQ(x->profile()->calls, std::vector<int64_t>(3, 2));
    EXPECT_FALSE(x->replays_graph());
    return {};
  });
}

// A rank that never arrives: after the World's timeout every rank's
// collective fails naming itself and the axis, and later runs say the
// communicators were aborted. Eagerly (the first run) and in a graph's
// replay (the third).
TEST(CudaCollectives, ACollectiveThatDoesNotFinishTimesOut) {
  for (bool graph : {false, true}) {
    SCOPED_TRACE(graph ? "graph" : "eager");
    FakeCluster cluster;
    const TensorType t{DType::f32, {2, 3}};
    const int stalled_run = graph ? 2 : 0;
    std::vector<std::string> errors(2);
    const auto timeout = std::chrono::milliseconds(300);
    on_ranks(
        kDp2,
        [&](World& w) -> Status {
          // The first of two collectives stalls: the error names it, not the second.
          MLC_TRY(auto x, cluster.executor(collective_step(t, {{collective(CollectiveKind::all_reduce), t},
                                                               {collective(CollectiveKind::all_gather),
                                                                TensorType{DType::f32, {4, 3}}}}),
                                           cluster.options(graph)));
          x->set_world(&w);
          Tensor in = step_input(t, w.rank(), 0);
          Tensor* args[] = {&in};
          for (int run = 0; run < stalled_run; ++run) MLC_CHECK_OK(x->run(args));
          MLC_CHECK_OK(w.all().barrier("before the stall"));
          if (w.rank() == 0) {
            auto lock = fake_detail::device_lock();
            fake_nccl().stall_rank = 1;
          }
          MLC_CHECK_OK(w.all().barrier("stalled"));
          Status s = x->run(args);
          EXPECT_FALSE(s.ok());
          if (!s.ok()) errors[static_cast<size_t>(w.rank())] = s.error().message;
          EXPECT_EQ(x->replays_graph(), graph);
          Status again = x->run(args);
          EXPECT_FALSE(again.ok());
          if (!again.ok() && !s.ok()) {
            EXPECT_EQ(again.error().message, "all_reduce at m.json:3:5: NCCL's communicators were aborted: " +
                                                 s.error().message);
          }
          return {};
        },
        timeout);
    for (int r = 0; r < 2; ++r)
      EXPECT_EQ(errors[static_cast<size_t>(r)],
                "all_reduce at m.json:3:5: NCCL did not finish within 300 ms on axis dp (rank " + std::to_string(r) +
                    " of 2 there; this rank's NCCL communicators are aborted)");
    EXPECT_EQ(fake_nccl().comms_aborted, 2);
  }
}

// An error NCCL reports asynchronously (a peer's process gone) names the
// collective that has not finished, the NCCL call and what NCCL says.
TEST(CudaCollectives, AnAsynchronousNcclErrorNamesTheCollective) {
  FakeCluster cluster;
  const TensorType t{DType::f32, {2, 3}};
  std::vector<std::string> errors(2);
  on_ranks(kDp2, [&](World& w) -> Status {
    CollectiveParams gather = collective(CollectiveKind::all_gather);
    MLC_TRY(auto x, cluster.executor(collective_step(t, {{collective(CollectiveKind::all_reduce), t},
                                                         {gather, TensorType{DType::f32, {4, 3}}}}),
                                     cluster.options()));
    x->set_world(&w);
    Tensor in = step_input(t, w.rank(), 0);
    Tensor* args[] = {&in};
    MLC_CHECK_OK(x->run(args));
    MLC_CHECK_OK(w.all().barrier("ran"));
    if (w.rank() == 0) {
      auto lock = fake_detail::device_lock();
      fake_nccl().async_error = cuda::kNcclRemoteError;
      fake_nccl().last_error = "rank 1's process exited";
      fake_nccl().stall_rank = 1;
    }
    MLC_CHECK_OK(w.all().barrier("failed"));
    Status s = x->run(args);
    if (!s.ok()) errors[static_cast<size_t>(w.rank())] = s.error().message;
    return {};
  });
  for (const std::string& e : errors)
    EXPECT_EQ(e,
              "all_reduce at m.json:3:5: ncclAllReduce on axis dp failed: ncclRemoteError (remote process exited or "
              "there was a network error); NCCL says: rank 1's process exited (this rank's NCCL communicators are "
              "aborted)");
}

// Without libnccl.so.2 the first run with a collective says so, naming the
// collective, and so does every later run; a step whose collectives move
// nothing between ranks (shard_slice) needs no NCCL.
TEST(CudaCollectives, WithoutNcclTheFirstCollectiveSaysSo) {
  FakeCluster cluster;
  const TensorType t{DType::f32, {2, 4}};
  cuda::CudaExecutorOptions options = cluster.options();
  options.nccl_loader = []() -> Expected<const cuda::Nccl*> {
    auto n = cuda::load_nccl("libmlc-no-such-nccl.so.2");
    if (!n.ok()) return n.error();
    return make_error("libmlc-no-such-nccl.so.2 was found");
  };
  on_ranks(kDp1, [&](World& w) -> Status {
    MLC_TRY(auto x, cluster.executor(collective_step(t, {{collective(CollectiveKind::all_reduce), t}}), options));
    x->set_world(&w);
    Tensor in = step_input(t, 0, 0);
    Tensor* args[] = {&in};
    for (int run = 0; run < 2; ++run) {
      Status s = x->run(args);
      EXPECT_FALSE(s.ok());
      if (!s.ok()) {
        EXPECT_EQ(s.error().message,
                  "all_reduce at m.json:3:5: cuda: collectives need NCCL: libmlc-no-such-nccl.so.2 not found "
                  "(install NCCL, or add its lib directory to LD_LIBRARY_PATH)");
      }
    }
    CollectiveParams slice = collective(CollectiveKind::shard_slice);
    slice.dim = 1;
    MLC_TRY(auto local, cluster.executor(collective_step(t, {{slice, t}}), options));
    local->set_world(&w);
    MLC_CHECK_OK(local->run(args));
    EXPECT_EQ(bytes_of(local->result(0)), bytes_of(in));
    return {};
  });
}

// What the CPU refuses is refused with its messages, at the first run,
// before any NCCL call: no communicator, an axis the mesh lacks, sizes that
// do not fit the group, a peer outside it, a bool reduction.
TEST(CudaCollectives, WhatDoesNotFitTheWorldIsRefusedAsOnTheCpu) {
  FakeCluster cluster;
  const TensorType t{DType::f32, {2, 3}};
  {
    auto x = cluster.executor(collective_step(t, {{collective(CollectiveKind::all_reduce), t}}), cluster.options());
    ASSERT_TRUE(x.ok()) << x.error().message;
    Tensor in(t);
    Tensor* args[] = {&in};
    Status s = (*x)->run(args);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.error().message,
              "m.json:3:5: error: all_reduce: runs only on a device mesh (the program was started without a "
              "communicator)");
  }
  CollectiveParams tp = collective(CollectiveKind::all_reduce);
  tp.axis = "tp";
  CollectiveParams gather = collective(CollectiveKind::all_gather);
  CollectiveParams broadcast = collective(CollectiveKind::collective_broadcast);
  broadcast.peer = 2;
  const TensorType bools{DType::boolean, {4}};
  struct Case {
    TensorType x;
    Link link;
    std::string want;
  };
  const std::vector<Case> cases = {
      {t, {tp, t}, "all_reduce: mesh_axis 'tp' is not an axis of the communicator's mesh dp=2"},
      {t, {gather, TensorType{DType::f32, {6, 3}}},
       "all_gather at m.json:3:5 on axis 'dp' of 2 devices: operand f32[2,3] and result f32[6,3] do not fit 2 devices"},
      {t, {broadcast, t}, "collective_broadcast at m.json:3:5: rank 2 is not a rank of axis 'dp' (2 devices)"},
      {bools, {collective(CollectiveKind::all_reduce), bools},
       "all_reduce at m.json:3:5: cannot reduce bool tensors (reduce i32 instead)"},
  };
  for (const Case& c : cases) {
    on_ranks(kDp2, [&](World& w) -> Status {
      MLC_TRY(auto x, cluster.executor(collective_step(c.x, {c.link}), cluster.options()));
      x->set_world(&w);
      Tensor in(c.x);
      Tensor* args[] = {&in};
      for (int run = 0; run < 2; ++run) {
        Status s = x->run(args);
        EXPECT_FALSE(s.ok());
        if (!s.ok()) {
          EXPECT_EQ(s.error().message, c.want);
        }
      }
      return {};
    });
  }
  EXPECT_EQ(fake_nccl().comms_made, 0);
}

// An index out of range after a collective: the list is not run again to
// find the index (the collective would wait for peers that do not run it),
// so the message names the kernel and the check without the value.
TEST(CudaCollectives, AnIndexErrorAfterACollectiveIsNotRunAgain) {
  FakeCluster cluster;
  using Args = std::vector<cuda::CUdeviceptr>;
  auto i32 = [](cuda::CUdeviceptr p) { return reinterpret_cast<int*>(static_cast<uintptr_t>(p)); };
  auto f32 = [](cuda::CUdeviceptr p) { return reinterpret_cast<float*>(static_cast<uintptr_t>(p)); };
  auto& k = fake_cuda().kernels;
  k["copy_idx"] = {[=](unsigned, unsigned, const Args& a) { std::memcpy(i32(a[1]), i32(a[0]), 12); }, 3};
  k["gather"] = {[=](unsigned, unsigned, const Args& a) {
                   for (int i = 0; i < 3; ++i) {
                     int j = i32(a[1])[i];
                     if (j < 0 || j >= 4) *i32(a[3]) = 1, j = 0;
                     f32(a[2])[i] = f32(a[0])[j];
                   }
                 },
                 4};
  k["zero_idx"] = {[=](unsigned, unsigned, const Args& a) { std::memset(i32(a[1]), 0, 12); }, 3};
  // cuda_gather_executable with the table broadcast first (slot 5, from rank 0).
  auto e = cuda_gather_executable(synthetic_cubin(90));
  e->slots.push_back(cuda_slot(DType::f32, {4}, -1, 512));
  e->arena_bytes = 768;
  Instruction bcast = cuda_instruction(InstrKind::collective, {1}, 5, "collective_broadcast", 1);
  bcast.collective = collective(CollectiveKind::collective_broadcast);
  bcast.collective.axis = "dp";
  bcast.collective.tag = "collective_broadcast at m.json:1:1";
  e->instructions.insert(e->instructions.begin(), bcast);
  e->instructions[2].operands[0] = 5;  // gather reads the broadcast table
  on_ranks(kDp1, [&](World& w) -> Status {
    MLC_CHECK_OK(verify_executable(*e));
    auto code = cuda::load_cuda_code(*e->code, cluster.device);
    if (!code.ok()) return code.error();
    MLC_TRY(auto x, cuda::CudaExecutor::create(e, *code, cluster.device, cluster.options()));
    x->set_world(&w);
    Tensor idx(TensorType{DType::i32, {3}}), table(TensorType{DType::f32, {4}});
    for (int i = 0; i < 4; ++i) table.data<float>()[i] = static_cast<float>(10 * (i + 1));
    Tensor* args[] = {&idx, &table};
    idx.data<int>()[0] = 1, idx.data<int>()[1] = 3, idx.data<int>()[2] = 2;
    MLC_CHECK_OK(x->run(args));
    EXPECT_EQ(std::vector<float>(x->result(0).data<float>(), x->result(0).data<float>() + 3),
              (std::vector<float>{20, 40, 30}));
    idx.data<int>()[1] = 7;
    Status s = x->run(args);
    EXPECT_FALSE(s.ok());
    if (!s.ok()) {
      EXPECT_EQ(s.error().message,
                "m.json:3:1: error: function 'lookup': kernel gather (%2 gather (m.json:3:5)): an index out of range "
                "(the step's collectives before this kernel cannot run again alone to find which; run on the CPU to "
                "name it)");
    }
    return {};
  });
}

}  // namespace
}  // namespace mlc::rt
