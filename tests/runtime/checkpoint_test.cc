// Checkpoints: round trip, and corrupt metadata reported without unbounded work.
#include "runtime/checkpoint.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>

#include "runtime/safetensors.h"

namespace mlc::rt {
namespace {

namespace fs = std::filesystem;

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mlc_checkpoint_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    Tensor w(DType::f32, {2, 3});
    for (int64_t i = 0; i < 6; ++i) static_cast<float*>(static_cast<void*>(w.bytes()))[i] = 0.5f * i;
    Tensor m(DType::f32, {2, 3});
    std::memset(m.bytes(), 0, m.num_bytes());
    state_.step = 7;
    state_.seed = 3;
    state_.batch_size = 4;
    state_.steps_per_epoch = 5;
    state_.params = {{"fc.weight", w}};
    state_.state = {{"fc.weight.momentum_buffer", m}};
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // The checkpoint's files with metadata `key` replaced by `value`.
  std::string write_with(const std::string& key, const std::string& value) {
    std::string good = path("good.safetensors"), bad = path("bad.safetensors");
    EXPECT_TRUE(write_checkpoint(good, "m", state_).ok());
    auto f = read_safetensors(good);
    EXPECT_TRUE(f.ok());
    std::vector<std::pair<std::string, const Tensor*>> tensors;
    for (const auto& e : f->entries) tensors.emplace_back(e.name, &e.tensor);
    auto metadata = f->metadata;
    for (auto& [k, v] : metadata)
      if (k == key) v = value;
    EXPECT_TRUE(write_safetensors(bad, tensors, metadata).ok());
    return bad;
  }

  fs::path dir_;
  TrainState state_;
};

TEST_F(CheckpointTest, RoundTrips) {
  ASSERT_TRUE(write_checkpoint(path("c.safetensors"), "m", state_).ok());
  auto back = read_checkpoint(path("c.safetensors"), "m", state_.params, state_.state);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->step, 7);
  EXPECT_EQ(back->seed, 3u);
  ASSERT_EQ(back->params.size(), 1u);
  EXPECT_EQ(std::memcmp(back->params[0].tensor.bytes(), state_.params[0].tensor.bytes(), 24), 0);
}

// Fuzzer finding: seeds of 2^63 and above were written but then rejected
// (parsed as signed), and "-1" was read as 2^64 - 1.
TEST_F(CheckpointTest, EverySeedRoundTripsAndOnlyDigitsAreSeeds) {
  state_.seed = UINT64_MAX;
  ASSERT_TRUE(write_checkpoint(path("c.safetensors"), "m", state_).ok());
  auto back = read_checkpoint(path("c.safetensors"), "m", state_.params, state_.state);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->seed, UINT64_MAX);
  for (const char* bad : {"-1", "+1", "18446744073709551616", "1x", ""}) {
    std::string file = write_with("seed", bad);
    auto r = read_checkpoint(file, "m", state_.params, state_.state);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().message, file + ": error: checkpoint metadata 'seed' is not a non-negative "
                                        "integer: '" + std::string(bad) + "'");
  }
}

TEST_F(CheckpointTest, ChecksumMismatchIsReported) {
  std::string bad = write_with("checksums", R"({"fc.weight": "0000000000000000", "fc.weight.momentum_buffer": "0"})");
  auto r = read_checkpoint(bad, "m", state_.params, state_.state);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            bad + ": error: checkpoint is corrupt: tensor 'fc.weight' does not match its checksum");
}

// Regression: checksums metadata of deeply nested arrays (tens of MB) was
// parsed whole before being rejected; the parser now stops at the third level.
TEST_F(CheckpointTest, NestedChecksumsStopAtTheDepthLimit) {
  std::string deep(20'000'000, '[');
  deep.append(20'000'000, ']');
  std::string bad = write_with("checksums", deep);
  auto r = read_checkpoint(bad, "m", state_.params, state_.state);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            bad + ": error: checkpoint metadata 'checksums' is not valid: nesting deeper than 2 levels");
}

TEST_F(CheckpointTest, DuplicateChecksumIsReported) {
  std::string bad = write_with("checksums", R"({"fc.weight": "0", "fc.weight": "1"})");
  auto r = read_checkpoint(bad, "m", state_.params, state_.state);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            bad + ": error: checkpoint metadata 'checksums' is not valid: duplicate key 'fc.weight'");
}

}  // namespace
}  // namespace mlc::rt
