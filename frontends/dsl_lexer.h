// Tokens of the model language (docs/model-language.md), with Python's line
// structure: NEWLINE ends a logical line, INDENT/DEDENT open and close blocks,
// newlines inside (), [] and {} join lines, `#` starts a comment.
//
// Contracts:
//  - lex_model_language runs once over the text, never recurses, and keeps
//    O(text) tokens. It checks the text is UTF-8 without control characters
//    (tabs only between tokens), that brackets match and nest at most
//    kMaxBracketDepth deep, and Python's indentation rules (spaces only; a
//    dedent returns to an enclosing level). Errors are located at the byte.
//  - Every token's [begin, end) indexes the text. Words are
//    [A-Za-z_][A-Za-z0-9_]*; numbers are digits with an optional fraction and
//    exponent; strings are double-quoted with backslash escapes (decoded by
//    the parser, as JSON strings); any other character is a one-character
//    punct (a multi-byte UTF-8 character is one punct).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"

namespace mlc {

inline constexpr int kMaxBracketDepth = 64;

struct DslToken {
  enum Kind { word, number, string, punct, newline, indent, dedent, end } kind;
  size_t begin = 0, end_ = 0;  // bytes of the text; NEWLINE/INDENT/DEDENT/END: empty
  std::string_view text;

  bool is(std::string_view p) const { return kind == punct && text == p; }
  bool is_word(std::string_view w) const { return kind == word && text == w; }
  // "'x'", "the end of the line", "an indented block", "the end of the file".
  std::string describe() const;
};

struct DslTokens {
  std::vector<DslToken> tokens;
  std::vector<size_t> comments;  // offsets of every '#' that starts a comment, ascending
};

Expected<DslTokens> lex_model_language(std::string_view text, const std::string& path);

}  // namespace mlc
