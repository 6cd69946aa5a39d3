// Textual pass tests: every tests/passes/data/NAME.mlir (except the
// *.expected.mlir files) starts with a line `// passes: a,b,c`, followed by a
// module. The test parses it, runs the passes with run_passes, prints the
// module and compares with NAME.expected.mlir byte for byte. It also checks
// that the expected file parses, verifies and re-prints identically, and that
// the passes keep the module verifiable.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "ir/parser.h"
#include "ir/printer.h"
#include "ir/verifier.h"
#include "passes/pass.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;

const fs::path kDataDir = fs::path(MLC_SOURCE_DIR) / "tests" / "passes" / "data";
constexpr std::string_view kExpectedSuffix = ".expected.mlir";
constexpr std::string_view kPassesPrefix = "// passes:";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_expected_file(const fs::path& p) {
  std::string name = p.filename().string();
  return name.size() >= kExpectedSuffix.size() &&
         name.compare(name.size() - kExpectedSuffix.size(), kExpectedSuffix.size(), kExpectedSuffix) == 0;
}

// The input cases: NAME.mlir files, sorted.
std::vector<fs::path> input_cases() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(kDataDir))
    if (entry.path().extension() == ".mlir" && !is_expected_file(entry.path()))
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path expected_path(const fs::path& input) {
  return input.parent_path() / (input.stem().string() + std::string(kExpectedSuffix));
}

// The pass list of the first line, "// passes: cse,dce" -> {"cse", "dce"}.
std::vector<std::string> pass_list(const std::string& text) {
  std::string first = text.substr(0, text.find('\n'));
  if (first.rfind(kPassesPrefix, 0) != 0) return {};
  std::vector<std::string> names;
  std::stringstream ss(first.substr(kPassesPrefix.size()));
  for (std::string name; std::getline(ss, name, ',');) {
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

TEST(PassTextual, HasEnoughCases) {
  // At least 4 cases per pass (a case counts for each pass it names).
  std::map<std::string, int> count;
  for (const fs::path& p : input_cases())
    for (const std::string& name : pass_list(read_text(p))) ++count[name];
  for (const char* name : {"cse", "dce", "fold-constants", "simplify", "canonicalize"})
    EXPECT_GE(count[name], 4) << name;
}

TEST(PassTextual, EveryCaseHasAnExpectedFile) {
  for (const auto& entry : fs::directory_iterator(kDataDir)) {
    const fs::path& p = entry.path();
    if (is_expected_file(p)) {
      std::string stem = p.filename().string();
      stem.resize(stem.size() - kExpectedSuffix.size());
      EXPECT_TRUE(fs::exists(p.parent_path() / (stem + ".mlir"))) << p << " has no input";
    } else if (p.extension() == ".mlir") {
      EXPECT_TRUE(fs::exists(expected_path(p))) << p << " has no expected output";
    }
  }
}

TEST(PassTextual, ExpectedFilesRoundTrip) {
  for (const fs::path& input : input_cases()) {
    fs::path path = expected_path(input);
    std::string text = read_text(path);
    auto m = parse_module(text, path.filename().string());
    ASSERT_TRUE(m.ok()) << m.error().message;
    EXPECT_TRUE(verify_module(*m).ok()) << path;
    EXPECT_EQ(print_module(*m), text) << path << " does not re-print identically";
  }
}

TEST(PassTextual, Cases) {
  std::vector<fs::path> cases = input_cases();
  EXPECT_FALSE(cases.empty());
  for (const fs::path& input : cases) {
    SCOPED_TRACE(input.filename().string());
    std::string text = read_text(input);
    std::vector<std::string> passes = pass_list(text);
    ASSERT_FALSE(passes.empty()) << "first line must be `// passes: a,b`";
    auto m = parse_module(text, input.filename().string());
    ASSERT_TRUE(m.ok()) << m.error().message;
    auto ran = run_passes(*m, passes);
    ASSERT_TRUE(ran.ok()) << ran.error().message;
    Status verified = verify_module(*m);
    EXPECT_TRUE(verified.ok()) << verified.error().message;
    std::string got = print_module(*m);
    EXPECT_EQ(got, read_text(expected_path(input)));
    // The reported change flag agrees with the text.
    auto again = parse_module(text, input.filename().string());
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*ran, got != print_module(*again));
  }
}

}  // namespace
}  // namespace mlc
