#include "frontends/dsl_lexer.h"

#include "frontends/json_locations.h"
#include "ir/diagnostics.h"

namespace mlc {

std::string DslToken::describe() const {
  switch (kind) {
    case newline: return "the end of the line";
    case indent: return "an indented block";
    case dedent: return "the end of the block";
    case end: return "the end of the file";
    default: return squote(text);
  }
}

namespace {

bool word_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool word_char(char c) { return word_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Length of the UTF-8 character at text[i] (>= 0x80), or 0 if ill-formed.
size_t utf8_length(std::string_view text, size_t i) {
  auto b = static_cast<unsigned char>(text[i]);
  size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  auto b1 = static_cast<unsigned char>(text[i + 1]);
  if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 >= 0xA0) || (b == 0xF0 && b1 < 0x90) ||
      (b == 0xF4 && b1 >= 0x90))
    return 0;  // overlong, surrogate or beyond U+10FFFF
  return n;
}

class Lexer {
 public:
  Lexer(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  Expected<DslTokens> run() {
    size_t i = 0;
    bool line_start = true;
    while (i < text_.size()) {
      if (line_start && brackets_.empty()) {
        MLC_TRY(i, indentation(i));
        line_start = false;
        continue;
      }
      char c = text_[i];
      if (c == '\n') {
        if (brackets_.empty()) {
          if (!out_.tokens.empty() && out_.tokens.back().kind != DslToken::newline &&
              out_.tokens.back().kind != DslToken::dedent)
            push(DslToken::newline, i, i);
          line_start = true;
        }
        ++i;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++i;
      } else if (c == '#') {
        out_.comments.push_back(i);
        MLC_TRY(i, skip_comment(i));
      } else if (word_start(c)) {
        size_t s = i;
        while (i < text_.size() && word_char(text_[i])) ++i;
        push(DslToken::word, s, i);
      } else if (digit(c) || (c == '.' && i + 1 < text_.size() && digit(text_[i + 1]))) {
        size_t s = i;
        while (i < text_.size() && digit(text_[i])) ++i;
        if (i < text_.size() && text_[i] == '.') {
          ++i;
          while (i < text_.size() && digit(text_[i])) ++i;
        }
        if (i + 1 < text_.size() && (text_[i] == 'e' || text_[i] == 'E') &&
            (digit(text_[i + 1]) ||
             ((text_[i + 1] == '+' || text_[i + 1] == '-') && i + 2 < text_.size() &&
              digit(text_[i + 2])))) {
          i += 2;
          while (i < text_.size() && digit(text_[i])) ++i;
        }
        push(DslToken::number, s, i);
      } else if (c == '"') {
        MLC_TRY(i, string(i));
      } else if (c == '\'') {
        return error(i, "strings are written in double quotes (\"...\")");
      } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
        static const char* hex = "0123456789abcdef";
        auto b = static_cast<unsigned char>(c);
        return error(i, std::string("unexpected control character 0x") + hex[b >> 4] +
                            hex[b & 15]);
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        size_t n = utf8_length(text_, i);
        if (n == 0) return error(i, "ill-formed UTF-8 byte (model files must be UTF-8)");
        push(DslToken::punct, i, i + n);
        i += n;
      } else {
        MLC_CHECK_OK(bracket(i));
        push(DslToken::punct, i, i + 1);
        ++i;
      }
    }
    if (!brackets_.empty())
      return error(brackets_.back(), squote(text_.substr(brackets_.back(), 1)) + " is never closed");
    if (!out_.tokens.empty() && out_.tokens.back().kind != DslToken::newline &&
        out_.tokens.back().kind != DslToken::dedent)
      push(DslToken::newline, text_.size(), text_.size());
    for (size_t k = 1; k < indents_.size(); ++k) push(DslToken::dedent, text_.size(), text_.size());
    push(DslToken::end, text_.size(), text_.size());
    return std::move(out_);
  }

 private:
  Error error(size_t offset, const std::string& message) const {
    return error_at(loc_of_offset(path_, text_, offset), message);
  }

  void push(DslToken::Kind kind, size_t begin, size_t end) {
    out_.tokens.push_back(DslToken{kind, begin, end, text_.substr(begin, end - begin)});
  }

  // At the start of a physical line outside brackets: measures its indentation
  // and emits INDENT/DEDENT for a line that holds a token. Returns the offset
  // of its first non-blank byte (or of its newline for a blank line).
  Expected<size_t> indentation(size_t i) {
    size_t s = i;
    while (i < text_.size() && (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\r')) {
      if (text_[i] == '\t') {
        size_t j = i;
        while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t' || text_[j] == '\r')) ++j;
        if (j < text_.size() && text_[j] != '\n' && text_[j] != '#')
          return error(i, "a tab in the indentation (indent with spaces)");
      }
      ++i;
    }
    if (i >= text_.size() || text_[i] == '\n' || text_[i] == '#') return i;  // blank line
    size_t width = i - s;
    if (width > indents_.back()) {
      indents_.push_back(width);
      push(DslToken::indent, i, i);
    } else {
      std::string levels;
      for (size_t k = 0; k < indents_.size(); ++k)
        levels += (k == 0 ? "" : k + 1 == indents_.size() ? " and " : ", ") +
                  std::to_string(indents_[k]);
      while (width < indents_.back()) {
        indents_.pop_back();
        push(DslToken::dedent, i, i);
      }
      if (width != indents_.back())
        return error(i, "this line is indented " + std::to_string(width) +
                            " spaces, which matches no enclosing block (indented " + levels +
                            " spaces)");
    }
    return i;
  }

  Expected<size_t> skip_comment(size_t i) {
    while (i < text_.size() && text_[i] != '\n') {
      auto b = static_cast<unsigned char>(text_[i]);
      if (b >= 0x80) {
        size_t n = utf8_length(text_, i);
        if (n == 0) return error(i, "ill-formed UTF-8 byte (model files must be UTF-8)");
        i += n;
      } else {
        ++i;
      }
    }
    return i;
  }

  Expected<size_t> string(size_t s) {
    size_t i = s + 1;
    while (i < text_.size() && text_[i] != '"') {
      auto b = static_cast<unsigned char>(text_[i]);
      if (text_[i] == '\n') break;
      if (text_[i] == '\\' && i + 1 < text_.size() && text_[i + 1] != '\n') {
        i += 2;
      } else if (b >= 0x80) {
        size_t n = utf8_length(text_, i);
        if (n == 0) return error(i, "ill-formed UTF-8 byte (model files must be UTF-8)");
        i += n;
      } else if (b < 0x20) {
        return error(i, "a control character in a string (write it as an escape: \\t, \\u0001)");
      } else {
        ++i;
      }
    }
    if (i >= text_.size() || text_[i] != '"')
      return error(s, "this string is never closed (strings end on their line)");
    push(DslToken::string, s, i + 1);
    return i + 1;
  }

  Status bracket(size_t i) {
    char c = text_[i];
    if (c == '(' || c == '[' || c == '{') {
      if (static_cast<int>(brackets_.size()) >= kMaxBracketDepth)
        return error(i, "brackets nested deeper than " + std::to_string(kMaxBracketDepth) +
                            " levels");
      brackets_.push_back(i);
      return {};
    }
    if (c != ')' && c != ']' && c != '}') return {};
    char open = c == ')' ? '(' : c == ']' ? '[' : '{';
    if (brackets_.empty()) return error(i, squote(std::string(1, c)) + " closes nothing");
    size_t o = brackets_.back();
    if (text_[o] != open) {
      Loc at = loc_of_offset(path_, text_, o);
      return error(i, squote(std::string(1, c)) + " does not close " +
                          squote(text_.substr(o, 1)) + " (line " + std::to_string(at.line) +
                          ", column " + std::to_string(at.col) + ")");
    }
    brackets_.pop_back();
    return {};
  }

  std::string_view text_;
  const std::string& path_;
  DslTokens out_;
  std::vector<size_t> indents_{0};
  std::vector<size_t> brackets_;  // offsets of the open brackets
};

}  // namespace

Expected<DslTokens> lex_model_language(std::string_view text, const std::string& path) {
  return Lexer(text, path).run();
}

}  // namespace mlc
