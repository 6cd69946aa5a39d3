// Rank (driver/rank.h): local parts and their gathering on local ranks, data
// ranks from the inputs' placements, sharded checkpoints written by the
// ranks (driver/sharded_checkpoint.h), a failing rank ending its peers'
// collectives with its name instead of a hang, and a collective of the
// compiled train step that times out naming itself and the missing rank.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <numeric>

#include "runtime/checkpoint.h"
#include "runtime/comm/local.h"
#include "runtime/safetensors.h"
#include "driver/mesh_train.h"
#include "driver/rank.h"
#include "driver/sharded_checkpoint.h"

namespace mlc {
namespace {

rt::Tensor iota_tensor(Shape shape) {
  rt::Tensor t(DType::f32, std::move(shape));
  std::iota(t.data<float>(), t.data<float>() + t.num_elements(), 0.0f);
  return t;
}

// Every rank's local part is its chunk (first axis outer), and gathering the
// parts gives every rank the whole tensor back.
TEST(Rank, LocalPartsGatherToTheWhole) {
  const Mesh mesh = *Mesh::parse("dp=2,fsdp=2");
  const rt::Tensor global = iota_tensor({4, 8});  // rows 0..3 of columns 0..7
  const std::vector<Placements> cases = {{Placement::S(0), Placement::S(1)},
                                         {Placement::S(1), Placement::S(1)},
                                         {Placement::S(0), Placement::S(0)},
                                         {Placement::R(), Placement::S(0)},
                                         {Placement::R(), Placement::R()}};
  for (const Placements& p : cases) {
    std::vector<rt::Tensor> parts(4);
    std::vector<Status> st = rt::run_local_ranks(mesh_shape(mesh), {}, [&](rt::World& w) -> Status {
      Rank rank;
      rank.world = &w;
      rank.mesh = mesh;
      rank.coords = w.mesh().coords(w.rank());
      parts[w.rank()] = rank.local_part(global, p);
      MLC_TRY(rt::Tensor whole, rank.gather(parts[w.rank()], p, "t"));
      if (whole.shape() != global.shape() ||
          !std::equal(whole.data<float>(), whole.data<float>() + whole.num_elements(), global.data<float>()))
        return make_error("gathered tensor differs on rank " + std::to_string(w.rank()));
      return {};
    });
    for (const Status& s : st) EXPECT_TRUE(s.ok()) << placements_str(p) << ": " << s.error().message;
    if (p[0] == Placement::S(0) && p[1] == Placement::S(1)) {
      // Rank 3 = (dp 1, fsdp 1): rows 2..3, columns 4..7.
      ASSERT_EQ(parts[3].shape(), (Shape{2, 4}));
      EXPECT_EQ(parts[3].data<float>()[0], 20.0f);
      EXPECT_EQ(parts[3].data<float>()[7], 31.0f);
    }
    if (p[0] == Placement::S(0) && p[1] == Placement::S(0)) {
      // Chunks nest: dp picks the half, fsdp the quarter inside it (one row each).
      EXPECT_EQ(parts[1].data<float>()[0], 8.0f);
      EXPECT_EQ(parts[2].data<float>()[0], 16.0f);
    }
  }
}

// write_sharded_checkpoint on the ranks of dp=2,fsdp=2: every rank writes the
// chunks it holds the first copy of (each byte once over all the shard
// files), rank 0 the index, and reading it gives the whole tensors back.
TEST(Rank, ShardedCheckpointsWriteEveryByteOnceAndReadBackWhole) {
  const Mesh mesh = *Mesh::parse("dp=2,fsdp=2");
  const std::vector<Placements> cases = {{Placement::S(0), Placement::S(1)},
                                         {Placement::S(1), Placement::S(1)},
                                         {Placement::S(0), Placement::S(0)},
                                         {Placement::R(), Placement::S(0)},
                                         {Placement::R(), Placement::R()}};
  std::vector<rt::NamedTensor> globals;
  for (size_t i = 0; i < cases.size(); ++i) globals.push_back({"t" + std::to_string(i), iota_tensor({4, 8})});
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("mlc_rank_checkpoint_" + std::to_string(::getpid()))).string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::vector<Status> st = rt::run_local_ranks(mesh_shape(mesh), {}, [&](rt::World& w) -> Status {
    Rank rank;
    rank.world = &w;
    rank.mesh = mesh;
    rank.coords = w.mesh().coords(w.rank());
    std::vector<rt::NamedTensor> locals;
    for (size_t i = 0; i < cases.size(); ++i)
      locals.push_back({globals[i].name, rank.local_part(globals[i].tensor, cases[i])});
    return write_sharded_checkpoint(rank, dir, 1, "m", {3, 0, 4, 1, false}, locals, cases);
  });
  for (const Status& s : st) ASSERT_TRUE(s.ok()) << s.error().message;
  int64_t written = 0;
  for (int r = 0; r < 4; ++r) {
    auto shard = rt::read_safetensors(rt::checkpoint_shard_path(dir, 3, r));
    ASSERT_TRUE(shard.ok()) << shard.error().message;
    for (const rt::SafetensorsEntry& e : shard->entries) written += e.tensor.num_bytes();
  }
  EXPECT_EQ(written, static_cast<int64_t>(cases.size()) * 32 * 4);
  auto back = rt::read_checkpoint(rt::checkpoint_index_path(dir, 3), "m", globals, {});
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->step, 3);
  for (size_t i = 0; i < cases.size(); ++i)
    EXPECT_TRUE(std::equal(globals[i].tensor.data<float>(), globals[i].tensor.data<float>() + 32,
                           back->params[i].tensor.data<float>()))
        << placements_str(cases[i]);
  std::filesystem::remove_all(dir);
}

// A rank that fails before a collective ends its peer's gather with an error
// naming it (run_local_ranks aborts the world), instead of a hang.
TEST(Rank, AFailingRankEndsItsPeers) {
  const Mesh mesh = *Mesh::parse("dp=2");
  const Placements p = {Placement::S(0)};
  std::vector<Status> st = rt::run_local_ranks(mesh_shape(mesh), {}, [&](rt::World& w) -> Status {
    if (w.rank() == 1) return make_error("rank 1: cannot read the data");
    Rank rank;
    rank.world = &w;
    rank.mesh = mesh;
    rank.coords = {0};
    MLC_TRY(rt::Tensor whole, rank.gather(iota_tensor({2, 2}), p, "fc.weight"));
    return {};
  });
  ASSERT_FALSE(st[0].ok());
  EXPECT_NE(st[0].error().message.find("rank 1 failed: rank 1: cannot read the data"), std::string::npos)
      << st[0].error().message;
}

// Rank 1 never runs the step: rank 0's first collective of the compiled,
// sharded @train_step times out, named by the model-file location and scope
// of what it moves (the gradient of fc1.weight, for its optimizer update).
TEST(Rank, ATrainStepCollectiveTimesOutNamingItselfAndTheMissingRank) {
  using namespace std::chrono_literals;
  auto model = ModelFile::load("examples/digits_mlp.json");
  ASSERT_TRUE(model.ok()) << model.error().message;
  const Mesh mesh = *Mesh::parse("dp=2");
  const Program program = Program::from_model(*model, Backend::compiled, {mesh, 0});
  FunctionCache functions(program);
  const auto start = std::chrono::steady_clock::now();
  std::vector<Status> st = rt::run_local_ranks(mesh_shape(mesh), {200ms}, [&](rt::World& w) -> Status {
    if (w.rank() == 1) return {};
    MLC_TRY(StepFunction step, functions.get("train_step", 32));
    step.set_world(&w);
    std::vector<rt::Tensor> values;
    for (const Signature::Arg& a : step.signature().args) values.emplace_back(a.type);
    std::vector<rt::Tensor*> args;
    for (rt::Tensor& t : values) args.push_back(&t);
    return step.run(args);
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 30s);
  EXPECT_TRUE(st[1].ok());
  ASSERT_FALSE(st[0].ok());
  EXPECT_EQ(st[0].error().message,
            "rank 0: all_reduce at examples/digits_mlp.json:11:14 (optimizer.fc1.weight): timed out after 200 ms "
            "waiting for rank 1");
}

}  // namespace
}  // namespace mlc
