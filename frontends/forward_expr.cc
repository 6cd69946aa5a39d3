// parse_forward (declared in forward_expr.h): the lexer and parser of forward statements.
#include "frontends/forward_expr.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <unordered_set>

#include "frontends/forward_builtins.h"
#include "frontends/forward_loop.h"
#include "frontends/forward_work.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

// "a, b, c" ("none" if empty): the user's names, each bounded by unquoted, at
// most kMaxListed of them and no more once the list is kMaxListedBytes long,
// then "and N more".
std::string join(const std::vector<std::string>& names) {
  constexpr size_t kMaxListed = 20, kMaxListedBytes = 300;
  std::string s;
  size_t i = 0;
  for (; i < names.size() && i < kMaxListed && s.size() < kMaxListedBytes; ++i)
    s += (i ? ", " : "") + unquoted(names[i]);
  if (i < names.size()) s += " and " + std::to_string(names.size() - i) + " more";
  return s.empty() ? "none" : s;
}

// "a, b, c": every name (lists of built-ins, which are the answer to the mistake).
std::string join_all(const std::vector<std::string>& names) {
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// The names a statement can read: in definition order for messages, hashed for
// lookups; `numbers`: those that may hold a number or a list (a size).
struct DefinedNames {
  std::vector<std::string> order;
  std::unordered_set<std::string> set, numbers;

  void add(const std::string& name, bool maybe_number) {
    if (set.insert(name).second) order.push_back(name);
    if (maybe_number) numbers.insert(name);
    else numbers.erase(name);
  }
  bool has(std::string_view name) const { return set.count(std::string(name)) > 0; }
  bool maybe_number(std::string_view name) const { return numbers.count(std::string(name)) > 0; }
};

bool is_size_builtin(std::string_view name) {
  return name == "size" || name == "shape" || name == "dim" || name == "ndim" || name == "numel";
}

// Whether `e` is a tensor whatever the shapes (else it may be a number or a
// list: a size, a literal, a subscript of a size).
bool surely_tensor(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::param: return true;
    case Expr::Kind::call: return !e.builtin || !is_size_builtin(e.name);
    case Expr::Kind::name: return !e.maybe_number;
    case Expr::Kind::binary: return surely_tensor(*e.args[0]) || surely_tensor(*e.args[1]);
    case Expr::Kind::negate:
    case Expr::Kind::subscript: return surely_tensor(*e.args[0]);
    default: return false;
  }
}

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

// Names with a fixed meaning (besides the built-ins and dtypes).
bool is_reserved(std::string_view s) {
  return s == "True" || s == "False" || s == "None" || s == "inf" || s == "torch" || s == "F";
}

// Dtype names: the IR's (f32, bf16, ...) and torch's (float32, bfloat16, ...).
std::optional<DType> dtype_named(std::string_view s) {
  if (auto d = parse_dtype(s)) return d;
  static const std::pair<std::string_view, DType> kTorch[] = {
      {"float32", DType::f32}, {"float64", DType::f64}, {"bfloat16", DType::bf16},
      {"float16", DType::f16}, {"int32", DType::i32},   {"int64", DType::i64}};
  for (auto [n, d] : kTorch)
    if (n == s) return d;
  return std::nullopt;
}

struct Token {
  enum Kind { ident, number, punct, string, end } kind;
  size_t offset;
  std::string_view text;

  std::string describe() const {
    return kind == end ? "end of statement" : squote(text);
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
    } else if (tok().kind == Token::ident && is_punct(next(), "+") && is_punct(tokens_[pos_ + 2], "=") &&
               tokens_[pos_ + 2].offset == next().offset + 1) {  // outs += [h]: outs = outs + [h]
      const Token t = tok();
      const size_t plus = next().offset;
      MLC_CHECK_OK(check_target(t));
      if (!is_defined(t.text)) return error(t.offset, squote(std::string(t.text)) + " is not defined before '+='");
      st.target_loc = loc(t.offset);
      st.targets.emplace_back(t.text);
      st.groups.push_back(0);
      pos_ += 3;
      MLC_TRY(auto rhs, parse_expr(0));
      MLC_TRY(auto lhs, parse_name(t));
      MLC_TRY(st.expr, binary("+", plus, std::move(lhs), std::move(rhs)));
      if (tok().kind != Token::end)
        return error(tok().offset, "unexpected " + tok().describe() + " after the expression");
      return st;
    } else if (tok().kind == Token::ident && (is_punct(next(), "=") || is_punct(next(), ","))) {
      st.target_loc = loc(tok().offset);
      for (;;) {  // target [',' target]... [','] '='
        if (st.unpack && is_punct(tok(), "(")) {
          MLC_TRY(size_t n, parse_target_group(st));
          st.groups.push_back(n);
        } else {
          MLC_CHECK_OK(check_target(tok()));
          st.targets.emplace_back(tok().text);
          st.groups.push_back(0);
          ++pos_;
        }
        if (accept("=")) break;
        if (!accept(","))
          return error(tok().offset, "expected ',' or '=' after " + squote(st.targets.back()) + ", found " +
                                         tok().describe());
        st.unpack = true;
        if (accept("=")) break;
        if (tok().kind != Token::ident && !is_punct(tok(), "("))
          return error(tok().offset, "expected a name after ',', found " + tok().describe());
      }
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
  const Token& next() const { return tokens_[pos_ + 1]; }
  bool is_punct(const Token& t, std::string_view p) const {
    return t.kind == Token::punct && t.text == p;
  }

  // '(' name (',' name)+ ')' of an unpacking target: adds the names, returns their count.
  Expected<size_t> parse_target_group(Statement& st) {
    const size_t open = tok().offset;
    ++pos_;  // '('
    size_t n = 0;
    for (;;) {
      if (tok().kind != Token::ident)
        return error(tok().offset, "expected a name inside '( ... )', found " + tok().describe());
      MLC_CHECK_OK(check_target(tok()));
      st.targets.emplace_back(tok().text);
      ++pos_;
      ++n;
      if (accept(")")) break;
      if (!accept(","))
        return error(tok().offset, "expected ',' or ')' after " + squote(st.targets.back()) + ", found " +
                                       tok().describe());
    }
    if (n < 2) return error(open, "a parenthesized target needs two or more names: (h, c)");
    return n;
  }

  // The previous token ends a value, so '.' after it is an attribute, not a number.
  bool after_value() const {
    if (tokens_.empty()) return false;
    const Token& t = tokens_.back();
    return t.kind == Token::ident || t.kind == Token::number || t.text == ")" || t.text == "]";
  }

  Status lex() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      size_t start = i;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {  // a model-language statement may span lines
        ++i;
        continue;
      }
      bool after_dot = !tokens_.empty() && tokens_.back().text == ".";
      if (ident_start(c)) {
        while (i < text_.size() && ident_char(text_[i])) ++i;
        tokens_.push_back({Token::ident, start, text_.substr(start, i - start)});
      } else if (digit(c) && after_dot) {  // a path component: layers.0.attn
        while (i < text_.size() && digit(text_[i])) ++i;
        tokens_.push_back({Token::number, start, text_.substr(start, i - start)});
      } else if (digit(c) || (c == '.' && !after_value() && i + 1 < text_.size() && digit(text_[i + 1]))) {
        while (i < text_.size() && (digit(text_[i]) || text_[i] == '.')) ++i;
        if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
          ++i;
          if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
          while (i < text_.size() && digit(text_[i])) ++i;
        }
        if (i < text_.size() && ident_char(text_[i]))
          return error(i, "unexpected character " + squote(text_.substr(i, 1)) + " in a number");
        tokens_.push_back({Token::number, start, text_.substr(start, i - start)});
      } else if (c == '\'' || c == '"') {  // a string literal: reduction='sum'
        size_t close = text_.find(c, i + 1);
        if (close == std::string_view::npos) return error(start, "unterminated string");
        tokens_.push_back({Token::string, start, text_.substr(start + 1, close - start - 1)});
        i = close + 1;
      } else if (text_.substr(i, 3) == "...") {
        tokens_.push_back({Token::punct, start, text_.substr(start, 3)});
        i += 3;
      } else if (text_.substr(i, 2) == "**" || text_.substr(i, 2) == "//" || text_.substr(i, 2) == "<=" ||
                 text_.substr(i, 2) == ">=" || text_.substr(i, 2) == "==" ||
                 text_.substr(i, 2) == "!=") {
        tokens_.push_back({Token::punct, start, text_.substr(start, 2)});
        i += 2;
      } else if (std::string_view("=(),+-*/@<>[].:").find(c) != std::string_view::npos) {
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
    if (is_reserved(name) || dtype_named(name))
      return error(t.offset, "cannot assign to " + squote(name) + ": the name is reserved");
    return {};
  }

  bool accept(std::string_view punct) {
    if (is_punct(tok(), punct)) {
      ++pos_;
      return true;
    }
    return false;
  }

  Status expect(std::string_view punct) {
    if (accept(punct)) return {};
    return error(tok().offset, "expected '" + std::string(punct) + "', found " + tok().describe());
  }

  std::unique_ptr<Expr> make(Expr::Kind kind, size_t offset) {
    auto e = std::make_unique<Expr>();
    e->kind = kind;
    e->loc = loc(offset);
    return e;
  }

  Expected<std::unique_ptr<Expr>> finish(std::unique_ptr<Expr> e, size_t offset) {
    for (const auto& a : e->args)
      if (a) e->height = std::max(e->height, a->height + 1);
    if (e->height > kMaxExprHeight)
      return error(offset, "expression too large (more than " + std::to_string(kMaxExprHeight) +
                               " nested operations)");
    return e;
  }

  Status check_depth(int depth) const {
    if (depth >= kMaxExprDepth)
      return error(tok().offset, "expression nested too deeply (more than " +
                                     std::to_string(kMaxExprDepth) + " levels)");
    return {};
  }

  Expected<std::unique_ptr<Expr>> binary(std::string op, size_t off, std::unique_ptr<Expr> lhs,
                                         std::unique_ptr<Expr> rhs) {
    auto e = make(Expr::Kind::binary, off);
    e->op = std::move(op);
    e->args.push_back(std::move(lhs));
    e->args.push_back(std::move(rhs));
    return finish(std::move(e), off);
  }

  Expected<std::unique_ptr<Expr>> parse_expr(int depth) {
    MLC_TRY(auto lhs, parse_sum(depth));
    for (std::string_view op : {"<", ">", "<=", ">=", "==", "!="})
      if (is_punct(tok(), op)) {
        size_t off = tok().offset;
        ++pos_;
        MLC_TRY(auto rhs, parse_sum(depth));
        return binary(std::string(op), off, std::move(lhs), std::move(rhs));
      }
    return lhs;
  }

  Expected<std::unique_ptr<Expr>> parse_sum(int depth) {
    MLC_TRY(auto lhs, parse_term(depth));
    while (is_punct(tok(), "+") || is_punct(tok(), "-")) {
      Token t = tok();
      ++pos_;
      MLC_TRY(auto rhs, parse_term(depth));
      MLC_TRY(lhs, binary(std::string(t.text), t.offset, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }

  Expected<std::unique_ptr<Expr>> parse_term(int depth) {
    MLC_TRY(auto lhs, parse_unary(depth));
    while (is_punct(tok(), "*") || is_punct(tok(), "/") || is_punct(tok(), "//") || is_punct(tok(), "@")) {
      Token t = tok();
      ++pos_;
      MLC_TRY(auto rhs, parse_unary(depth));
      MLC_TRY(lhs, binary(std::string(t.text), t.offset, std::move(lhs), std::move(rhs)));
    }
    return lhs;
  }

  Expected<std::unique_ptr<Expr>> parse_unary(int depth) {
    MLC_CHECK_OK(check_depth(depth));
    if (is_punct(tok(), "-")) {
      size_t off = tok().offset;
      ++pos_;
      auto e = make(Expr::Kind::negate, off);
      MLC_TRY(auto x, parse_unary(depth + 1));
      e->args.push_back(std::move(x));
      return finish(std::move(e), off);
    }
    MLC_TRY(auto base, parse_postfix(depth));
    if (is_punct(tok(), "**")) {
      size_t off = tok().offset;
      ++pos_;
      MLC_TRY(auto exponent, parse_unary(depth + 1));
      return binary("**", off, std::move(base), std::move(exponent));
    }
    return base;
  }

  Expected<std::unique_ptr<Expr>> parse_postfix(int depth) {
    MLC_TRY(auto e, parse_primary(depth));
    for (;;) {
      if (is_punct(tok(), ".") && next().kind == Token::ident) {
        Token name = next();
        pos_ += 2;
        bool called = is_punct(tok(), "(");
        unsigned form = called ? kMethod : kAttribute;
        const BuiltinSpec* spec = find_builtin(name.text, form);
        if (!spec) {
          const BuiltinSpec* other = find_builtin(name.text, called ? kAttribute : kMethod);
          if (other)
            return error(name.offset, called ? squote(name.text) + " is an attribute; write ." +
                                                   std::string(name.text) + " without ()"
                                             : squote(name.text) + " is a method; call it: ." +
                                                   std::string(name.text) + "(...)");
          return error(name.offset, "unknown " + std::string(called ? "method" : "attribute") +
                                        " " + squote(name.text) + " (" +
                                        (called ? "methods: " + join_all(builtin_names(kMethod))
                                                : "attributes: " + join_all(builtin_names(kAttribute)) +
                                                      "; parameters are named through their layer, e.g. fc.weight") +
                                        ")");
        }
        std::vector<Arg> args;
        args.push_back({"", std::move(e), name.offset});
        if (called) {
          MLC_TRY(args, parse_args(std::move(args), depth));
        }
        MLC_TRY(e, bind_builtin(*spec, name, std::move(args), true));
      } else if (is_punct(tok(), "[")) {
        MLC_TRY(e, parse_subscript(std::move(e), depth));
      } else {
        return e;
      }
    }
  }

  Expected<std::unique_ptr<Expr>> parse_subscript(std::unique_ptr<Expr> base, int depth) {
    MLC_CHECK_OK(check_depth(depth));
    size_t off = tok().offset;
    ++pos_;  // '['
    auto e = make(Expr::Kind::subscript, off);
    e->args.push_back(std::move(base));
    auto add = [&](std::unique_ptr<Expr> x) {
      e->args.push_back(std::move(x));
      return static_cast<int>(e->args.size() - 1);
    };
    auto ends_part = [&] { return is_punct(tok(), ":") || is_punct(tok(), ",") || is_punct(tok(), "]"); };
    do {
      Expr::Sub s;
      s.loc = loc(tok().offset);
      if (accept("...")) {
        s.kind = Expr::Sub::Kind::ellipsis;
      } else if (tok().kind == Token::ident && tok().text == "None" && !is_defined("None")) {
        ++pos_;
        s.kind = Expr::Sub::Kind::newaxis;
      } else {
        if (!ends_part()) {
          MLC_TRY(auto x, parse_expr(depth + 1));
          s.start = add(std::move(x));
        }
        if (accept(":")) {
          s.kind = Expr::Sub::Kind::slice;
          if (!ends_part()) {
            MLC_TRY(auto x, parse_expr(depth + 1));
            s.stop = add(std::move(x));
          }
          if (accept(":") && !ends_part()) {
            MLC_TRY(auto x, parse_expr(depth + 1));
            s.step = add(std::move(x));
          }
        } else if (s.start < 0) {
          return error(tok().offset, "expected an index, a slice, '...' or None, found " +
                                         tok().describe());
        }
      }
      e->subs.push_back(s);
    } while (accept(","));
    if (!accept("]")) return error(tok().offset, "expected ',' or ']', found " + tok().describe());
    return finish(std::move(e), off);
  }

  // A list: [a, b] or (a, b, ...) after its first element.
  Expected<std::unique_ptr<Expr>> parse_list_rest(std::unique_ptr<Expr> e, std::string_view close,
                                                  int depth) {
    while (!is_punct(tok(), close)) {
      MLC_TRY(auto x, parse_expr(depth + 1));
      e->args.push_back(std::move(x));
      if (!accept(",")) break;
    }
    if (!accept(close))
      return error(tok().offset, "expected ',' or '" + std::string(close) + "', found " +
                                     tok().describe());
    return e;
  }

  Expected<std::unique_ptr<Expr>> parse_primary(int depth) {
    Token t = tok();
    if (t.kind == Token::number) {
      ++pos_;
      auto e = make(Expr::Kind::number, t.offset);
      std::string s(t.text);
      e->number = std::strtod(s.c_str(), nullptr);
      e->integral = s.find_first_of(".eE") == std::string::npos;
      if (!std::isfinite(e->number)) return error(t.offset, "number " + unquoted(s) + " is out of range");
      return e;
    }
    if (t.kind == Token::string) {
      ++pos_;
      auto e = make(Expr::Kind::string, t.offset);
      e->name = std::string(t.text);
      return e;
    }
    if (is_punct(t, "(")) {
      MLC_CHECK_OK(check_depth(depth));
      ++pos_;
      MLC_TRY(auto e, parse_expr(depth + 1));
      if (accept(",")) {  // a tuple
        auto list = make(Expr::Kind::list, t.offset);
        list->args.push_back(std::move(e));
        MLC_TRY(list, parse_list_rest(std::move(list), ")", depth));
        return finish(std::move(list), t.offset);
      }
      if (!accept(")")) return error(tok().offset, "expected ')', found " + tok().describe());
      return e;
    }
    if (is_punct(t, "[")) {
      MLC_CHECK_OK(check_depth(depth));
      ++pos_;
      auto list = make(Expr::Kind::list, t.offset);
      MLC_TRY(list, parse_list_rest(std::move(list), "]", depth));
      return finish(std::move(list), t.offset);
    }
    if (t.kind != Token::ident)
      return error(t.offset, "expected an expression, found " + t.describe());
    ++pos_;
    std::string name(t.text);
    bool defined = is_defined(name);
    if (!defined && !is_layer(name) && (name == "torch" || name == "F") && is_punct(tok(), ".") &&
        next().kind == Token::ident) {  // torch.f(...), F.f(...), torch.bfloat16
      Token inner = next();
      pos_ += 2;
      if (!is_punct(tok(), "(")) {
        if (auto d = dtype_named(inner.text)) return dtype_expr(*d, inner.offset);
        return error(inner.offset, "unknown name " + squote(name + "." + std::string(inner.text)));
      }
      return parse_builtin_call(inner, depth, true);
    }
    if (is_punct(tok(), "(")) return parse_call(t, depth);
    if (!defined && !is_layer(name) && name == "self" && is_punct(tok(), ".") && next().kind == Token::ident &&
        next().text == "training") {  // self.training: the forward's mode
      pos_ += 2;
      auto e = make(Expr::Kind::name, t.offset);
      e->name = std::string(kSelfTraining);
      e->maybe_number = true;
      return finish(std::move(e), t.offset);
    }
    if (!defined && is_layer(name) && is_punct(tok(), ".")) return parse_param(t);
    return parse_name(t);
  }

  std::unique_ptr<Expr> dtype_expr(DType d, size_t offset) {
    auto e = make(Expr::Kind::dtype, offset);
    e->dtype = d;
    return e;
  }

  // layer.a.b...: a parameter's path below the container.
  Expected<std::unique_ptr<Expr>> parse_param(const Token& head) {
    std::string path(head.text);
    PathInfo info = scope_.resolve_path(path);
    while (is_punct(tok(), ".") && (next().kind == Token::ident || next().kind == Token::number)) {
      Token comp = next();
      std::string candidate = path + "." + std::string(comp.text);
      PathInfo ci = scope_.resolve_path(candidate);
      if (ci.kind == PathInfo::Kind::none)
        return error(comp.offset, squote(path) + " has no parameter or module " +
                                      squote(comp.text) + " (it has: " + join(info.members) + ")");
      pos_ += 2;
      path = candidate;
      info = std::move(ci);
      if (info.kind == PathInfo::Kind::param) {
        auto e = make(Expr::Kind::param, head.offset);
        e->tied = !info.tied_to.empty();
        e->name = e->tied ? info.tied_to : path;
        return e;
      }
    }
    return error(head.offset, squote(path) + " is a module, not a value; " +
                                  (info.members.empty() ? std::string("it has no parameters")
                                                        : "name one of its parameters (it has: " +
                                                              join(info.members) + ")"));
  }

  Expected<std::unique_ptr<Expr>> parse_name(const Token& t) {
    std::string name(t.text);
    if (is_defined(name)) {
      auto e = make(Expr::Kind::name, t.offset);
      e->name = name;
      e->maybe_number = defined_.maybe_number(name);
      return e;
    }
    if (name == "True" || name == "False") {
      auto e = make(Expr::Kind::number, t.offset);
      e->number = name == "True";
      e->integral = e->boolean = true;
      return e;
    }
    if (name == "inf") {
      auto e = make(Expr::Kind::number, t.offset);
      e->number = std::numeric_limits<double>::infinity();
      return e;
    }
    if (name == "None") return make(Expr::Kind::none, t.offset);
    if (auto d = dtype_named(name)) return dtype_expr(*d, t.offset);
    if (is_layer(name))
      return error(t.offset, squote(name) + " is a layer; call it: " + unquoted(name) + "(...)");
    if (is_forward_builtin(name))
      return error(t.offset, squote(name) + " is a built-in function; call it: " + name + "(...)");
    if (name == "batch")
      return error(t.offset, "'batch' is not a value; the symbol \"batch\" is only allowed as a "
                             "dim of an input's shape");
    return error(t.offset, "unknown name " + squote(name) + " (defined here: " + join(defined_.order) + ")");
  }

  struct Arg {
    std::string keyword;  // "" if positional
    std::unique_ptr<Expr> value;
    size_t offset;
  };

  // '(' [arg (',' arg)*] ')', appended to `args`.
  Expected<std::vector<Arg>> parse_args(std::vector<Arg> args, int depth) {
    MLC_CHECK_OK(check_depth(depth));
    ++pos_;  // '('
    bool keywords = false;
    while (!is_punct(tok(), ")")) {
      Arg a;
      a.offset = tok().offset;
      if (tok().kind == Token::ident && is_punct(next(), "=")) {
        a.keyword = std::string(tok().text);
        pos_ += 2;
        keywords = true;
      } else if (keywords) {
        return error(tok().offset, "positional argument after a keyword argument");
      }
      MLC_TRY(a.value, parse_expr(depth + 1));
      args.push_back(std::move(a));
      if (!accept(",")) break;
    }
    if (!accept(")")) return error(tok().offset, "expected ',' or ')', found " + tok().describe());
    return args;
  }

  // Binds `args` to the parameters of `spec` (see forward_builtins.h).
  Expected<std::unique_ptr<Expr>> bind_builtin(const BuiltinSpec& spec, const Token& callee,
                                               std::vector<Arg> args, bool method) {
    std::string name(spec.name);
    std::string shown = method ? "." + name + "()" : squote(name);
    size_t n = spec.params.size();
    auto e = make(Expr::Kind::call, callee.offset);
    e->name = name;
    e->builtin = true;
    e->args.resize(n);
    size_t given = std::count_if(args.begin(), args.end(), [](const Arg& x) { return x.keyword.empty(); });
    size_t positional = 0;
    auto var = static_cast<size_t>(spec.variadic);
    for (Arg& a : args) {
      if (!a.keyword.empty()) continue;
      size_t slot = positional++;
      if (spec.variadic >= 0 && slot >= var) {
        std::unique_ptr<Expr>& rest = e->args[var];
        if (given == var + 1 && a.value->kind == Expr::Kind::list) {
          rest = std::move(a.value);  // x.view((B, T, C))
          continue;
        }
        if (!rest) rest = make(Expr::Kind::list, a.offset);
        rest->args.push_back(std::move(a.value));
        continue;
      }
      if (slot >= n) {
        size_t hidden = method ? 1 : 0;
        return error(a.offset, shown + " takes at most " + std::to_string(n - hidden) + " argument" +
                                   (n - hidden == 1 ? "" : "s") + ", given " + std::to_string(given - hidden));
      }
      e->args[slot] = std::move(a.value);
    }
    for (Arg& a : args) {
      if (a.keyword.empty()) continue;
      auto it = std::find(spec.params.begin() + (method ? 1 : 0), spec.params.end(), a.keyword);
      if (it == spec.params.end()) {
        std::vector<std::string> names(spec.params.begin() + (method ? 1 : 0), spec.params.end());
        return error(a.offset, shown + " has no argument " + squote(a.keyword) + " (arguments: " +
                                   join(names) + ")");
      }
      auto& slot = e->args[it - spec.params.begin()];
      if (slot) return error(a.offset, shown + ": argument " + squote(a.keyword) + " given twice");
      slot = std::move(a.value);
    }
    for (int i = 0; i < spec.required; ++i)
      if (!e->args[i])
        return error(callee.offset, shown + " needs the argument " + squote(spec.params[i]));
    if (spec.variadic >= 0 && e->args[var]) {  // the list of the remaining arguments
      MLC_TRY(e->args[var], finish(std::move(e->args[var]), callee.offset));
    }
    return finish(std::move(e), callee.offset);
  }

  // `qualified`: called as torch.f(...) or F.f(...).
  Expected<std::unique_ptr<Expr>> parse_builtin_call(const Token& t, int depth, bool qualified = false) {
    const BuiltinSpec* spec = find_builtin(t.text, qualified ? kFunction | kQualified : kFunction);
    if (!spec)
      return error(t.offset, "unknown layer or function " + squote(t.text) + " (built-ins: " +
                                 join_all(builtin_function_names()) + ")");
    MLC_TRY(auto args, parse_args({}, depth));
    return bind_builtin(*spec, t, std::move(args), false);
  }

  Expected<std::unique_ptr<Expr>> parse_call(const Token& t, int depth) {
    std::string name(t.text);
    std::optional<int> arity = scope_.layer_arity(name);
    if (!arity) {
      if (is_defined(name)) return error(t.offset, squote(name) + " is a value, not a layer");
      return parse_builtin_call(t, depth);
    }
    MLC_TRY(auto args, parse_args({}, depth));
    if (const BuiltinSpec* layer_spec = scope_.layer_spec ? scope_.layer_spec(name) : nullptr) {
      BuiltinSpec spec = *layer_spec;  // messages name the layer: 'attn' needs the argument 'value'
      spec.name = name;
      MLC_TRY(auto e, bind_builtin(spec, t, std::move(args), false));
      e->builtin = false;
      e->keywords = true;
      return e;
    }
    auto e = make(Expr::Kind::call, t.offset);
    e->name = name;
    for (Arg& a : args) {
      if (!a.keyword.empty())
        return error(a.offset, "layer " + squote(name) + " takes positional arguments only");
      e->args.push_back(std::move(a.value));
    }
    if (static_cast<int>(e->args.size()) != *arity)
      return error(t.offset, squote(name) + " takes " + std::to_string(*arity) + " argument" +
                                 (*arity == 1 ? "" : "s") + ", given " +
                                 std::to_string(e->args.size()));
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

bool is_forward_builtin(std::string_view name) { return find_builtin(name, kFunction) != nullptr; }

Expected<ForwardProgram> parse_forward(const JsonDoc& doc, const Node& forward,
                                       const ForwardScope& scope) {
  MLC_CHECK_OK(doc.expect_array(forward));
  if (forward.json->empty()) return doc.error(forward, "forward: no statements");
  ForwardProgram program;
  program.inputs = scope.inputs;
  DefinedNames defined;
  for (const std::string& in : scope.inputs) defined.add(in, false);
  for (size_t i = 0; i < forward.json->size(); ++i) {
    Node n = forward.element(i);
    MLC_TRY(std::string text, doc.as_string(n));
    if (!program.statements.empty() && program.statements.back().is_return())
      return doc.error(n, "forward: statement after 'return'");
    auto parse_one = [&](const std::string& statement, ForwardProgram& work) -> Expected<Statement> {
      StatementParser parser(doc, n, statement, scope, defined);
      MLC_TRY(Statement st, parser.parse());
      const bool maybe_number = st.unpack || !surely_tensor(*st.expr);
      for (const std::string& name : st.targets) defined.add(name, maybe_number);
      count_work(*st.expr, work);
      return st;
    };
    if (!is_loop_statement(text)) {
      MLC_TRY(Statement st, parse_one(text, program));
      program.statements.push_back(std::move(st));
      continue;
    }
    MLC_TRY(Statement loop, parse_loop(doc, n, text, parse_one, program));
    program.statements.push_back(std::move(loop));
  }
  if (program.statements.back().is_loop())
    return doc.error(forward.element(forward.json->size() - 1), "forward: the last statement is a loop; return a value after it");
  return program;
}

}  // namespace mlc
