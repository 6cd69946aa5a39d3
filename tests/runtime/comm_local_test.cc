// The local communicator (runtime/comm/local.h): every collective on every
// reducible dtype over meshes of 1, 2, 4 and 2x2 ranks (axis groups and the
// whole world), with results compared bit for bit against a rank-order
// reference; determinism under random delays; abort propagation, timeouts
// naming the missing rank, disagreement and size mismatch, send/recv order.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "runtime/comm/local.h"
#include "tests/runtime/comm_test_util.h"

namespace mlc::rt {
namespace {

using namespace std::chrono_literals;
using namespace comm_test;

std::vector<MeshShape> test_meshes() {
  return {mesh_of({}), mesh_of({{"dp", 1}}), mesh_of({{"dp", 2}}), mesh_of({{"dp", 4}}),
          mesh_of({{"dp", 2}, {"tp", 2}})};
}

CommOptions quick(std::chrono::milliseconds timeout = 5s) { return CommOptions{timeout}; }

void expect_all_ok(const std::vector<Status>& results) {
  for (size_t r = 0; r < results.size(); ++r)
    EXPECT_TRUE(results[r].ok()) << "rank " << r << ": " << results[r].error().message;
}

TEST(CommLocal, MeshShapeNumbersRanksRowMajor) {
  MeshShape m = mesh_of({{"dp", 2}, {"tp", 3}});
  EXPECT_EQ(m.num_ranks(), 6);
  EXPECT_EQ(m.coords(4), (std::vector<int>{1, 1}));
  EXPECT_EQ(m.to_string(), "dp=2,tp=3");
  EXPECT_EQ(mesh_of({}).num_ranks(), 1);
  EXPECT_TRUE(m.check().ok());
  EXPECT_EQ(mesh_of({{"dp", 2}, {"dp", 2}}).check().error().message, "mesh dp=2,dp=2 names axis 'dp' twice");
  EXPECT_EQ(mesh_of({{"dp", 0}}).check().error().message, "mesh dp=0: axis 'dp' must have size >= 1");
  auto bad = run_local_ranks(mesh_of({{"dp", 0}}), quick(), [](World&) { return Status{}; });
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_FALSE(bad[0].ok());
}

TEST(CommLocal, AxisGroupsShareTheOtherCoordinates) {
  MeshShape m = mesh_of({{"dp", 2}, {"tp", 2}});
  std::vector<std::vector<int>> tp(4), dp(4);
  expect_all_ok(run_local_ranks(m, quick(), [&](World& w) {
    EXPECT_EQ(w.size(), 4);
    EXPECT_EQ(w.all().rank(), w.rank());
    Group& d = w.axis_group(0);
    Group& t = w.axis_group(1);
    EXPECT_EQ(d.rank(), m.coords(w.rank())[0]);
    EXPECT_EQ(t.rank(), m.coords(w.rank())[1]);
    for (int r = 0; r < 2; ++r) {
      dp[static_cast<size_t>(w.rank())].push_back(d.world_rank(r));
      tp[static_cast<size_t>(w.rank())].push_back(t.world_rank(r));
    }
    return Status{};
  }));
  EXPECT_EQ(tp[2], (std::vector<int>{2, 3}));
  EXPECT_EQ(tp[1], (std::vector<int>{0, 1}));
  EXPECT_EQ(dp[1], (std::vector<int>{1, 3}));
  EXPECT_EQ(dp[2], (std::vector<int>{0, 2}));
}

TEST(CommLocal, ReductionsMatchTheRankOrderReferenceBitForBit) {
  for (const MeshShape& mesh : test_meshes()) expect_all_ok(run_local_ranks(mesh, quick(), check_reductions));
}

TEST(CommLocal, GatherAllToAllBroadcastBarrierMoveTheRightBytes) {
  for (const MeshShape& mesh : test_meshes()) expect_all_ok(run_local_ranks(mesh, quick(), check_data_movement));
}

TEST(CommLocal, SumsAreBitIdenticalWhateverTheArrivalOrder) {
  for (uint32_t run = 0; run < 2; ++run)
    expect_all_ok(run_local_ranks(mesh_of({{"dp", 4}}), quick(), [&](World& w) {
      return check_sums_under_random_delays(w, 200, run);
    }));
}

TEST(CommLocal, AFailedRankAbortsItsPeersCollectives) {
  const auto start = std::chrono::steady_clock::now();
  auto results = run_local_ranks(mesh_of({{"dp", 3}}), quick(10s), [](World& w) -> Status {
    float x = 1;
    MLC_CHECK_OK(w.all().all_reduce(&x, 1, DType::f32, ReduceOp::sum, "first"));
    if (w.rank() == 1) return make_error("model.json:3:1: error: boom");
    MLC_CHECK_OK(w.all().all_reduce(&x, 1, DType::f32, ReduceOp::sum, "second"));
    return make_error("unreachable");
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(results[1].error().message, "model.json:3:1: error: boom");
  EXPECT_EQ(results[0].error().message, "rank 0: second: rank 1 failed: model.json:3:1: error: boom");
  EXPECT_EQ(results[2].error().message, "rank 2: second: rank 1 failed: model.json:3:1: error: boom");
}

TEST(CommLocal, AnExceptionAbortsLikeAnError) {
  auto results = run_local_ranks(mesh_of({{"dp", 2}}), quick(10s), [](World& w) -> Status {
    if (w.rank() == 0) throw std::runtime_error("bad thing");
    return w.all().barrier("wait");
  });
  EXPECT_EQ(results[0].error().message, "rank 0: uncaught exception: bad thing");
  EXPECT_EQ(results[1].error().message, "rank 1: wait: rank 0 failed: rank 0: uncaught exception: bad thing");
}

TEST(CommLocal, ATimeoutNamesTheMissingRank) {
  const auto start = std::chrono::steady_clock::now();
  auto results = run_local_ranks(mesh_of({{"dp", 2}}), quick(100ms), [](World& w) -> Status {
    if (w.rank() == 1) return Status{};  // skips the collective
    double x = 1;
    return w.all().all_reduce(&x, 1, DType::f64, ReduceOp::sum, "all_reduce #3: grad of fc1.weight");
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(results[1].ok());
  EXPECT_EQ(results[0].error().message,
            "rank 0: all_reduce #3: grad of fc1.weight: timed out after 100 ms waiting for rank 1");
}

TEST(CommLocal, ATimeoutInOneGroupAbortsTheOthers) {
  // Rank 3 never joins the world barrier: whoever times out first names it,
  // and the others fail at once naming that rank.
  auto results = run_local_ranks(mesh_of({{"dp", 2}, {"tp", 2}}), quick(150ms), [](World& w) -> Status {
    if (w.rank() == 3) return Status{};
    return w.all().barrier("barrier #1");
  });
  int timed_out = 0;
  for (int r = 0; r < 3; ++r) {
    ASSERT_FALSE(results[static_cast<size_t>(r)].ok());
    const std::string& m = results[static_cast<size_t>(r)].error().message;
    if (m == "rank " + std::to_string(r) + ": barrier #1: timed out after 150 ms waiting for rank 3") ++timed_out;
    else EXPECT_NE(m.find("failed: barrier #1: timed out after 150 ms waiting for rank 3"), std::string::npos) << m;
  }
  EXPECT_GE(timed_out, 1);
  EXPECT_TRUE(results[3].ok());
}

TEST(CommLocal, SendRecvKeepOrderPerPairAndSendDoesNotWait) {
  expect_all_ok(run_local_ranks(mesh_of({{"pp", 3}}), quick(), check_send_recv_ring));
}

TEST(CommLocal, RecvChecksTheSizeAndTimesOutNamingThePeer) {
  auto results = run_local_ranks(mesh_of({{"pp", 2}}), quick(100ms), [](World& w) -> Status {
    int64_t v[2] = {1, 2};
    if (w.rank() == 0) return w.all().send(v, 16, 1, "activations of stage 0");
    return w.all().recv(v, 8, 0, "recv from stage 0");
  });
  EXPECT_TRUE(results[0].ok());
  EXPECT_EQ(results[1].error().message,
            "rank 1: recv from stage 0: expected 8 bytes from rank 0 but it sent 16 ('activations of stage 0')");
  results = run_local_ranks(mesh_of({{"pp", 2}}), quick(100ms), [](World& w) -> Status {
    int64_t v = 0;
    return w.rank() == 1 ? w.all().recv(&v, 8, 0, "recv #2") : Status{};
  });
  EXPECT_EQ(results[1].error().message, "rank 1: recv #2: timed out after 100 ms waiting for rank 0");
}

TEST(CommLocal, RanksThatDisagreeOnACollectiveFail) {
  auto results = run_local_ranks(mesh_of({{"dp", 2}}), quick(), [](World& w) -> Status {
    float x[8] = {};
    return w.all().all_reduce(x, w.rank() == 0 ? 4 : 8, DType::f32, ReduceOp::sum, w.rank() == 0 ? "a" : "b");
  });
  for (const Status& s : results) {
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find("ranks disagree on the collective: rank 0 called all_reduce(4 x f32, sum) 'a', "
                                     "rank 1 called all_reduce(8 x f32, sum) 'b'"),
              std::string::npos)
        << s.error().message;
  }
}

TEST(CommLocal, BadArgumentsAreErrors) {
  auto results = run_local_ranks(mesh_of({{"dp", 2}}), quick(), [](World& w) -> Status {
    bool b = true;
    if (w.rank() == 0) return w.all().all_reduce(&b, 1, DType::boolean, ReduceOp::sum, "flags");
    return w.all().broadcast(&b, 1, 2, "bcast");
  });
  EXPECT_EQ(results[0].error().message, "rank 0: flags: cannot reduce bool tensors (reduce i32 instead)");
  EXPECT_EQ(results[1].error().message.substr(0, 13), "rank 1: bcast");
}

TEST(CommLocal, WorldsMadeForOwnThreadsWork) {
  auto worlds = make_local_worlds(mesh_of({{"dp", 2}}), quick());
  ASSERT_TRUE(worlds.ok());
  int32_t a = 5, b = 7;
  std::thread t([&] { EXPECT_TRUE((*worlds)[1]->all().all_reduce(&b, 1, DType::i32, ReduceOp::sum, "x").ok()); });
  EXPECT_TRUE((*worlds)[0]->all().all_reduce(&a, 1, DType::i32, ReduceOp::sum, "x").ok());
  t.join();
  EXPECT_EQ(a, 12);
  EXPECT_EQ(b, 12);
}

}  // namespace
}  // namespace mlc::rt
