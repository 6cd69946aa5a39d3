// Quoting input in messages (support/quote.h; ir/diagnostics.h passes it on):
// escaped, and bounded whatever the input's length.
#include <gtest/gtest.h>

#include "support/quote.h"

namespace mlc {
namespace {

TEST(Quote, QuotedInputEscapesControlCharactersAndIllFormedUtf8) {
  EXPECT_EQ(squote("a\nb"), "'a\\x0ab'");
  EXPECT_EQ(squote("caf\xC3\xA9"), "'caf\xC3\xA9'");
  EXPECT_EQ(squote("\xC3("), "'\\xc3('");
  EXPECT_EQ(squote("\xED\xA0\x80"), "'\\xed\\xa0\\x80'");  // a surrogate
  EXPECT_EQ(squote(std::string(60, 'x')), "'" + std::string(60, 'x') + "'");
}

TEST(Quote, LongInputIsCutWithItsLength) {
  EXPECT_EQ(squote(std::string(100, 'x')), "'" + std::string(60, 'x') + "...' (100 bytes)");
  std::string utf = std::string(59, 'x') + "\xC3\xA9";  // the cut falls inside the é
  EXPECT_EQ(squote(utf), "'" + std::string(59, 'x') + "...' (61 bytes)");
  std::string digits(15'000'000, '1');
  EXPECT_EQ(unquoted(digits), std::string(60, '1') + "... (15000000 bytes)");
  // An escape counts as the one byte it stands for.
  EXPECT_EQ(squote(std::string(70, '\x01')).size(), 60 * 4 + std::string("'...' (70 bytes)").size());
}

}  // namespace
}  // namespace mlc
