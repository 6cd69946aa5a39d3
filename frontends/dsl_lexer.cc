#include "frontends/dsl_lexer.h"

#include <algorithm>

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

}  // namespace

Expected<DslToken> DslLexer::next() {
  if (failed_) return *failed_;
  Expected<DslToken> t = read();
  if (!t) failed_ = t.error();
  return t;
}

DslToken DslLexer::emit(DslToken::Kind kind, size_t begin, size_t end) {
  DslToken t{kind, begin, end, text_.substr(begin, end - begin), comment_};
  comment_ = std::string_view::npos;
  last_ = kind;
  return t;
}

Error DslLexer::error(size_t offset, const std::string& message) const {
  return error_at(loc_of_offset(path_, text_, offset), message);
}

Expected<DslToken> DslLexer::read() {
  if (last_ == DslToken::end) return emit(DslToken::end, text_.size(), text_.size());
  if (dedents_ > 0) {
    --dedents_;
    return emit(DslToken::dedent, i_, i_);
  }
  while (i_ < text_.size()) {
    if (line_start_ && brackets_.empty()) {
      line_start_ = false;
      MLC_TRY(bool indent, indentation());
      if (indent) return emit(DslToken::indent, i_, i_);
      if (dedents_ > 0) {
        --dedents_;
        return emit(DslToken::dedent, i_, i_);
      }
      continue;
    }
    char c = text_[i_];
    size_t s = i_;
    if (c == '\n') {
      ++i_;
      if (brackets_.empty()) {
        line_start_ = true;
        if (last_ != DslToken::newline && last_ != DslToken::dedent)
          return emit(DslToken::newline, s, s);
      }
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i_;
    } else if (c == '#') {
      if (comment_ == std::string_view::npos) comment_ = i_;
      MLC_CHECK_OK(skip_comment());
    } else if (word_start(c)) {
      while (i_ < text_.size() && word_char(text_[i_])) ++i_;
      return emit(DslToken::word, s, i_);
    } else if (digit(c) || (c == '.' && i_ + 1 < text_.size() && digit(text_[i_ + 1]))) {
      while (i_ < text_.size() && digit(text_[i_])) ++i_;
      if (i_ < text_.size() && text_[i_] == '.') {
        ++i_;
        while (i_ < text_.size() && digit(text_[i_])) ++i_;
      }
      if (i_ + 1 < text_.size() && (text_[i_] == 'e' || text_[i_] == 'E') &&
          (digit(text_[i_ + 1]) ||
           ((text_[i_ + 1] == '+' || text_[i_ + 1] == '-') && i_ + 2 < text_.size() &&
            digit(text_[i_ + 2])))) {
        i_ += 2;
        while (i_ < text_.size() && digit(text_[i_])) ++i_;
      }
      return emit(DslToken::number, s, i_);
    } else if (c == '"' || c == '\'') {
      return string(c);
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      static const char* hex = "0123456789abcdef";
      auto b = static_cast<unsigned char>(c);
      return error(i_, std::string("unexpected control character 0x") + hex[b >> 4] +
                           hex[b & 15]);
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      size_t n = utf8_char_length(text_, i_);
      if (n == 0) return error(i_, "ill-formed UTF-8 byte (model files must be UTF-8)");
      i_ += n;
      return emit(DslToken::punct, s, i_);
    } else {
      MLC_CHECK_OK(bracket(i_));
      ++i_;
      return emit(DslToken::punct, s, i_);
    }
  }
  size_t n = text_.size();
  if (!brackets_.empty())
    return error(brackets_.back(), squote(text_.substr(brackets_.back(), 1)) + " is never closed");
  if (last_ != DslToken::newline && last_ != DslToken::dedent)
    return emit(DslToken::newline, n, n);
  if (indents_.size() > 1) {
    indents_.pop_back();
    return emit(DslToken::dedent, n, n);
  }
  return emit(DslToken::end, n, n);
}

// At the start of a physical line outside brackets: measures its indentation
// and, for a line that holds a token, returns true for an INDENT or queues its
// DEDENTs. Leaves i_ at its first non-blank byte (or at its newline for a
// blank line).
Expected<bool> DslLexer::indentation() {
  size_t s = i_;
  while (i_ < text_.size() && (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\r')) {
    if (text_[i_] == '\t') {
      size_t j = i_;
      while (j < text_.size() && (text_[j] == ' ' || text_[j] == '\t' || text_[j] == '\r')) ++j;
      if (j < text_.size() && text_[j] != '\n' && text_[j] != '#')
        return error(i_, "a tab in the indentation (indent with spaces)");
      i_ = j;  // a blank line
      break;
    }
    ++i_;
  }
  if (i_ >= text_.size() || text_[i_] == '\n' || text_[i_] == '#') return false;  // blank line
  size_t width = i_ - s;
  if (width > indents_.back()) {
    indents_.push_back(width);
    return true;
  }
  auto level = std::lower_bound(indents_.begin(), indents_.end(), width);
  if (*level != width) {
    std::string levels;
    for (size_t k = 0; k < indents_.size(); ++k)
      levels += (k == 0 ? "" : k + 1 == indents_.size() ? " and " : ", ") +
                std::to_string(indents_[k]);
    return error(i_, "this line is indented " + std::to_string(width) +
                         " spaces, which matches no enclosing block (indented " + levels +
                         " spaces)");
  }
  dedents_ = static_cast<size_t>(indents_.end() - level) - 1;
  indents_.erase(level + 1, indents_.end());
  return false;
}

Status DslLexer::skip_comment() {
  while (i_ < text_.size() && text_[i_] != '\n') {
    auto b = static_cast<unsigned char>(text_[i_]);
    if (b >= 0x80) {
      size_t n = utf8_char_length(text_, i_);
      if (n == 0) return error(i_, "ill-formed UTF-8 byte (model files must be UTF-8)");
      i_ += n;
    } else {
      ++i_;
    }
  }
  return {};
}

Expected<DslToken> DslLexer::string(char quote) {
  size_t s = i_, i = i_ + 1;
  while (i < text_.size() && text_[i] != quote) {
    auto b = static_cast<unsigned char>(text_[i]);
    if (text_[i] == '\n') break;
    if (text_[i] == '\\' && i + 1 < text_.size() && text_[i + 1] != '\n') {
      i += 2;
    } else if (b >= 0x80) {
      size_t n = utf8_char_length(text_, i);
      if (n == 0) return error(i, "ill-formed UTF-8 byte (model files must be UTF-8)");
      i += n;
    } else if (b < 0x20) {
      return error(i, "a control character in a string (write it as an escape: \\t, \\u0001)");
    } else {
      ++i;
    }
  }
  if (i >= text_.size() || text_[i] != quote)
    return error(s, "this string is never closed (strings end on their line)");
  i_ = i + 1;
  return emit(DslToken::string, s, i_);
}

Status DslLexer::bracket(size_t i) {
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

}  // namespace mlc
