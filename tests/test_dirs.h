// The source tree a test reads its files from and the build tree it writes
// scratch files into: the ones the test binary was built with
// (MLC_SOURCE_DIR, MLC_BINARY_DIR), unless $MLC_TEST_SOURCE_DIR or
// $MLC_TEST_BINARY_DIR name others. Test binaries that travel to a machine
// where the tree lives elsewhere (scripts/gpu_bundle.sh, scripts/gpu_check.sh)
// are pointed at it that way.
#pragma once

#include <cstdlib>
#include <filesystem>

namespace mlc::testing {

inline std::filesystem::path test_source_dir() {
  const char* dir = std::getenv("MLC_TEST_SOURCE_DIR");
  return dir && *dir ? dir : MLC_SOURCE_DIR;
}

inline std::filesystem::path test_binary_dir() {
  const char* dir = std::getenv("MLC_TEST_BINARY_DIR");
  return dir && *dir ? dir : MLC_BINARY_DIR;
}

}  // namespace mlc::testing
