// libFuzzer harness for the checkpoint readers and writers
// (runtime/checkpoint.h, runtime/sharded_checkpoint.h).
//
// Input: any bytes, read twice as a checkpoint of a small fixed model "fuzz":
//   params: fc.weight f32[2,3], fc.bias f32[2]
//   state:  fc.weight.momentum_buffer f32[2,3]
// first as a whole checkpoint (a safetensors file), then as the index of a
// sharded one, next to the shards of that model on mesh dp=2 (fc.weight and
// its momentum <S(0)>, fc.bias <R>: step_00000007.rank0000{0,1}.safetensors,
// written once into a directory of their own by
// tests/fuzz/fuzz_checkpoint_shards.h). The seeds in
// tests/fuzz/corpus/checkpoint are such checkpoints and indices
// (index_*.json, naming those shards), written by tests/fuzz/make_seeds.cc.
// Invariants:
//   1. the loaded tensors have the model's names and types, in model order;
//   2. write_checkpoint of the loaded state succeeds, and read_checkpoint of
//      that file gives the identical state: step, seed, batch_size,
//      steps_per_epoch, shuffle, and every tensor bit for bit;
//   3. writing the re-read state gives byte-identical output;
//   4. an index that parses prints (format_checkpoint_index) to a text that
//      parses and prints identically.
// Files go to a per-process temporary directory under $TMPDIR (or /tmp),
// created once and removed at exit.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/checkpoint.h"
#include "runtime/sharded_checkpoint.h"
#include "tests/fuzz/fuzz_checkpoint_shards.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/fuzz/fuzz_temp_dir.h"

namespace {

using mlc::rt::NamedTensor;
using mlc::rt::TrainState;

const std::string kModel = "fuzz";

[[noreturn]] void fail(const char* what, const std::string& detail) {
  mlc::fuzz::fail("fuzz_checkpoint", what, detail);
}

const std::string& temp_dir() { return mlc::fuzz::temp_dir("checkpoint"); }

void write_file(const std::string& path, const uint8_t* data, size_t size) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror(("fuzz_checkpoint: open " + path).c_str());
    std::abort();
  }
  while (size > 0) {
    ssize_t w = ::write(fd, data, size);
    if (w <= 0) {
      std::perror(("fuzz_checkpoint: write " + path).c_str());
      std::abort();
    }
    data += w;
    size -= static_cast<size_t>(w);
  }
  ::close(fd);
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

const std::vector<NamedTensor>& model_params() {
  static const std::vector<NamedTensor> p = {
      {"fc.weight", mlc::rt::Tensor(mlc::DType::f32, {2, 3})},
      {"fc.bias", mlc::rt::Tensor(mlc::DType::f32, {2})},
  };
  return p;
}

const std::vector<NamedTensor>& model_state() {
  static const std::vector<NamedTensor> s = {
      {"fc.weight.momentum_buffer", mlc::rt::Tensor(mlc::DType::f32, {2, 3})},
  };
  return s;
}

std::string describe(const TrainState& s) {
  return "step " + std::to_string(s.step) + ", seed " + std::to_string(s.seed) + ", batch_size " +
         std::to_string(s.batch_size) + ", steps_per_epoch " + std::to_string(s.steps_per_epoch) +
         ", shuffle " + (s.shuffle ? "true" : "false") + ", " + std::to_string(s.params.size()) +
         " params, " + std::to_string(s.state.size()) + " state tensors";
}

void check_matches_model(const std::vector<NamedTensor>& got, const std::vector<NamedTensor>& want,
                         const char* which) {
  if (got.size() != want.size())
    fail("a loaded checkpoint has the wrong number of tensors",
         std::string(which) + ": " + std::to_string(got.size()) + " vs " + std::to_string(want.size()));
  for (size_t i = 0; i < got.size(); ++i)
    if (got[i].name != want[i].name || got[i].tensor.type() != want[i].tensor.type() || !got[i].tensor.bytes())
      fail("a loaded tensor does not match the model",
           std::string(which) + " #" + std::to_string(i) + ": '" + got[i].name + "' " +
               got[i].tensor.type().str() + ", the model has '" + want[i].name + "' " +
               want[i].tensor.type().str());
}

bool same_tensors(const std::vector<NamedTensor>& a, const std::vector<NamedTensor>& b, std::string* why) {
  if (a.size() != b.size()) {
    *why = "tensor counts " + std::to_string(a.size()) + " and " + std::to_string(b.size());
    return false;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].tensor.type() != b[i].tensor.type()) {
      *why = "tensor #" + std::to_string(i) + ": '" + a[i].name + "' " + a[i].tensor.type().str() + " vs '" +
             b[i].name + "' " + b[i].tensor.type().str();
      return false;
    }
    if (std::memcmp(a[i].tensor.bytes(), b[i].tensor.bytes(), static_cast<size_t>(a[i].tensor.num_bytes()))) {
      *why = "tensor '" + a[i].name + "': data differs";
      return false;
    }
  }
  return true;
}

void check_same(const TrainState& a, const TrainState& b) {
  std::string why;
  if (a.step != b.step || a.seed != b.seed || a.batch_size != b.batch_size ||
      a.steps_per_epoch != b.steps_per_epoch || a.shuffle != b.shuffle)
    fail("the re-read checkpoint's position differs", "loaded:  " + describe(a) + "\nre-read: " + describe(b));
  if (!same_tensors(a.params, b.params, &why)) fail("the re-read checkpoint's params differ", why);
  if (!same_tensors(a.state, b.state, &why)) fail("the re-read checkpoint's optimizer state differs", why);
}

// Invariants 1-3 on a loaded state (of either form).
void check_loaded(const TrainState& loaded) {
  const std::string first = temp_dir() + "/first.safetensors";
  const std::string second = temp_dir() + "/second.safetensors";
  check_matches_model(loaded.params, model_params(), "params");
  check_matches_model(loaded.state, model_state(), "state");

  mlc::Status written = mlc::rt::write_checkpoint(first, kModel, loaded);
  if (!written) fail("write_checkpoint fails on a loaded checkpoint", written.error().message);
  mlc::Expected<TrainState> reread = mlc::rt::read_checkpoint(first, kModel, model_params(), model_state());
  if (!reread)
    fail("a re-written checkpoint does not read back",
         reread.error().message + "\nloaded: " + describe(loaded));
  check_same(loaded, *reread);

  mlc::Status written2 = mlc::rt::write_checkpoint(second, kModel, *reread);
  if (!written2) fail("write_checkpoint fails on a re-read checkpoint", written2.error().message);
  if (read_bytes(first) != read_bytes(second))
    fail("writing the re-read checkpoint gives different bytes", describe(loaded));
}

// The directory of the shards every index input may name, written once, and
// of the input as an index: nothing else is there, so what an index can
// name does not depend on earlier inputs.
const std::string& sharded_dir() {
  static const std::string dir = [] {
    const std::string d = temp_dir() + "/sharded";
    std::filesystem::create_directories(d);
    if (mlc::fuzz::write_checkpoint_shards(d).empty()) fail("cannot write the shards", d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = temp_dir() + "/input.safetensors";
  write_file(input, data, size);
  mlc::Expected<TrainState> loaded = mlc::rt::read_checkpoint(input, kModel, model_params(), model_state());
  // Rejected: fine, as long as it was rejected cleanly.
  if (loaded) check_loaded(*loaded);

  const std::string text(reinterpret_cast<const char*>(data), size);
  if (auto parsed = mlc::rt::parse_checkpoint_index(text, "input")) {
    const std::string printed = mlc::rt::format_checkpoint_index(*parsed);
    auto reparsed = mlc::rt::parse_checkpoint_index(printed, "printed");
    if (!reparsed) fail("a printed index does not parse", reparsed.error().message + "\nprinted:\n" + printed);
    if (mlc::rt::format_checkpoint_index(*reparsed) != printed)
      fail("a printed index prints differently after parsing", printed);
  }
  const std::string index = sharded_dir() + "/input.index.json";
  write_file(index, data, size);
  mlc::Expected<TrainState> sharded = mlc::rt::read_checkpoint(index, kModel, model_params(), model_state());
  if (sharded) check_loaded(*sharded);
  return 0;
}
