// Hostile model files stay cheap, and their messages short (docs/limits.md):
// the model language is lexed only as far as the parser reads, and input that
// a message quotes is cut (support/quote.h).
#include <gtest/gtest.h>

#include <string>

#include "frontends/dsl_lexer.h"
#include "frontends/dsl_parse.h"
#include "frontends/model_file.h"

namespace mlc {
namespace {

std::string load_error(const std::string& text, const std::string& path) {
  auto mf = ModelFile::parse(text, path);
  return mf.ok() ? std::string("<loaded>") : mf.error().message;
}

// Megabytes of valid lines after the first mistake, and a lexer error at the
// very end: the mistake is reported, so nothing after it was lexed.
TEST(BoundedInput, TheModelLanguageStopsAtTheFirstMistakeWithoutLexingTheRest) {
  std::string text = "name = m\nx = = 1\n";
  while (text.size() < (4u << 20)) text += "y = [1, 2.5, \"s\", (3, 4)]  # more\n";
  text += "z = 'not a string'\n";
  auto doc = parse_model_language(text, "t.mlc");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.error().message, "t.mlc:2:5: error: expected a value, found '='");
}

TEST(BoundedInput, TheLexerReadsOnlyTheTokensAskedFor) {
  std::string text = "name = m\n" + std::string(4u << 20, 'x') + "\n";
  DslLexer lex(text, "t.mlc");
  for (const char* expected : {"name", "=", "m"}) {
    auto t = lex.next();
    ASSERT_TRUE(t.ok()) << t.error().message;
    EXPECT_EQ(t->text, expected);
  }
  EXPECT_EQ(lex.bytes_read(), 8u);
  auto newline = lex.next();
  ASSERT_TRUE(newline.ok());
  EXPECT_EQ(newline->kind, DslToken::newline);
  EXPECT_EQ(lex.bytes_read(), 9u);
}

TEST(BoundedInput, AHugeIntegerLiteralIsQuotedCut) {
  std::string digits(1'000'000, '9');
  EXPECT_EQ(load_error("name = m\nx = " + digits + "\n", "t.mlc"),
            "t.mlc:2:5: error: integer " + std::string(60, '9') +
                "... (1000000 bytes) is out of range");
  EXPECT_EQ(load_error("{\"name\": \"m\", \"epochs\": " + digits + "}", "t.json"),
            "t.json:1:25: error: invalid JSON: number " + std::string(60, '9') +
                "... (1000000 bytes) is out of range");
}

TEST(BoundedInput, HugeNamesAreQuotedCut) {
  std::string name(100'000, 'a');
  std::string quoted = "'" + std::string(60, 'a') + "...' (100000 bytes)";
  EXPECT_EQ(load_error("name = m\n" + name + " 1\n", "t.mlc"),
            "t.mlc:2:100002: error: expected '=' or ':' after " + quoted + ", found '1'");
  std::string model = "name = m\ninputs:\n    x: f32[batch, 4]\nmodel(x):\n    forward:\n"
                      "        return " + name + "\nloss = mse(targets=x)\n";
  EXPECT_EQ(load_error(model, "t.mlc"),
            "t.mlc:6:16: error: forward: unknown name " + quoted + " (defined here: x)");
}

TEST(BoundedInput, AnInputOfMoreThanTheRankLimit) {
  auto model = [](int rank) {
    std::string dims = "batch";
    for (int i = 1; i < rank; ++i) dims += ", 1";
    return "name = m\ninputs:\n    x: f32[" + dims + "]\nmodel(x):\n    forward:\n        return x\n"
           "loss = mse(targets=x)\n";
  };
  EXPECT_EQ(load_error(model(16), "t.mlc"), "<loaded>");
  EXPECT_EQ(load_error(model(17), "t.mlc"),
            "t.mlc:3:11: error: input 'x': shape has 17 dims, more than the limit of 16");
  EXPECT_EQ(load_error(model(100'000), "t.mlc"),
            "t.mlc:3:11: error: input 'x': shape has 100000 dims, more than the limit of 16");
}

}  // namespace
}  // namespace mlc
