// Loops of the forward language (forward_loop.h).
#include "frontends/forward_loop.h"

#include <cctype>
#include <utility>

#include "ir/diagnostics.h"

namespace mlc {

namespace {

struct LoopHeader {
  std::string var;
  size_t var_at = 0;  // its offset in the text
  int64_t count = 0;
  std::vector<std::pair<size_t, size_t>> parts;  // [begin, end) of each body statement in the text
};

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class HeaderReader {
 public:
  HeaderReader(const JsonDoc& doc, const Node& node, std::string_view text)
      : text_(text), locator_(doc.string_locator(node)) {}

  Expected<LoopHeader> read() {
    LoopHeader h;
    MLC_CHECK_OK(keyword("for"));
    skip_spaces();
    h.var_at = pos_;
    MLC_TRY(h.var, word("a loop variable"));
    MLC_CHECK_OK(keyword("in"));
    MLC_CHECK_OK(keyword("range"));
    MLC_CHECK_OK(punct('('));
    skip_spaces();
    const size_t at = pos_;
    int64_t n = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_])) && n <= kMaxLoopCount)
      n = n * 10 + (text_[pos_++] - '0');
    if (pos_ == at || n < 1 || n > kMaxLoopCount)
      return error(at, "a loop runs over range(N), N an integer literal from 1 to " + std::to_string(kMaxLoopCount) +
                           " (the model's shapes are static)");
    h.count = n;
    MLC_CHECK_OK(punct(')'));
    MLC_CHECK_OK(punct(':'));
    MLC_CHECK_OK(split_body(h));
    return h;
  }

 private:
  Error error(size_t offset, const std::string& message) const {
    return error_at(locator_.at(offset), "forward: " + message);
  }
  void skip_spaces() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  std::string_view next_word() {
    skip_spaces();
    size_t end = pos_;
    while (end < text_.size() && word_char(text_[end])) ++end;
    return text_.substr(pos_, end - pos_);
  }
  Expected<std::string> word(const char* what) {
    std::string_view w = next_word();
    if (w.empty() || std::isdigit(static_cast<unsigned char>(w[0])))
      return error(pos_, std::string("expected ") + what + " in 'for NAME in range(N): statements'");
    pos_ += w.size();
    return std::string(w);
  }
  Status keyword(std::string_view k) {
    if (next_word() != k)
      return error(pos_, "expected '" + std::string(k) + "' in 'for NAME in range(N): statements'");
    pos_ += k.size();
    return {};
  }
  Status punct(char c) {
    skip_spaces();
    if (pos_ >= text_.size() || text_[pos_] != c)
      return error(pos_, std::string("expected '") + c + "' in 'for NAME in range(N): statements'");
    ++pos_;
    return {};
  }
  // The statements after ':', split at ';' outside brackets and strings.
  Status split_body(LoopHeader& h) {
    int depth = 0;
    char quote = 0;
    size_t begin = pos_;
    for (size_t i = pos_; i <= text_.size(); ++i) {
      const char c = i < text_.size() ? text_[i] : ';';
      if (quote) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      else if (c == '(' || c == '[') ++depth;
      else if (c == ')' || c == ']') --depth;
      else if (c == ';' && (depth == 0 || i == text_.size())) {
        size_t b = begin;
        while (b < i && std::isspace(static_cast<unsigned char>(text_[b]))) ++b;
        if (b == i) return error(b, "expected a statement in the loop's body");
        h.parts.emplace_back(b, i);
        begin = i + 1;
      }
    }
    return {};
  }

  std::string_view text_;
  StringLocator locator_;
  size_t pos_ = 0;
};

}  // namespace

bool is_loop_statement(std::string_view text) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  return text.substr(i, 3) == "for" && (i + 3 == text.size() || !word_char(text[i + 3]));
}

Expected<Statement> parse_loop(const JsonDoc& doc, const Node& node, std::string_view text,
                               const ParseStatement& parse_one, ForwardProgram& program) {
  MLC_TRY(LoopHeader h, HeaderReader(doc, node, text).read());
  Statement loop;
  loop.loc = doc.loc(node);
  loop.loop_var = h.var;
  loop.loop_count = h.count;
  // The variable is assigned as `t = 0` would be (the same names refused, the
  // errors at it): ' in ' after it leaves room for ' = 0'.
  std::string decl(text.size(), ' ');
  decl.replace(h.var_at, h.var.size() + 4, h.var + " = 0");
  ForwardProgram scratch;
  auto declared = parse_one(decl, scratch);
  if (!declared) return declared.take_error();
  ForwardProgram body_work;
  for (auto [begin, end] : h.parts) {
    std::string part(text.size(), ' ');  // the statement alone, at its offsets
    for (size_t i = begin; i < end; ++i) part[i] = text[i];
    if (is_loop_statement(part)) return error_at(doc.string_locator(node).at(begin), "forward: loops do not nest");
    MLC_TRY(Statement st, parse_one(part, body_work));
    if (st.is_return()) return error_at(doc.string_locator(node).at(begin), "forward: a loop's body cannot return");
    loop.body.push_back(std::move(st));
  }
  // At most 2^20 statements of bounded work, times at most 2^16: no overflow.
  program.ops += body_work.ops * h.count;
  for (const auto& [callee, k] : body_work.calls) program.calls[callee] += k * h.count;
  return loop;
}

}  // namespace mlc
