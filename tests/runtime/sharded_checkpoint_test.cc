// Sharded checkpoints (runtime/sharded_checkpoint.h): a checkpoint of a dp=2
// mesh written as its ranks write it, read back whole; every kind of broken
// index or shard is an error naming the file and what is wrong; listing and
// pruning treat an index and its shards as one checkpoint and shards without
// an index as none.
#include "runtime/sharded_checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>

#include "runtime/file_io.h"
#include "runtime/tensor_chunks.h"
#include "tests/runtime/sharded_checkpoint_fixture.h"

namespace mlc::rt {
namespace {

namespace fs = std::filesystem;

Tensor iota(Shape shape, float start) {
  Tensor t(DType::f32, std::move(shape));
  std::iota(t.data<float>(), t.data<float>() + t.num_elements(), start);
  return t;
}

bool same(const Tensor& a, const Tensor& b) {
  return a.type() == b.type() && std::memcmp(a.bytes(), b.bytes(), static_cast<size_t>(a.num_bytes())) == 0;
}

std::string slurp(const std::string& path) {
  auto text = read_file(path);
  EXPECT_TRUE(text.ok()) << text.error().message;
  return text ? *text : "";
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

class ShardedCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("mlc_sharded_checkpoint_" + std::to_string(::getpid()) + "_" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    params_ = {{"fc.weight", iota({4, 6}, 0)}, {"fc.bias", iota({4}, 100)}};
    state_ = {{"fc.weight.momentum_buffer", iota({4, 6}, 200)}};
    placements_ = {{Placement::S(0)}, {Placement::R()}, {Placement::S(1)}};
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The checkpoint of step `step` as the two ranks of dp=2 write it
  // (fc.bias is replicated: rank 0 writes it alone).
  std::string write(int64_t step) {
    std::vector<NamedTensor> globals = params_;
    globals.insert(globals.end(), state_.begin(), state_.end());
    const std::string index = testing::write_sharded_fixture(dir_, "m", {step, 3, 4, 5, true}, 2, globals, placements_);
    EXPECT_FALSE(index.empty());
    return index;
  }
  std::string shard(int64_t step, int rank) const { return checkpoint_shard_path(dir_, step, rank); }
  Expected<TrainState> read(const std::string& path) const { return read_checkpoint(path, "m", params_, state_); }
  // The error of reading the index after replacing `from` by `to` in its text.
  std::string error_after(const std::string& index, const std::string& from, const std::string& to) {
    std::string text = slurp(index);
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) text.replace(at, from.size(), to);
    spit(index, text);
    auto r = read(index);
    return r.ok() ? "(loaded)" : r.error().message;
  }

  std::string dir_;
  std::vector<NamedTensor> params_, state_;
  std::vector<Placements> placements_;
};

TEST_F(ShardedCheckpointTest, ReadsBackTheWholeTensors) {
  const std::string index = write(7);
  ASSERT_EQ(fs::file_size(shard(7, 0)) > fs::file_size(shard(7, 1)), true);  // rank 0 alone has fc.bias
  auto back = read(index);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->step, 7);
  EXPECT_EQ(back->seed, 3u);
  EXPECT_EQ(back->batch_size, 4);
  EXPECT_EQ(back->steps_per_epoch, 5);
  EXPECT_TRUE(back->shuffle);
  ASSERT_EQ(back->params.size(), 2u);
  ASSERT_EQ(back->state.size(), 1u);
  for (size_t i = 0; i < 2; ++i) EXPECT_TRUE(same(back->params[i].tensor, params_[i].tensor)) << params_[i].name;
  EXPECT_TRUE(same(back->state[0].tensor, state_[0].tensor));
}

TEST_F(ShardedCheckpointTest, TheIndexTextRoundTrips) {
  const std::string text = slurp(write(7));
  auto parsed = parse_checkpoint_index(text, "i");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(format_checkpoint_index(*parsed), text);
  const std::string head =
      "{\"format\":\"mlc-sharded-checkpoint/1\",\"model\":\"m\",\"step\":7,\"seed\":3,\"batch_size\":4,"
            "\"steps_per_epoch\":5,\"shuffle\":true,\"mesh\":\"dp=2\",\"tensors\":[\n{\"name\":\"fc.weight\"";
  EXPECT_EQ(text.substr(0, head.size()), head);
}

TEST_F(ShardedCheckpointTest, AMissingShardIsAnErrorNamingIt) {
  const std::string index = write(7);
  fs::remove(shard(7, 1));
  auto r = read(index);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            shard(7, 1) + ": error: cannot open: No such file or directory (a shard of checkpoint " + index + ")");
}

TEST_F(ShardedCheckpointTest, ACorruptShardIsAnErrorNamingIt) {
  const std::string index = write(7);
  std::string bytes = slurp(shard(7, 1));
  bytes.back() ^= 1;  // the last chunk's last byte
  spit(shard(7, 1), bytes);
  auto r = read(index);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, shard(7, 1) + ": error: checkpoint shard is corrupt: tensor "
                                             "'fc.weight.momentum_buffer' (chunk [0,1]) does not match its "
                                             "checksum in " + index);
}

TEST_F(ShardedCheckpointTest, ATruncatedIndexIsAnErrorNamingIt) {
  const std::string index = write(7);
  const std::string text = slurp(index);
  spit(index, text.substr(0, text.size() / 2));
  auto r = read(index);
  ASSERT_FALSE(r.ok());
  const std::string want = index + ": error: checkpoint index is not valid JSON (truncated or corrupt): parse error";
  EXPECT_EQ(r.error().message.substr(0, want.size()), want) << r.error().message;
}

TEST_F(ShardedCheckpointTest, AShardHoldingWhatTheIndexDoesNotNameIsAnError) {
  const std::string index = write(7);
  std::vector<NamedTensor> extra = {{"fc.weight", grid_chunk(params_[0].tensor, {2, 1}, {1, 0})},
                                    {"fc.weight.momentum_buffer", grid_chunk(state_[0].tensor, {1, 2}, {0, 1})},
                                    {"stray", iota({1}, 0)}};
  ASSERT_TRUE(write_checkpoint_shard(shard(7, 1), extra).ok());
  auto r = read(index);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, shard(7, 1) + ": error: checkpoint shard holds tensor 'stray', which " + index +
                                   " does not name in it");
}

// Every field is checked before any shard is read; each message says where.
TEST_F(ShardedCheckpointTest, InvalidIndexesAreErrorsSayingWhatIsWrong) {
  const std::string index = write(7);
  const std::string original = slurp(index);
  const std::string bad = index + ": error: invalid checkpoint index: ";
  const std::string weight_shard0 = "{\"file\":\"step_00000007.rank00000.safetensors\",\"index\":[0,0]";
  struct Case {
    std::string from, to, message;
  };
  const std::vector<Case> cases = {
      {"\"shuffle\":true", "\"shuffle\":1", bad + "'shuffle' is not true or false"},
      {"\"step\":7", "\"step\":7,\"epoch\":1", bad + "unknown field 'epoch'"},
      {"\"seed\":3", "\"seed\":-3", bad + "'seed' is not a non-negative 64-bit integer"},
      {"\"mesh\":\"dp=2\"", "\"mesh\":\"dp=0\"",
       bad + "mesh 'dp=0': size of axis 'dp' must be a positive integer, found '0'"},
      {"mlc-sharded-checkpoint/1", "mlc-sharded-checkpoint/9",
       index + ": error: checkpoint index format 'mlc-sharded-checkpoint/9', expected 'mlc-sharded-checkpoint/1'"},
      {"\"dtype\":\"f32\"", "\"dtype\":\"f8\"", bad + "tensor 'fc.weight': unknown dtype 'f8'"},
      {"\"placements\":\"<S(0)>\"", "\"placements\":\"<P>\"",
       bad + "tensor 'fc.weight': placement P (a partial sum) is not stored in checkpoints"},
      {"\"placements\":\"<S(0)>\"", "\"placements\":\"<S(0),R>\"",
       bad + "tensor 'fc.weight': placements <S(0),R> on mesh dp=2: 2 placements for a mesh of 1 axes (dp=2)"},
      {"\"placements\":\"<S(0)>\"", "\"placements\":\"<S(00)>\"",
       bad + "tensor 'fc.weight': placements '<S(00)>': expected 'R', 'S(dim)', 'P' or 'P(max)', found 'S(00)'"},
      {"\"shape\":[4],\"placements\":\"<R>\"", "\"shape\":[4],\"placements\":\"<S(0)>\"",
       bad + "tensor 'fc.bias': placements <S(0)> on mesh dp=2 cut it into 2 chunks, but 1 shards are listed"},
      {"\"shape\":[4,6],\"placements\":\"<S(0)>\"", "\"shape\":[5,6],\"placements\":\"<S(0)>\"",
       bad + "tensor 'fc.weight': placements <S(0)> on mesh dp=2: dim 0 of [5,6] (5) does not divide by 2 "
             "(sharded over dp=2)"},
      {"\"index\":[1,0]", "\"index\":[0,0]", bad + "tensor 'fc.weight', shard #1: chunk [0,0] is listed twice"},
      {"\"index\":[1,0]", "\"index\":[2,0]",
       bad + "tensor 'fc.weight', shard #1: 'index' [2,0] is not a chunk of the grid [2,1]"},
      {"\"index\":[1,0]", "\"index\":[1]",
       bad + "tensor 'fc.weight', shard #1: 'index' [1] is not a chunk of the grid [2,1]"},
      {weight_shard0, "{\"file\":\"../x\",\"index\":[0,0]",
       bad + "tensor 'fc.weight', shard #0: 'file' must name a file in the index's directory, got '../x'"},
      {weight_shard0 + ",\"checksum\":\"", weight_shard0 + ",\"checksum\":\"X",
       bad + "tensor 'fc.weight', shard #0: 'checksum' is not 16 lowercase hex digits: 'X"},
  };
  for (const Case& c : cases) {
    spit(index, original);
    const std::string got = error_after(index, c.from, c.to);
    EXPECT_EQ(got.substr(0, c.message.size()), c.message) << c.from << " -> " << c.to;
  }
  // Against the model: another model, a missing tensor, another type.
  spit(index, original);
  auto r = read_checkpoint(index, "other", params_, state_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, index + ": error: checkpoint of model 'm', not 'other'");
  std::vector<NamedTensor> wider = params_;
  wider[1].tensor = Tensor(DType::f32, {8});
  r = read_checkpoint(index, "m", wider, state_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, index + ": error: checkpoint tensor 'fc.bias' is f32[4] but the model needs f32[8]");
}

// Listing counts indices (and whole files), never shards alone; pruning
// removes an index with its shards, and interrupted checkpoints older than
// the ones it keeps.
TEST_F(ShardedCheckpointTest, ListingAndPruningTakeAnIndexWithItsShards) {
  write(2);
  fs::remove(checkpoint_index_path(dir_, 2));  // interrupted: shards, no index
  TrainState whole;
  static_cast<TrainPosition&>(whole) = {3, 3, 4, 5, true};
  whole.params = params_;
  whole.state = state_;
  ASSERT_TRUE(write_checkpoint(checkpoint_path(dir_, 3), "m", whole).ok());
  write(5);
  write(9);
  fs::remove(checkpoint_index_path(dir_, 9));
  EXPECT_EQ(list_checkpoints(dir_),
            (std::vector<std::string>{checkpoint_index_path(dir_, 5), checkpoint_path(dir_, 3)}));
  EXPECT_EQ(interrupted_checkpoints(dir_), (std::vector<int64_t>{9, 2}));
  prune_checkpoints(dir_, 1);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dir_)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"step_00000005.index.json", "step_00000005.rank00000.safetensors",
                                            "step_00000005.rank00001.safetensors",
                                            "step_00000009.rank00000.safetensors",
                                            "step_00000009.rank00001.safetensors"}));
}

// The chunks of a grid assemble to the tensor they were cut from, in any dims.
TEST(TensorChunks, GridChunksAssembleToTheWhole) {
  const Tensor whole = iota({4, 2, 6}, 0);
  const std::vector<int64_t> grid = {2, 1, 3};
  std::map<std::vector<int64_t>, Tensor> chunks;
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t k = 0; k < 3; ++k) chunks[{i, 0, k}] = grid_chunk(whole, grid, {i, 0, k});
  EXPECT_EQ(chunks.at({1, 0, 2}).shape(), (Shape{2, 2, 2}));
  EXPECT_EQ(chunks.at({1, 0, 2}).data<float>()[0], 2 * 12 + 4);  // row 2, column 4
  const Tensor back = assemble_grid(whole.type(), grid, [&](const std::vector<int64_t>& i) -> const Tensor& {
    return chunks.at(i);
  });
  EXPECT_TRUE(same(back, whole));
}

}  // namespace
}  // namespace mlc::rt
