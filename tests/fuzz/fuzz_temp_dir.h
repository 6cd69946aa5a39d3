// Files of a harness run: a per-process temporary directory under $TMPDIR (or
// /tmp), created on first use and removed at normal exit (scripts/fuzz.sh
// points TMPDIR at /dev/shm: the writers fsync), and reading a file back.
#pragma once

#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace mlc::fuzz {

// <TMPDIR>/mlc-fuzz-<harness>.XXXXXX (harness: "artifact", ...). Never destroyed: the atexit handler
// runs after the destructors of statics constructed before it was registered,
// so it must not use such a static.
inline const std::string& temp_dir(const char* harness) {
  static const std::string* dir = [harness] {
    const char* base = std::getenv("TMPDIR");
    auto* d = new std::string(std::string(base && *base ? base : "/tmp") + "/mlc-fuzz-" + harness + ".XXXXXX");
    if (!::mkdtemp(d->data())) {
      std::perror(("fuzz_" + std::string(harness) + ": mkdtemp " + *d).c_str());
      std::abort();
    }
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(*dir, ec);
    });
    return d;
  }();
  return *dir;
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace mlc::fuzz
