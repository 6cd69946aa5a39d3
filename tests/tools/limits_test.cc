// Bounded work on hostile input, end to end: each case of the reliability
// issue runs `mlc` under `ulimit -v 4000000` (4 GB of address space) and must
// end with its one-line diagnostic and exit status 1 (the last case: succeed).
// Before the fixes they ran for half an hour, took gigabytes, aborted with
// std::bad_alloc or read /dev/zero without end; ctest's timeout catches a
// relapse into unbounded time.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>

#include "runtime/safetensors.h"
#include "tests/tools/run_mlc.h"

namespace {

namespace fs = std::filesystem;

using mlc::testing::RunResult;
using mlc::testing::slurp;

std::filesystem::path temp_dir() { return mlc::testing::scratch_dir("mlc_limits_test"); }

std::string write_file(const std::string& name, const std::string& bytes) {
  std::string path = (temp_dir() / name).string();
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// `mlc ARGS` from the source root under a 4 GB address-space limit.
RunResult mlc_limited(const std::string& args, const std::string& redirect = "") {
  return mlc::testing::run_mlc(args, "ulimit -v 4000000;", redirect);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

const char* kInputs =
    R"("inputs": {"x": {"dtype": "f32", "shape": ["batch", 4]}, "y": {"dtype": "f32", "shape": ["batch", 4]}})";

std::string model(const std::string& name, const std::string& model_json) {
  return R"({"name": ")" + name + "\", " + kInputs + R"(, "model": )" + model_json +
         R"(, "loss": {"type": "mse", "targets": "y"}})";
}

// Cases 1 (two and three nested repeats of an empty block: four billion
// iterations) and 2 (a 1 KB file repeating a block whose forward has 36
// statements): each ends with the message its .expected file holds (which
// tests/frontends/diagnostics_test.cc also checks in process).
TEST(Limits, RepeatsOverTheWorkBudget) {
  for (const char* name : {"budget_nested_repeat", "budget_nested_repeat3", "budget_repeat_forward"}) {
    SCOPED_TRACE(name);
    std::string path = std::string("tests/frontends/data/bad/") + name + ".json";
    std::string expected = slurp(path + ".expected");
    ASSERT_NE(expected.find("over budget"), std::string::npos) << expected;
    RunResult r = mlc_limited("ir " + path);
    EXPECT_EQ(r.status, 1);
    EXPECT_EQ(r.err, expected);
  }
}

// Case 3: 160,000 chained forward statements, each defining a new name (70 s
// when names were looked up by scanning): over the forward budget, reported as
// soon as the forward is parsed. Within the budget, a long chain loads.
TEST(Limits, ManyForwardStatements) {
  auto chain = [](int n) {
    std::string fwd = "[\"v0 = x\"";
    for (int i = 1; i <= n; ++i)
      fwd += ",\"v" + std::to_string(i) + " = relu(v" + std::to_string(i - 1) + ")\"";
    return fwd + ",\"return v" + std::to_string(n) + "\"]";
  };
  std::string path =
      write_file("chain.json", model("chain", R"({"layers": {}, "forward": )" + chain(160000) + "}"));
  RunResult r = mlc_limited("ir " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ":1:132: error: over budget: the model expands to 160000 forward "
                          "operations, more than the limit of 65536 (docs/limits.md)\n");
  path = write_file("chain_ok.json", model("chain", R"({"layers": {}, "forward": )" + chain(60000) + "}"));
  r = mlc_limited("ir " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("module @chain"), std::string::npos);
}

// Case 4: a safetensors header of nested arrays up to the 100 MB limit, read
// as --init; and the same nesting in a checkpoint's checksums metadata.
TEST(Limits, NestedSafetensorsHeader) {
  const size_t half = 49'999'990;
  std::string header(half, '[');
  header.append(half, ']');
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  std::string path = write_file("deep.safetensors", bytes + header);
  RunResult r = mlc_limited("run examples/digits_mlp.json --steps 1 --init " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(first_line(r.err), path + ": error: header JSON is nested more than 8 levels deep");
}

TEST(Limits, NestedCheckpointMetadata) {
  std::string dir = (temp_dir() / "ckpt").string();
  RunResult r = mlc_limited("run examples/digits_mlp.json --steps 1 --checkpoint-dir " + dir);
  ASSERT_EQ(r.status, 0) << r.err;
  // Rewrite the checksums of the newest checkpoint as 40 MB of nested arrays.
  std::string ckpt;
  for (const auto& e : fs::directory_iterator(dir)) ckpt = e.path().string();
  ASSERT_FALSE(ckpt.empty());
  std::string bytes = slurp(ckpt);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  std::string header = bytes.substr(8, n), data = bytes.substr(8 + n);
  size_t at = header.find("\"checksums\":\"");
  ASSERT_NE(at, std::string::npos);
  size_t begin = at + 13, end = header.find("\"", header.find("}", begin));
  std::string deep(20'000'000, '[');
  deep.append(20'000'000, ']');
  header = header.substr(0, begin) + deep + header.substr(end);
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string len(8, '\0');
  for (int i = 0; i < 8; ++i) len[i] = static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  std::ofstream(ckpt, std::ios::binary | std::ios::trunc) << len + header + data;
  r = mlc_limited("run examples/digits_mlp.json --steps 2 --resume --checkpoint-dir " + dir);
  EXPECT_NE(r.err.find(ckpt + ": error: checkpoint metadata 'checksums' is not valid: nesting deeper "
                              "than 2 levels"),
            std::string::npos)
      << r.err;
}

// Case 5: devices and unbounded standard input.
TEST(Limits, DevZeroIsNotARegularFile) {
  RunResult ir = mlc_limited("ir /dev/zero");
  EXPECT_EQ(ir.status, 1);
  EXPECT_EQ(ir.err, "/dev/zero: error: not a regular file (a character device)\n");
  RunResult opt = mlc_limited("opt /dev/zero");
  EXPECT_EQ(opt.status, 1);
  EXPECT_EQ(opt.err, "/dev/zero: error: not a regular file (a character device)\n");
  RunResult dir = mlc_limited("ir tests");
  EXPECT_EQ(dir.err, "tests: error: not a regular file (a directory)\n");
}

TEST(Limits, StandardInputIsBounded) {
  RunResult opt = mlc_limited("opt -", "</dev/zero");
  EXPECT_EQ(opt.status, 1);
  EXPECT_EQ(opt.err,
            "<stdin>: error: the IR file is over the limit of 268435456 bytes (docs/limits.md)\n");
  RunResult ir = mlc_limited("ir -", "</dev/zero");
  EXPECT_EQ(ir.status, 1);
  EXPECT_EQ(ir.err,
            "<stdin>: error: the model file is over the limit of 16777216 bytes (docs/limits.md)\n");
}

TEST(Limits, ModelFileOverTheSizeLimit) {
  std::string path = write_file("huge.json", std::string((16 << 20) + 1, ' '));
  RunResult r = mlc_limited("ir " + path);
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: the model file is 16777217 bytes, more than the limit of 16777216 "
                          "bytes (docs/limits.md)\n");
}

// Case 6: a valid model without "train" prints its IR at batch 1.
TEST(Limits, ModelWithoutTrainSectionPrintsAtBatchOne) {
  std::string path = write_file(
      "no_train.json",
      model("no_train", R"({"layers": {"fc": {"type": "Linear", "in_features": 4, "out_features": 4}}})"));
  RunResult r = mlc_limited("ir " + path);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("%x: f32[1,4] {input}"), std::string::npos) << r.out.substr(0, 400);
}

// Within the budgets a model can still need more memory than the machine has:
// the run ends with the file and what was being built, not an abort.
TEST(Limits, OutOfMemoryNamesTheFileAndTheStage) {
  mlc::rt::Tensor x(mlc::DType::f32, {4, 16}), y(mlc::DType::i64, {4});
  std::memset(x.bytes(), 0, x.num_bytes());
  std::memset(y.bytes(), 0, y.num_bytes());
  std::string data = (temp_dir() / "oom_data.safetensors").string();
  ASSERT_TRUE(mlc::rt::write_safetensors(data, {{"x", &x}, {"y", &y}}).ok());
  // A 16 x 2^35 Linear: 2 TiB of parameters.
  std::string path = write_file("oom.json", R"({"name": "oom",
      "inputs": {"x": {"dtype": "f32", "shape": ["batch", 16]}, "y": {"dtype": "i64", "shape": ["batch"]}},
      "model": {"layers": {"fc": {"type": "Linear", "in_features": 16, "out_features": 34359738368}}},
      "loss": {"type": "cross_entropy", "targets": "y"},
      "data": {"file": ")" + data + R"(", "train": {"x": "x", "y": "y"}},
      "train": {"batch_size": 2, "steps": 1, "optimizer": {"type": "sgd", "lr": 0.1}}})");
  // The compiled backend's arena (activations, 2^36 logits here) is refused
  // before it is allocated, naming the function, both sizes and the file; the
  // interpreter allocates nothing before the parameters.
  RunResult r = mlc_limited("run " + path);
  EXPECT_EQ(r.status, 1);
  const std::string want = path + ": error: function 'train_step' needs an arena of 618475290688 bytes, more than the ";
  EXPECT_EQ(r.err.substr(0, want.size()), want);
  EXPECT_TRUE(std::regex_match(r.err.substr(std::min(want.size(), r.err.size())),
                               std::regex("[0-9]+ bytes of memory available\n")))
      << r.err;
  r = mlc_limited("run " + path + " --backend interp");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path + ": error: out of memory while creating the parameters and optimizer state\n");
}

}  // namespace
