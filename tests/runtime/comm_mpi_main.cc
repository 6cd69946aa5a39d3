// The MPI communicator (runtime/comm/mpi.h), one rank per process: run under
// `mpirun -np 2` or `-np 4` (tests/CMakeLists.txt). Every rank runs the same
// GoogleTest cases (SPMD); the checks are those of the local communicator
// (tests/runtime/comm_test_util.h) on the meshes the world size allows.
//
// With --case=timeout or --case=abort the program instead makes a rank
// fail; the job must end (MPI_Abort) within seconds, and the output must
// name the collective and the rank (ctest matches it):
//   timeout: rank 0 all_reduces "lonely" with a 500 ms timeout while the
//            others wait (20 s timeout) in a recv tagged "waiting for rank 0";
//   abort:   rank 1 aborts with "boom at step 3" while the others wait in a
//            barrier with a 60 s timeout.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "runtime/comm/mpi.h"
#include "tests/runtime/comm_test_util.h"

namespace mlc::rt {
namespace {

using namespace std::chrono_literals;
using namespace comm_test;

int world_size() { return std::atoi(std::getenv("OMPI_COMM_WORLD_SIZE") ? std::getenv("OMPI_COMM_WORLD_SIZE") : "1"); }

// The meshes of world_size() ranks: dp=N, and dp=2,tp=2 for 4.
std::vector<MeshShape> meshes() {
  std::vector<MeshShape> m{mesh_of({{"dp", world_size()}})};
  if (world_size() == 4) m.push_back(mesh_of({{"dp", 2}, {"tp", 2}}));
  return m;
}

std::unique_ptr<World> make_world(const MeshShape& mesh, std::chrono::milliseconds timeout = 10s) {
  auto w = mpi_world(mesh, CommOptions{timeout});
  if (!w) {
    ADD_FAILURE() << w.error().message;
    return nullptr;
  }
  return std::move(w).value();
}

void expect_ok(const Status& s) { EXPECT_TRUE(s.ok()) << s.error().message; }

TEST(CommMpi, KnowsItWasLaunchedByMpirun) { EXPECT_TRUE(launched_by_mpi()); }

TEST(CommMpi, AMeshOfTheWrongSizeIsAnError) {
  auto w = mpi_world(mesh_of({{"dp", 3}, {"tp", 2}}), CommOptions{});
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error().message,
            "mpirun started " + std::to_string(world_size()) + " processes but mesh dp=3,tp=2 has 6 ranks");
}

TEST(CommMpi, GroupsFollowTheMesh) {
  for (const MeshShape& mesh : meshes()) {
    auto w = make_world(mesh);
    ASSERT_TRUE(w);
    for (size_t a = 0; a < mesh.axes.size(); ++a) {
      Group& g = w->axis_group(a);
      EXPECT_EQ(g.rank(), mesh.coords(w->rank())[a]);
      for (int r = 0; r < g.size(); ++r) EXPECT_EQ(g.world_rank(r), mesh.axis_group_ranks(w->rank(), a)[r]);
    }
  }
}

TEST(CommMpi, ReductionsMatchTheRankOrderReferenceBitForBit) {
  for (const MeshShape& mesh : meshes())
    if (auto w = make_world(mesh)) expect_ok(check_reductions(*w));
}

TEST(CommMpi, GatherAllToAllBroadcastBarrierMoveTheRightBytes) {
  for (const MeshShape& mesh : meshes())
    if (auto w = make_world(mesh)) expect_ok(check_data_movement(*w));
}

TEST(CommMpi, SumsAreBitIdenticalWhateverTheArrivalOrder) {
  if (auto w = make_world(meshes()[0])) expect_ok(check_sums_under_random_delays(*w, 100, 0));
}

TEST(CommMpi, SendRecvKeepOrderPerPairAndSendDoesNotWait) {
  if (auto w = make_world(meshes()[0])) expect_ok(check_send_recv_ring(*w));
}

TEST(CommMpi, BadArgumentsAreErrorsWithoutAborting) {
  auto w = make_world(meshes()[0]);
  ASSERT_TRUE(w);
  bool b = true;
  EXPECT_EQ(w->all().all_reduce(&b, 1, DType::boolean, ReduceOp::sum, "flags").error().message,
            "rank " + std::to_string(w->rank()) + ": flags: cannot reduce bool tensors (reduce i32 instead)");
  expect_ok(w->all().barrier("still usable"));
}

int failure_case(const std::string& which) {
  const bool timeout = which == "timeout";
  const MeshShape mesh = mesh_of({{"dp", world_size()}});
  // Only rank 0 times out (the others wait 20 s): on a loaded machine a rank
  // that starts late must not be the first to give up.
  const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const bool first = !env_rank || std::strcmp(env_rank, "0") == 0;
  auto made = mpi_world(mesh, CommOptions{timeout && first ? 500ms : timeout ? 20s : 60s});
  if (!made) {
    std::fprintf(stderr, "%s\n", made.error().message.c_str());
    return 1;
  }
  World& w = **made;
  if (timeout) {
    if (w.rank() == 0) {
      float x = 1;
      (void)w.all().all_reduce(&x, 1, DType::f32, ReduceOp::sum, "lonely");
    } else {
      float x = 0;
      (void)w.all().recv(&x, 4, 0, "waiting for rank 0");
    }
  } else {
    if (w.rank() == 1) w.abort("boom at step 3");
    (void)w.all().barrier("barrier after step 3");
  }
  std::fprintf(stderr, "rank %d: returned instead of ending the job\n", w.rank());
  return 0;
}

}  // namespace
}  // namespace mlc::rt

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--case=", 7) == 0) return mlc::rt::failure_case(argv[i] + 7);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
