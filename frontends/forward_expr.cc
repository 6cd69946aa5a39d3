#include "frontends/forward_expr.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unordered_set>

#include "ir/diagnostics.h"

namespace mlc {

namespace {

constexpr std::string_view kBuiltins[] = {"relu",    "gelu",    "silu",   "tanh",
                                          "sigmoid", "flatten", "softmax", "arange"};

// "a, b, c" ("none" if empty), at most kMaxListed names, then "and N more".
std::string join(const std::vector<std::string>& names) {
  constexpr size_t kMaxListed = 20;
  std::string s;
  for (size_t i = 0; i < names.size() && i < kMaxListed; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > kMaxListed) s += " and " + std::to_string(names.size() - kMaxListed) + " more";
  return s.empty() ? "none" : s;
}

// The names a statement can read: in definition order for messages, hashed for lookups.
struct DefinedNames {
  std::vector<std::string> order;
  std::unordered_set<std::string> set;

  void add(const std::string& name) {
    if (set.insert(name).second) order.push_back(name);
  }
  bool has(std::string_view name) const { return set.count(std::string(name)) > 0; }
};

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

struct Token {
  enum Kind { ident, number, punct, end } kind;
  size_t offset;
  std::string_view text;

  std::string describe() const {
    return kind == end ? "end of statement" : "'" + std::string(text) + "'";
  }
};

// Parses one statement string.
class StatementParser {
 public:
  StatementParser(const JsonDoc& doc, const Node& node, std::string_view text,
                  const ForwardScope& scope, const DefinedNames& defined)
      : doc_(doc),
        node_(node),
        text_(text),
        scope_(scope),
        defined_(defined),
        locator_(doc.string_locator(node)) {}

  Expected<Statement> parse() {
    MLC_CHECK_OK(lex());
    Statement st;
    st.loc = doc_.loc(node_);
    if (tok().kind == Token::ident && tok().text == "return") {
      ++pos_;
    } else if (tok().kind == Token::ident && tokens_[pos_ + 1].text == "=") {
      st.target = std::string(tok().text);
      MLC_CHECK_OK(check_target(tok()));
      pos_ += 2;
    } else {
      return error(tok().offset, "expected 'name = expr' or 'return expr', found " +
                                     tok().describe());
    }
    MLC_TRY(st.expr, parse_expr(0));
    if (tok().kind != Token::end)
      return error(tok().offset, "unexpected " + tok().describe() + " after the expression");
    return st;
  }

 private:
  Error error(size_t offset, const std::string& message) const {
    return error_at(locator_.at(offset), "forward: " + message);
  }
  Loc loc(size_t offset) const { return locator_.at(offset); }
  const Token& tok() const { return tokens_[pos_]; }

  Status lex() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      size_t start = i;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {  // a model-language statement may span lines
        ++i;
        continue;
      }
      if (ident_start(c)) {
        while (i < text_.size() && ident_char(text_[i])) ++i;
        tokens_.push_back({Token::ident, start, text_.substr(start, i - start)});
      } else if (digit(c) || (c == '.' && i + 1 < text_.size() && digit(text_[i + 1]))) {
        while (i < text_.size() && (digit(text_[i]) || text_[i] == '.')) ++i;
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
          ++i;
          if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
          while (i < text_.size() && digit(text_[i])) ++i;
        }
        if (i < text_.size() && ident_char(text_[i]))
          return error(i, "unexpected character " + squote(text_.substr(i, 1)) + " in a number");
        tokens_.push_back({Token::number, start, text_.substr(start, i - start)});
      } else if (std::string_view("=(),+-*").find(c) != std::string_view::npos) {
        tokens_.push_back({Token::punct, start, text_.substr(start, 1)});
        ++i;
      } else {
        size_t len = 1;
        while (start + len < text_.size() &&
               (static_cast<unsigned char>(text_[start + len]) & 0xC0) == 0x80)
          ++len;
        return error(start, "unexpected character " + squote(text_.substr(start, len)));
      }
    }
    tokens_.push_back({Token::end, text_.size(), {}});
    tokens_.push_back({Token::end, text_.size(), {}});  // lookahead padding
    return {};
  }

  bool is_layer(const std::string& name) const { return scope_.layer_arity(name).has_value(); }
  bool is_defined(std::string_view name) const { return defined_.has(name); }

  Status check_target(const Token& t) const {
    std::string name(t.text);
    if (is_layer(name)) return error(t.offset, "cannot assign to " + squote(name) + ": it is a layer");
    if (is_forward_builtin(name))
      return error(t.offset, "cannot assign to " + squote(name) + ": it is a built-in function");
    if (name == "batch")
      return error(t.offset, "cannot assign to 'batch': the symbol \"batch\" is reserved");
    return {};
  }

  bool accept(std::string_view punct) {
    if (tok().kind == Token::punct && tok().text == punct) {
      ++pos_;
      return true;
    }
    return false;
  }

  std::unique_ptr<Expr> make(Expr::Kind kind, size_t offset) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->loc = loc(offset);
    return e;
  }

  Expected<std::unique_ptr<Expr>> finish(std::unique_ptr<Expr> e, size_t offset) {
    for (const auto& a : e->args) e->height = std::max(e->height, a->height + 1);
    if (e->height > kMaxExprHeight)
      return error(offset, "expression too large (more than " + std::to_string(kMaxExprHeight) +
                               " nested operations)");
    return e;
  }

  Expected<std::unique_ptr<Expr>> parse_expr(int depth) {
    MLC_TRY(auto lhs, parse_term(depth));
    while (tok().kind == Token::punct && (tok().text == "+" || tok().text == "-")) {
      size_t off = tok().offset;
      auto e = make(Expr::Kind::binary, off);
      e->op = tok().text[0];
      ++pos_;
      MLC_TRY(auto rhs, parse_term(depth));
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      MLC_TRY(lhs, finish(std::move(e), off));
    }
    return lhs;
  }

  Expected<std::unique_ptr<Expr>> parse_term(int depth) {
    MLC_TRY(auto lhs, parse_unary(depth));
    while (tok().kind == Token::punct && tok().text == "*") {
      size_t off = tok().offset;
      auto e = make(Expr::Kind::binary, off);
      e->op = '*';
      ++pos_;
      MLC_TRY(auto rhs, parse_unary(depth));
      e->args.push_back(std::move(lhs));
      e->args.push_back(std::move(rhs));
      MLC_TRY(lhs, finish(std::move(e), off));
    }
    return lhs;
  }

  Expected<std::unique_ptr<Expr>> parse_unary(int depth) {
    if (depth >= kMaxExprDepth)
      return error(tok().offset, "expression nested too deeply (more than " +
                                     std::to_string(kMaxExprDepth) + " levels)");
    if (tok().kind == Token::punct && tok().text == "-") {
      size_t off = tok().offset;
      ++pos_;
      auto e = make(Expr::Kind::negate, off);
      MLC_TRY(auto x, parse_unary(depth + 1));
      e->args.push_back(std::move(x));
      return finish(std::move(e), off);
    }
    return parse_primary(depth);
  }

  Expected<std::unique_ptr<Expr>> parse_primary(int depth) {
    Token t = tok();
    if (t.kind == Token::number) {
      ++pos_;
      auto e = make(Expr::Kind::number, t.offset);
      std::string s(t.text);
      e->number = std::strtod(s.c_str(), nullptr);
      e->integral = s.find_first_of(".eE") == std::string::npos;
      if (!std::isfinite(e->number)) return error(t.offset, "number " + s + " is out of range");
      return e;
    }
    if (t.kind == Token::punct && t.text == "(") {
      ++pos_;
      MLC_TRY(auto e, parse_expr(depth + 1));
      if (!accept(")")) return error(tok().offset, "expected ')', found " + tok().describe());
      return e;
    }
    if (t.kind != Token::ident)
      return error(t.offset, "expected an expression, found " + t.describe());
    ++pos_;
    if (tokens_[pos_].kind == Token::punct && tokens_[pos_].text == "(") return parse_call(t, depth);
    return parse_name(t);
  }

  Expected<std::unique_ptr<Expr>> parse_name(const Token& t) {
    std::string name(t.text);
    if (is_defined(name)) {
      auto e = make(Expr::Kind::name, t.offset);
      e->name = name;
      return e;
    }
    if (is_layer(name))
      return error(t.offset, squote(name) + " is a layer; call it: " + name + "(...)");
    if (is_forward_builtin(name))
      return error(t.offset, squote(name) + " is a built-in function; call it: " + name + "(...)");
    if (name == "batch")
      return error(t.offset, "'batch' is not a value; the symbol \"batch\" is only allowed as a "
                             "dim of an input's shape");
    return error(t.offset, "unknown name " + squote(name) + " (defined here: " + join(defined_.order) + ")");
  }

  Expected<std::unique_ptr<Expr>> parse_call(const Token& t, int depth) {
    std::string name(t.text);
    std::optional<int> arity = scope_.layer_arity(name);
    if (!arity && is_forward_builtin(name)) arity = 1;
    if (!arity) {
      if (is_defined(name)) return error(t.offset, squote(name) + " is a value, not a layer");
      std::vector<std::string> builtins(std::begin(kBuiltins), std::end(kBuiltins));
      return error(t.offset, "unknown layer or function " + squote(name) +
                                 " (built-ins: " + join(builtins) + ")");
    }
    auto e = make(Expr::Kind::call, t.offset);
    e->name = name;
    e->builtin = !scope_.layer_arity(name).has_value();
    ++pos_;  // '('
    if (!accept(")")) {
      do {
        MLC_TRY(auto a, parse_expr(depth + 1));
        e->args.push_back(std::move(a));
      } while (accept(","));
      if (!accept(")"))
        return error(tok().offset, "expected ',' or ')', found " + tok().describe());
    }
    if (static_cast<int>(e->args.size()) != *arity)
      return error(t.offset, squote(name) + " takes " + std::to_string(*arity) + " argument" +
                                 (*arity == 1 ? "" : "s") + ", given " +
                                 std::to_string(e->args.size()));
    if (e->builtin && name == "arange") {
      const Expr& a = *e->args[0];
      if (a.kind != Expr::Kind::number || !a.integral || a.number < 1 || a.number > 1e12)
        return error(t.offset, "arange(n) needs a positive integer literal n");
    }
    return finish(std::move(e), t.offset);
  }

  const JsonDoc& doc_;
  const Node& node_;
  std::string_view text_;
  const ForwardScope& scope_;
  const DefinedNames& defined_;
  StringLocator locator_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

}  // namespace

bool is_identifier(std::string_view s) {
  if (s.empty() || !ident_start(s[0])) return false;
  for (char c : s)
    if (!ident_char(c)) return false;
  return true;
}

bool is_forward_builtin(std::string_view name) {
  for (auto b : kBuiltins)
    if (b == name) return true;
  return false;
}

namespace {

// Adds the work of one expression to the program's (iteratively: expressions
// are at most kMaxExprHeight deep, but this need not rely on it).
void count_work(const Expr& root, ForwardProgram& program) {
  std::vector<const Expr*> stack{&root};
  while (!stack.empty()) {
    const Expr* e = stack.back();
    stack.pop_back();
    if (e->kind == Expr::Kind::call && !e->builtin)
      ++program.calls[e->name];
    else if (e->kind != Expr::Kind::name)
      ++program.ops;
    for (const auto& a : e->args) stack.push_back(a.get());
  }
}

}  // namespace

Expected<ForwardProgram> parse_forward(const JsonDoc& doc, const Node& forward,
                                       const ForwardScope& scope) {
  MLC_CHECK_OK(doc.expect_array(forward));
  if (forward.json->empty()) return doc.error(forward, "forward: no statements");
  ForwardProgram program;
  program.inputs = scope.inputs;
  DefinedNames defined;
  for (const std::string& in : scope.inputs) defined.add(in);
  for (size_t i = 0; i < forward.json->size(); ++i) {
    Node n = forward.element(i);
    MLC_TRY(std::string text, doc.as_string(n));
    if (!program.statements.empty() && program.statements.back().target.empty())
      return doc.error(n, "forward: statement after 'return'");
    StatementParser parser(doc, n, text, scope, defined);
    MLC_TRY(Statement st, parser.parse());
    if (!st.target.empty()) defined.add(st.target);
    count_work(*st.expr, program);
    program.statements.push_back(std::move(st));
  }
  return program;
}

}  // namespace mlc
