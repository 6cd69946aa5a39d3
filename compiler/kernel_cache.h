// A directory of compiled kernel objects, so that compiling the same kernel
// again (a second `mlc run` of a model, or the eval function reusing the
// train step's kernels) skips code generation.
//
// The cache holds native code that mlc runs, so it trusts only what this user
// alone can write (the rules of ssh and ccache for private files):
//  - open creates a missing directory (and missing parents) with mode 0700
//    whatever the umask, and refuses a directory that is not owned by this
//    user or that group or others may write: an Error saying so and what to
//    do. from_environment then warns once on stderr and the run goes on
//    without a cache.
//  - An entry is trusted only if it is a regular file (never a link, FIFO or
//    device: it is opened with O_NOFOLLOW | O_NONBLOCK and fstat'ed), owned by
//    this user, not writable by group or others, and at most kMaxEntryBytes.
//    Anything else is a miss, and the compile's put replaces it.
//
// Contracts:
//  - An entry is keyed by the bytes of everything that determines the
//    object: the kernel's signature (compiler/kernel_ir.h), its symbol, the
//    target CPU and features, the LLVM version and the emitter's version. The
//    file is named by a 128-bit hash of the key and holds the full key and a
//    checksum of the key and object, so a hash collision or a file moved to
//    another entry's name is a miss, never a wrong object. (compile_kernels
//    also checks that a hit defines the symbol it is loaded for.)
//  - get returns the object only when the file is whole and trusted (above):
//    header, key, size and checksum all match. Anything else (absent,
//    truncated, corrupt, unreadable, untrusted) is a miss. A cache never
//    fails a compile.
//  - put writes a new temporary file (rt::create_temp_file: O_EXCL |
//    O_NOFOLLOW, mode 0600) and renames it into place, so concurrent
//    processes and interrupted writes never leave a partial entry and a
//    planted link is never followed; failures (read-only or full disk) are
//    ignored.
//  - from_environment: $MLC_CACHE_DIR, else $XDG_CACHE_HOME/mlc/kernels, else
//    $HOME/.cache/mlc/kernels; MLC_CACHE_DIR=off (or empty) disables caching.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ir/expected.h"

namespace mlc {

class KernelCache {
 public:
  static constexpr int64_t kMaxEntryBytes = int64_t{64} << 20;

  static Expected<KernelCache> open(std::string dir);
  static std::optional<KernelCache> from_environment();

  std::optional<std::string> get(const std::string& key) const;
  void put(const std::string& key, const std::string& object) const;

  const std::string& dir() const { return dir_; }
  // The entry's file for `key` (for tests that damage it).
  std::string path(const std::string& key) const;

 private:
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

}  // namespace mlc
