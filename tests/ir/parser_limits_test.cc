// The IR parser on hostile text: a type's rank is limited, and what a message
// quotes of the text is cut (support/quote.h), however long it is.
#include <gtest/gtest.h>

#include <string>

#include "ir/parser.h"

namespace mlc {
namespace {

std::string parse_error(const std::string& text) {
  auto m = parse_module(text, "t.mlir");
  return m.ok() ? std::string("<parsed>") : m.error().message;
}

std::string function_with_arg(const std::string& type) {
  return "module @m {\n  func @f(%x: " + type + " {input}) -> () {\n    return\n  }\n}\n";
}

TEST(ParserLimits, ATypeOfMoreThanTheRankLimit) {
  std::string dims = "1";
  for (int i = 1; i < 16; ++i) dims += ",1";
  EXPECT_EQ(parse_error(function_with_arg("f32[" + dims + "]")), "<parsed>");
  for (int i = 16; i < 5'000'000; ++i) dims += ",1";
  // At the 17th dim: 14 bytes of "  func @f(%x: ", 4 of "f32[", 16 dims of 2 bytes.
  EXPECT_EQ(parse_error(function_with_arg("f32[" + dims + "]")),
            "t.mlir:2:51: error: more than 16 dims in a type (the limit for a tensor's rank)");
}

TEST(ParserLimits, AHugeLiteralIsQuotedCut) {
  std::string digits(1'000'000, '9');
  EXPECT_EQ(parse_error(function_with_arg("f32[" + digits + "]")),
            "t.mlir:2:19: error: integer '" + std::string(60, '9') +
                "...' (1000000 bytes) is out of range");
}

TEST(ParserLimits, AHugeNameIsQuotedCut) {
  std::string name(1'000'000, 'v');
  std::string text = "module @m {\n  func @f(%x: f32[2] {input}) -> (f32[2]) {\n    return %" + name +
                     "\n  }\n}\n";
  EXPECT_EQ(parse_error(text), "t.mlir:3:12: error: use of undefined value '%" + std::string(59, 'v') +
                                   "...' (1000001 bytes)");
  EXPECT_EQ(parse_error("module @m {\n  " + name + "\n}\n"),
            "t.mlir:2:3: error: expected 'func' or '}', found '" + std::string(60, 'v') +
                "...' (1000000 bytes)");
}

}  // namespace
}  // namespace mlc
