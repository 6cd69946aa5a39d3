// Frontends tests name files relative to the source root (as ctest runs them),
// so that messages carry short, machine-independent paths. Including this
// header moves the test process there before any test runs.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mlc::testing {

inline const bool kInSourceRoot = [] {
  std::filesystem::current_path(MLC_SOURCE_DIR);
  return true;
}();

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace mlc::testing
