// The diagnostics suite: every tests/frontends/data/bad/NAME.json (and
// NAME.mlc, the model language) must fail to load with exactly the one-line
// message in NAME.json.expected (NAME.mlc.expected). Plus robustness:
// truncations and byte mutations of the examples never crash or hang.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "frontends/model_file.h"
#include "tests/frontends/source_root.h"

namespace mlc {
namespace {

namespace fs = std::filesystem;
const std::string kBadDir = "tests/frontends/data/bad";

using testing::read_text;

std::vector<std::string> bad_cases() {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(kBadDir))
    if (e.path().extension() == ".json" || e.path().extension() == ".mlc")
      names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(ModelFileDiagnostics, EveryBadFileHasItsExactMessage) {
  auto names = bad_cases();
  EXPECT_GE(names.size(), 30u);
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    std::string path = kBadDir + "/" + name;
    std::string expected = read_text(path + ".expected");
    ASSERT_FALSE(expected.empty()) << "missing " << path << ".expected";
    while (!expected.empty() && (expected.back() == '\n' || expected.back() == '\r')) expected.pop_back();
    EXPECT_EQ(expected.find('\n'), std::string::npos) << "expected messages are one line";
    auto mf = ModelFile::load(path);
    ASSERT_FALSE(mf.ok()) << path << " loaded";
    EXPECT_EQ(mf.error().message, expected);
    EXPECT_EQ(mf.error().message.rfind(path + ":", 0), 0u) << "the message starts with the path";
  }
}

TEST(ModelFileDiagnostics, EveryExpectedFileHasItsModel) {
  for (const auto& e : fs::directory_iterator(kBadDir)) {
    std::string file = e.path().filename().string();
    if (e.path().extension() == ".expected")
      EXPECT_TRUE(fs::exists(kBadDir + "/" + file.substr(0, file.size() - 9))) << file;
    else
      EXPECT_TRUE(e.path().extension() == ".json" || e.path().extension() == ".mlc") << file;
  }
}

TEST(ModelFileDiagnostics, MissingFile) {
  auto mf = ModelFile::load("tests/frontends/data/no_such_model.json");
  ASSERT_FALSE(mf.ok());
  EXPECT_EQ(mf.error().message,
            "tests/frontends/data/no_such_model.json: error: cannot open: No such file or directory");
}

TEST(ModelFileDiagnostics, DirectoryIsNotAModelFile) {
  auto mf = ModelFile::load("tests/frontends/data");
  ASSERT_FALSE(mf.ok());
  EXPECT_EQ(mf.error().message.rfind("tests/frontends/data: error: ", 0), 0u) << mf.error().message;
}

// Every prefix of every example, in both forms, is rejected (or accepted)
// without crashing.
TEST(ModelFileRobustness, TruncatedExamples) {
  for (const char* name : {"digits_mlp.json", "digits_cnn.json", "tiny_gpt.json",
                           "digits_mlp.mlc", "digits_cnn.mlc", "tiny_gpt.mlc"}) {
    std::string path = std::string("examples/") + name;
    std::string text = read_text(path);
    ASSERT_FALSE(text.empty());
    for (size_t n = 0; n < text.size(); ++n) {
      auto mf = ModelFile::parse(std::string_view(text).substr(0, n), path);
      if (!mf.ok()) {
        EXPECT_EQ(mf.error().message.rfind(path + ":", 0), 0u) << mf.error().message;
      }
    }
    EXPECT_TRUE(ModelFile::parse(text, path).ok());
  }
}

// Random byte edits (deterministic seed): no crash, errors are located.
TEST(ModelFileRobustness, MutatedExamples) {
  std::mt19937 rng(1234);
  const std::string alphabet = "{}[]()\",:=;#0123456789-+.eE \\/abcxyz_\xff\x01\n\t";
  for (const char* name : {"digits_cnn.json", "tiny_gpt.json", "digits_cnn.mlc", "tiny_gpt.mlc",
                           "pytorch/vision_transformer.json", "pytorch/word_language_model_transformer.mlc"}) {
    std::string path = std::string("examples/") + name;
    std::string text = read_text(path);
    for (int iter = 0; iter < 3000; ++iter) {
      std::string t = text;
      int edits = 1 + static_cast<int>(rng() % 3);
      for (int e = 0; e < edits; ++e) {
        size_t pos = rng() % t.size();
        char c = alphabet[rng() % alphabet.size()];
        switch (rng() % 3) {
          case 0: t[pos] = c; break;
          case 1: t.insert(t.begin() + static_cast<long>(pos), c); break;
          default: t.erase(pos, 1 + rng() % 4); break;
        }
        if (t.empty()) t = "{";
      }
      auto mf = ModelFile::parse(t, path);
      if (mf.ok()) {
        auto m = mf->build(2);
        (void)m;
      } else {
        EXPECT_EQ(mf.error().message.rfind(path + ":", 0), 0u) << mf.error().message;
      }
    }
  }
}

TEST(ModelFileRobustness, DeepNestingAnywhere) {
  for (const std::string& open : {std::string("["), std::string("{\"a\":")}) {
    std::string text = "{\"name\": ";
    for (int i = 0; i < 100000; ++i) text += open;
    auto mf = ModelFile::parse(text, "deep.json");
    ASSERT_FALSE(mf.ok());
    EXPECT_NE(mf.error().message.find("nesting deeper than 64 levels"), std::string::npos)
        << mf.error().message;
  }
  // The model language: brackets, and blocks nested by indentation.
  std::string brackets = "name = " + std::string(100000, '[');
  auto mb = ModelFile::parse(brackets, "deep.mlc");
  ASSERT_FALSE(mb.ok());
  EXPECT_EQ(mb.error().message, "deep.mlc:1:71: error: nesting deeper than 64 levels");
  std::string blocks = "name = m\nmodel(x):\n";
  for (int i = 1; i < 2000; ++i)
    blocks += std::string(static_cast<size_t>(4 * i), ' ') + "b" + std::to_string(i) + ":\n";
  auto mk = ModelFile::parse(blocks, "deep.mlc");
  ASSERT_FALSE(mk.ok());
  EXPECT_NE(mk.error().message.find("error: nesting deeper than 64 levels"), std::string::npos)
      << mk.error().message;
}

TEST(ModelFileRobustness, HugeForwardExpressions) {
  std::string sum = "return x";
  for (int i = 0; i < 100000; ++i) sum += " + x";
  std::string parens = "return " + std::string(100000, '(') + "x" + std::string(100000, ')');
  std::string negs = "return " + std::string(100000, '-') + "x";
  for (const std::string& stmt : {sum, parens, negs}) {
    std::string text = R"({"name": "m", "inputs": {"x": {"dtype": "f32", "shape": [4]}},
      "model": {"layers": {}, "forward": [")" + stmt + R"("]},
      "loss": {"type": "mse", "targets": "x"}})";
    auto mf = ModelFile::parse(text, "big.json");
    ASSERT_FALSE(mf.ok());
    EXPECT_NE(mf.error().message.find("forward: expression"), std::string::npos)
        << mf.error().message.substr(0, 200);
  }
}

}  // namespace
}  // namespace mlc
