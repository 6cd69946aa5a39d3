// Tokens of the model language (docs/model-language.md), with Python's line
// structure: NEWLINE ends a logical line, INDENT/DEDENT open and close blocks,
// newlines inside (), [] and {} join lines, `#` starts a comment.
//
// Contracts:
//  - DslLexer reads the text lazily: each next() reads only as far as the
//    token it returns, so a parser that stops at its first error never reads
//    the rest of the file, and the lexer's memory is the open brackets and
//    indentation levels, never the tokens (docs/limits.md). It never recurses.
//  - It checks the text is UTF-8 without control characters (tabs only between
//    tokens), that brackets match and nest at most kMaxBracketDepth deep, and
//    Python's indentation rules (spaces only; a dedent returns to an enclosing
//    level), each when it reaches the byte. Errors are located at the byte.
//  - Every token's [begin, end) indexes the text. Words are
//    [A-Za-z_][A-Za-z0-9_]*; numbers are digits with an optional fraction and
//    exponent; strings are double-quoted with backslash escapes (decoded by
//    the parser, as JSON strings), or single-quoted (Python's, in a forward
//    statement: reduction='sum'); any other character is a one-character
//    punct (a multi-byte UTF-8 character is one punct).
#pragma once

#include <cstddef>
#include <optional>
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
  // The first '#' that starts a comment between the previous token and this
  // one, or npos.
  size_t comment = std::string_view::npos;

  bool is(std::string_view p) const { return kind == punct && text == p; }
  bool is_word(std::string_view w) const { return kind == word && text == w; }
  // "'x'", "the end of the line", "an indented block", "the end of the file".
  std::string describe() const;
};

class DslLexer {
 public:
  // `text` and `path` must outlive the lexer.
  DslLexer(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  // The next token. After END it returns END again; after an error, the same
  // error again.
  Expected<DslToken> next();
  // How many bytes of the text it has read (tests: the work is bounded).
  size_t bytes_read() const { return i_; }

 private:
  Expected<DslToken> read();
  DslToken emit(DslToken::Kind kind, size_t begin, size_t end);
  Error error(size_t offset, const std::string& message) const;
  Expected<bool> indentation();
  Status skip_comment();
  // A string in `quote`s: '"', or '\'' (kept for forward statements; a value
  // in single quotes is the parser's error).
  Expected<DslToken> string(char quote);
  Status bracket(size_t i);

  std::string_view text_;
  const std::string& path_;
  size_t i_ = 0;                 // the next byte to read
  bool line_start_ = true;       // i_ is at the start of a physical line
  DslToken::Kind last_ = DslToken::newline;  // the last token's kind (NEWLINE before any)
  size_t dedents_ = 0;           // DEDENTs still to return at i_
  size_t comment_ = std::string_view::npos;  // the first comment since the last token
  std::optional<Error> failed_;
  std::vector<size_t> indents_{0};
  std::vector<size_t> brackets_;  // offsets of the open brackets
};

}  // namespace mlc
