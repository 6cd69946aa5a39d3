// A directory of compiled kernel objects, so that compiling the same kernel
// again (a second `mlc run` of a model, or the eval function reusing the
// train step's kernels) skips code generation.
//
// Contracts:
//  - An entry is keyed by the bytes of everything that determines the
//    object: the kernel's signature (compiler/kernel_ir.h), the target CPU and
//    features, the LLVM version and the emitter's version. The file is named
//    by a 128-bit hash of the key and holds the key itself, so a hash
//    collision is a miss, never a wrong object.
//  - get returns the object only when the file is whole: its header, key,
//    size and checksum all match. Anything else (absent, truncated, corrupt,
//    unreadable) is a miss. A cache never fails a compile.
//  - put writes a temporary file and renames it into place, so concurrent
//    processes and interrupted writes never leave a partial entry; failures
//    (read-only or full disk) are ignored.
//  - from_environment: $MLC_CACHE_DIR, else $XDG_CACHE_HOME/mlc/kernels, else
//    $HOME/.cache/mlc/kernels; MLC_CACHE_DIR=off (or empty) disables caching.
#pragma once

#include <optional>
#include <string>

namespace mlc {

class KernelCache {
 public:
  explicit KernelCache(std::string dir) : dir_(std::move(dir)) {}
  static std::optional<KernelCache> from_environment();

  std::optional<std::string> get(const std::string& key) const;
  void put(const std::string& key, const std::string& object) const;

  const std::string& dir() const { return dir_; }
  // The entry's file for `key` (for tests that damage it).
  std::string path(const std::string& key) const;

 private:
  std::string dir_;
};

}  // namespace mlc
