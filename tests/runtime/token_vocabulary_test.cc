// runtime/token_vocabulary.h: a token file's vocabulary read back from its
// metadata, text encoded with it and decoded, and malformed metadata refused.
#include <gtest/gtest.h>

#include "runtime/token_vocabulary.h"

namespace mlc::rt {
namespace {

using Metadata = std::vector<std::pair<std::string, std::string>>;

TEST(TokenVocabulary, TextRoundTripsThroughTheMetadataOfATokenFile) {
  auto text = tokenize_text("héllo, world\n", TokenLevel::character, "t.txt");
  ASSERT_TRUE(text.ok());
  auto file = token_file(*text, 4, 0, "t.txt");
  ASSERT_TRUE(file.ok());
  auto vocab = vocabulary_of(file->metadata, "t.safetensors");
  ASSERT_TRUE(vocab.ok()) << vocab.error().message;
  EXPECT_EQ(vocab->size(), 10);
  auto ids = encode(*vocab, "hé world", "--prompt");
  ASSERT_TRUE(ids.ok()) << ids.error().message;
  std::string back;
  for (int64_t id : *ids) back += decode(*vocab, id);
  EXPECT_EQ(back, "hé world");
  EXPECT_EQ(decode(*vocab, 10), "");
  auto missing = encode(*vocab, "hox", "--prompt");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "--prompt: character 'x' at byte 2 is not in the vocabulary (10 characters)");

  Vocabulary bytes{TokenLevel::byte, {}};
  auto raw = encode(bytes, "a\xff", "--prompt");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, (std::vector<int64_t>{97, 255}));
  EXPECT_EQ(decode(bytes, 255), "\xff");
}

TEST(TokenVocabulary, MalformedMetadataIsAnErrorNamingTheFile) {
  const std::vector<std::pair<Metadata, std::string>> cases = {
      {{}, "f: error: the metadata holds no vocabulary (expected \"format\": \"mlc-tokens/1\" and \"level\", as mlc data "
           "text writes them)"},
      {{{"format", "mlc-tokens/1"}, {"level", "word"}}, "f: error: metadata \"level\": expected char or byte, found 'word'"},
      {{{"format", "mlc-tokens/1"}, {"level", "char"}}, "f: error: metadata \"vocab\" is missing (level char)"},
      {{{"format", "mlc-tokens/1"}, {"level", "char"}, {"vocab", "[\"a\", 3]"}},
       "f: error: metadata \"vocab\": entry 1 is not a character"},
      {{{"format", "mlc-tokens/1"}, {"level", "char"}, {"vocab", "{not json"}},
       "f: error: metadata \"vocab\": expected a JSON list of characters"},
  };
  for (const auto& [metadata, message] : cases) {
    auto v = vocabulary_of(metadata, "f");
    ASSERT_FALSE(v.ok()) << message;
    EXPECT_EQ(v.error().message, message);
  }
}

}  // namespace
}  // namespace mlc::rt
