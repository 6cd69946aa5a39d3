// libFuzzer harness for the kernel cache's reader (compiler/kernel_cache.h):
// what another process, another user or a damaged disk may leave at an
// entry's name.
//
// Input: one byte of what to place, then the bytes of an entry file, placed
// at the name of the key the bytes hold (after the magic line and the key's
// size) where they hold one, else of a fixed key, and looked up by that key.
//   bits 0-1 of the first byte: 0 a regular file holding the bytes; 1 a
//   symbolic link to such a file; 2 a FIFO; 3 a directory;
//   bit 2: the file is group-writable; bit 3: writable by others.
// Invariants:
//   1. get never blocks and never crashes;
//   2. get returns an object only for a regular file (not a link), writable
//      by no one but this user, whose bytes are exactly those put writes for
//      that key and object (compared with a fresh put into a second cache);
//   3. put then replaces whatever was there, and get returns what was put.
// The seeds (tests/fuzz/corpus/kernel_cache) are entries of real kernel
// objects under each placement (tests/fuzz/README.md says how they are made).
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "compiler/kernel_cache.h"
#include "tests/fuzz/fuzz_report.h"
#include "tests/fuzz/fuzz_temp_dir.h"

namespace {

namespace fs = std::filesystem;

constexpr char kHarness[] = "fuzz_kernel_cache";
const std::string kKey = "fuzz key: the signature of a kernel, its symbol, the CPU and the emitter";

// The key an entry's bytes hold, or kKey.
std::string key_of(const std::string& bytes) {
  const size_t line = bytes.find('\n');
  uint64_t size = 0;
  if (line == std::string::npos || bytes.size() < line + 1 + sizeof size) return kKey;
  std::memcpy(&size, bytes.data() + line + 1, sizeof size);
  if (size == 0 || size > bytes.size() - line - 1 - sizeof size) return kKey;
  return bytes.substr(line + 1 + sizeof size, size);
}

void remove_entry(const std::string& path) {
  std::error_code ec;
  fs::remove_all(path, ec);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string& dir = mlc::fuzz::temp_dir("kernel_cache");
  static const mlc::KernelCache cache = *mlc::KernelCache::open(dir + "/cache");
  static const mlc::KernelCache reference = *mlc::KernelCache::open(dir + "/reference");
  const uint8_t how = data[0];
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string key = key_of(bytes);
  const std::string entry = cache.path(key), target = dir + "/target";
  remove_entry(entry);
  remove_entry(target);
  switch (how & 3) {
    case 0: std::ofstream(entry, std::ios::binary) << bytes; break;
    case 1:
      std::ofstream(target, std::ios::binary) << bytes;
      fs::create_symlink(target, entry);
      break;
    case 2: ::mkfifo(entry.c_str(), 0600); break;
    case 3: fs::create_directories(entry); break;
  }
  if ((how & 3) == 0 || (how & 3) == 1) {
    const std::string& file = (how & 3) == 0 ? entry : target;
    ::chmod(file.c_str(), 0600 | ((how & 4) ? 0020 : 0) | ((how & 8) ? 0002 : 0));
  }

  const std::optional<std::string> got = cache.get(key);  // invariant 1
  if (got) {
    if ((how & 3) != 0) mlc::fuzz::fail(kHarness, "an object came from something other than a regular file",
                                        "placement " + std::to_string(how & 3));
    if (how & 12) mlc::fuzz::fail(kHarness, "an object came from an entry others may write",
                                  "mode bits " + std::to_string(how & 12));
    reference.put(key, *got);
    if (mlc::fuzz::read_bytes(reference.path(key)) != bytes)
      mlc::fuzz::fail(kHarness, "an object came from an entry put would not write",
                      mlc::fuzz::first_difference(mlc::fuzz::read_bytes(reference.path(key)), bytes));
    remove_entry(reference.path(key));
  }
  if ((how & 3) == 3) remove_entry(entry);  // put renames over files, not over a directory
  cache.put(key, "object");
  if (cache.get(key) != std::optional<std::string>("object"))
    mlc::fuzz::fail(kHarness, "put did not replace the entry", "placement " + std::to_string(how & 3));
  return 0;
}
