// libFuzzer harness for the safetensors reader and writer (runtime/safetensors.h).
//
// Input: any bytes, parsed with parse_safetensors. Invariants checked on every
// input that parses:
//   1. every entry is consistent: supported entries hold a tensor of exactly
//      the entry's shape and of the dtype its file_dtype names; find(name)
//      returns the entry;
//   2. if every entry is supported (only those can be written), writing the
//      entries and metadata with write_safetensors succeeds, the written file
//      is 8-aligned (8 + N is a multiple of 8) and reads back with the same
//      entries (names, dtypes, shapes, data bytes) and the same metadata (in
//      order); the tensors come back in the original order when that order
//      needs no alignment gaps, and otherwise stably sorted by descending
//      element size (the writing contract);
//   3. writing the re-read file gives byte-identical output (the writer is a
//      function of its input);
//   4. (check_vocabulary) a token file's vocabulary reads cleanly and round-trips text.
// Files go to a per-process temporary directory under $TMPDIR (or /tmp),
// created once and removed at exit. scripts/fuzz.sh points TMPDIR at /dev/shm
// so that the writer's fsyncs cost little.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/safetensors.h"
#include "runtime/token_vocabulary.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/fuzz/fuzz_temp_dir.h"

namespace {

using mlc::rt::SafetensorsEntry;
using mlc::rt::SafetensorsFile;
using mlc::rt::Tensor;

[[noreturn]] void fail(const char* what, const std::string& detail) {
  mlc::fuzz::fail("fuzz_safetensors", what, detail);
}

const std::string& temp_dir() { return mlc::fuzz::temp_dir("safetensors"); }

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string describe(const SafetensorsEntry& e) {
  return "'" + e.name + "' " + e.file_dtype + mlc::shape_to_string(e.shape) +
         (e.supported ? "" : " (unsupported)");
}

std::string describe(const SafetensorsFile& f) {
  std::string s = std::to_string(f.entries.size()) + " entries:";
  for (const SafetensorsEntry& e : f.entries) s += " " + describe(e);
  s += "; metadata:";
  for (const auto& [k, v] : f.metadata) s += " '" + k + "'='" + v + "'";
  return s;
}

void check_entries_consistent(const SafetensorsFile& f, const char* which) {
  for (const SafetensorsEntry& e : f.entries) {
    if (f.find(e.name) != &e)
      fail("find(name) does not return the entry (duplicate names?)", std::string(which) + ": " + describe(f));
    if (!e.supported) {
      if (e.tensor.bytes())
        fail("an unsupported entry holds data", std::string(which) + ": " + describe(e));
      continue;
    }
    if (e.tensor.shape() != e.shape || mlc::rt::safetensors_dtype_name(e.tensor.dtype()) != e.file_dtype ||
        !e.tensor.bytes())
      fail("a supported entry's tensor does not match the entry",
           std::string(which) + ": " + describe(e) + " holds " + e.tensor.type().str());
    auto got = f.get(e.name);
    if (!got || *got != &e.tensor)
      fail("get(name) does not return the entry's tensor", std::string(which) + ": " + describe(e));
  }
}

// The order write_safetensors promises for `entries` (all supported).
std::vector<std::string> expected_written_order(const std::vector<SafetensorsEntry>& entries) {
  std::vector<const SafetensorsEntry*> order;
  for (const SafetensorsEntry& e : entries) order.push_back(&e);
  uint64_t offset = 0;
  bool keeps_order = true;
  for (const SafetensorsEntry* e : order) {
    if (offset % mlc::dtype_size(e->tensor.dtype()) != 0) keeps_order = false;
    offset += static_cast<uint64_t>(e->tensor.num_bytes());
  }
  if (!keeps_order)
    std::stable_sort(order.begin(), order.end(), [](const SafetensorsEntry* a, const SafetensorsEntry* b) {
      return mlc::dtype_size(a->tensor.dtype()) > mlc::dtype_size(b->tensor.dtype());
    });
  std::vector<std::string> names;
  for (const SafetensorsEntry* e : order) names.push_back(e->name);
  return names;
}

std::string write(const SafetensorsFile& f, const std::string& path) {
  std::vector<std::pair<std::string, const Tensor*>> tensors;
  for (const SafetensorsEntry& e : f.entries) tensors.emplace_back(e.name, &e.tensor);
  mlc::Status written = mlc::rt::write_safetensors(path, tensors, f.metadata);
  if (!written)
    fail("write_safetensors rejects a file that parsed", written.error().message + "\n" + describe(f));
  std::string bytes = read_bytes(path);
  if (bytes.size() < 8) fail("the written file is shorter than 8 bytes", describe(f));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  if ((8 + n) % 8 != 0)
    fail("the written header is not padded to a multiple of 8", "header length " + std::to_string(n));
  return bytes;
}

}  // namespace

// 4. a vocabulary in the metadata (runtime/token_vocabulary.h) is read or
//    refused cleanly; text made of its entries encodes to ids that decode back
//    to that text.
void check_vocabulary(const SafetensorsFile& f) {
  mlc::Expected<mlc::rt::Vocabulary> vocab = mlc::rt::vocabulary_of(f.metadata, "fuzz.safetensors");
  if (!vocab) return;
  std::string text;
  for (int64_t id = 0; id < std::min<int64_t>(vocab->size(), 64); ++id) text += mlc::rt::decode(*vocab, id);
  mlc::Expected<std::vector<int64_t>> ids = mlc::rt::encode(*vocab, text, "text");
  if (!ids) return;  // an entry that is not one character
  std::string back;
  for (int64_t id : *ids) back += mlc::rt::decode(*vocab, id);
  if (back != text) fail("the vocabulary's text does not decode back to itself", text + " -> " + back);
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  mlc::Expected<SafetensorsFile> parsed = mlc::rt::parse_safetensors(bytes, "fuzz.safetensors");
  if (!parsed) return 0;  // rejected: fine, as long as it was rejected cleanly
  const SafetensorsFile& original = *parsed;
  check_entries_consistent(original, "parsed");
  check_vocabulary(original);

  // Only supported entries can be written: skip the round trip otherwise.
  for (const SafetensorsEntry& e : original.entries)
    if (!e.supported) return 0;

  const std::string path1 = temp_dir() + "/first.safetensors";
  const std::string path2 = temp_dir() + "/second.safetensors";
  const std::string written1 = write(original, path1);

  mlc::Expected<SafetensorsFile> reread = mlc::rt::read_safetensors(path1);
  if (!reread)
    fail("the re-written file does not read back", reread.error().message + "\n" + describe(original));
  check_entries_consistent(*reread, "re-read");

  const SafetensorsFile& back = *reread;
  if (back.metadata != original.metadata)
    fail("metadata differs after the round trip", "before: " + describe(original) + "\nafter:  " + describe(back));
  if (back.entries.size() != original.entries.size())
    fail("entry count differs after the round trip",
         "before: " + describe(original) + "\nafter:  " + describe(back));
  for (const SafetensorsEntry& e : original.entries) {
    const SafetensorsEntry* b = back.find(e.name);
    if (!b) fail("an entry is missing after the round trip", describe(e) + "\nafter: " + describe(back));
    if (b->file_dtype != e.file_dtype || b->shape != e.shape || b->supported != e.supported ||
        b->tensor.type() != e.tensor.type())
      fail("an entry's dtype or shape differs after the round trip", describe(e) + " vs " + describe(*b));
    if (e.tensor.num_bytes() &&
        std::memcmp(b->tensor.bytes(), e.tensor.bytes(), static_cast<size_t>(e.tensor.num_bytes())) != 0)
      fail("an entry's data differs after the round trip", describe(e));
  }
  std::vector<std::string> want = expected_written_order(original.entries), got;
  for (const SafetensorsEntry& e : back.entries) got.push_back(e.name);
  if (got != want) {
    std::string detail = "expected:";
    for (const auto& n : want) detail += " '" + n + "'";
    detail += "\ngot:     ";
    for (const auto& n : got) detail += " '" + n + "'";
    fail("the written tensor order breaks the writing contract", detail + "\n" + describe(original));
  }

  const std::string written2 = write(back, path2);
  if (written1 != written2)
    fail("writing the re-read file gives different bytes",
         "sizes " + std::to_string(written1.size()) + " and " + std::to_string(written2.size()) + "\n" +
             describe(original));
  return 0;
}
