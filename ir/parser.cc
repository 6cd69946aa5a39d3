// Textual IR parser; see ir/parser.h for the grammar and the error contract.
//
// Structure: a Lexer that produces one token at a time (with its byte offset),
// and a Parser that reads a module with one token of lookahead. Nothing here
// recurses but a fusion op's body, which nests one level only, so input
// nesting cannot exhaust the stack; value and function
// names are looked up in hash tables, so parsing is linear in the input size.
#include "ir/parser.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/collectives.h"
#include "ir/diagnostics.h"
#include "ir/op_table.h"
#include "ir/source_file.h"
#include "ir/verifier.h"

namespace mlc {

namespace {

enum class Tok {
  End, Ident, ValueName, SymbolName, Int, Float, String,
  LParen, RParen, LBrace, RBrace, LBracket, RBracket, Comma, Colon, Equal, Arrow, Less, Greater,
};

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  // the token's bytes (names without their % / @ sigil)
  size_t offset = 0;      // byte offset of the token's first character
};

bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
std::string show_placements(const Placements& p) { return p.empty() ? "none" : placements_str(p); }

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
bool is_name_char(char c) { return is_ident_char(c) || c == '.'; }
bool is_symbol_char(char c) { return is_name_char(c) || c == '-'; }

// "'x'" for printable characters, "'\xNN'" for anything else.
std::string describe_char(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02X", u);
  return std::string("'") + buf + "'";
}

// A token's text for "found ..." messages: quoted, escaped, bounded (squote).
std::string describe(const Token& t, std::string_view full_text) {
  if (t.kind == Tok::End) return "end of input";
  std::string_view s = t.text;
  if (t.kind == Tok::ValueName || t.kind == Tok::SymbolName)
    s = full_text.substr(t.offset, t.text.size() + 1);  // with its sigil
  return squote(s);
}

// Positions are reported as byte offsets; the message gets its line:col only
// when an error is actually produced (one linear scan).
struct LexError {
  size_t offset;
  std::string message;
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  // Reads the next token into `out`; on failure returns false and sets `error`.
  bool next(Token& out, LexError& error) {
    skip_space_and_comments();
    out = Token{Tok::End, {}, pos_};
    if (pos_ >= text_.size()) return true;
    char c = text_[pos_];
    if (c == '%' || c == '@') return lex_name(out, error);
    if (c == '"') return lex_string(out, error);
    if (is_digit(c) || c == '-') return lex_number_or_arrow(out, error);
    if (is_ident_start(c)) {
      out = Token{Tok::Ident, take_while(pos_, is_ident_char), pos_};
      pos_ += out.text.size();
      return true;
    }
    static const std::string_view kPunct = "(){}[],:=<>";
    static const Tok kPunctTok[] = {Tok::LParen, Tok::RParen,   Tok::LBrace, Tok::RBrace,
                                    Tok::LBracket, Tok::RBracket, Tok::Comma,  Tok::Colon,
                                    Tok::Equal,  Tok::Less,     Tok::Greater};
    size_t p = kPunct.find(c);
    if (p != std::string_view::npos) {
      out = Token{kPunctTok[p], text_.substr(pos_, 1), pos_};
      ++pos_;
      return true;
    }
    error = {pos_, "unexpected character " + describe_char(c)};
    return false;
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else if (c == '/' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '/') {
        size_t nl = text_.find('\n', pos_);
        pos_ = nl == std::string_view::npos ? text_.size() : nl;
      } else {
        break;
      }
    }
  }

  std::string_view take_while(size_t from, bool (*pred)(char)) const {
    size_t end = from;
    while (end < text_.size() && pred(text_[end])) ++end;
    return text_.substr(from, end - from);
  }

  bool lex_name(Token& out, LexError& error) {
    bool value = text_[pos_] == '%';
    std::string_view name = take_while(pos_ + 1, value ? is_name_char : is_symbol_char);
    if (value && name.empty()) {
      error = {pos_, "expected a value name after '%'"};
      return false;
    }
    out = Token{value ? Tok::ValueName : Tok::SymbolName, name, pos_};
    pos_ += 1 + name.size();
    return true;
  }

  bool lex_string(Token& out, LexError& error) {
    size_t i = pos_ + 1;
    while (i < text_.size() && text_[i] != '"') {
      if (text_[i] == '\\') {
        if (i + 1 < text_.size() && text_[i + 1] != '"' && text_[i + 1] != '\\') {
          std::string c = describe_char(text_[i + 1]);
          error = {i, "unknown escape sequence '\\" + c.substr(1, c.size() - 2) + "' in string"};
          return false;
        }
        ++i;
      }
      ++i;
    }
    if (i >= text_.size()) {
      error = {pos_, "unterminated string"};
      return false;
    }
    out = Token{Tok::String, text_.substr(pos_, i + 1 - pos_), pos_};
    pos_ = i + 1;
    return true;
  }

  bool lex_number_or_arrow(Token& out, LexError& error) {
    size_t i = pos_;
    if (text_[i] == '-') {
      if (i + 1 < text_.size() && text_[i + 1] == '>') {
        out = Token{Tok::Arrow, text_.substr(i, 2), i};
        pos_ += 2;
        return true;
      }
      if (text_.substr(i + 1, 3) == "inf" && !(i + 4 < text_.size() && is_name_char(text_[i + 4]))) {
        out = Token{Tok::Float, text_.substr(i, 4), i};
        pos_ += 4;
        return true;
      }
      ++i;
      if (i >= text_.size() || !is_digit(text_[i])) {
        error = {pos_, "unexpected character '-'"};
        return false;
      }
    }
    bool is_float = false;
    i += take_while(i, is_digit).size();
    if (i < text_.size() && text_[i] == '.') {
      is_float = true;
      std::string_view frac = take_while(i + 1, is_digit);
      if (frac.empty()) return malformed_number(i + 1, error);
      i += 1 + frac.size();
    }
    if (i < text_.size() && (text_[i] == 'e' || text_[i] == 'E')) {
      is_float = true;
      ++i;
      if (i < text_.size() && (text_[i] == '+' || text_[i] == '-')) ++i;
      std::string_view exp = take_while(i, is_digit);
      if (exp.empty()) return malformed_number(i, error);
      i += exp.size();
    }
    if (i < text_.size() && is_name_char(text_[i])) return malformed_number(i, error);
    out = Token{is_float ? Tok::Float : Tok::Int, text_.substr(pos_, i - pos_), pos_};
    pos_ = i;
    return true;
  }

  bool malformed_number(size_t end, LexError& error) {
    size_t stop = end;
    while (stop < text_.size() && (is_symbol_char(text_[stop]) || text_[stop] == '+')) ++stop;
    Token t{Tok::Int, text_.substr(pos_, stop - pos_), pos_};
    error = {pos_, "malformed number " + describe(t, text_)};
    return false;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

std::string unescape(std::string_view quoted) {
  std::string out;
  out.reserve(quoted.size());
  for (size_t i = 1; i + 1 < quoted.size(); ++i) {
    if (quoted[i] == '\\') ++i;
    out += quoted[i];
  }
  return out;
}

std::string plural(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : text_(text), file_(file), lexer_(text) {}

  Expected<Module> parse() {
    Module m;
    Status st = parse_module_body(m);
    if (!st) return st.take_error();
    return m;
  }

 private:
  // ---- tokens and errors
  Error error_at(size_t offset, std::string_view message) const {
    return mlc::error_at(loc_of_offset(file_, text_, offset), message);
  }
  Error unexpected(std::string_view expected, std::string_view context = "") const {
    if (tok_.kind == Tok::End)
      return error_at(tok_.offset, "unexpected end of input, expected " + std::string(expected));
    std::string msg = "expected " + std::string(expected);
    if (!context.empty()) msg += " " + std::string(context);
    return error_at(tok_.offset, msg + ", found " + describe(tok_, text_));
  }
  Status advance() {
    LexError e;
    if (!lexer_.next(tok_, e)) return error_at(e.offset, e.message);
    return {};
  }
  bool at(Tok kind) const { return tok_.kind == kind; }
  bool at_keyword(std::string_view word) const { return at(Tok::Ident) && tok_.text == word; }
  // Consumes a token of `kind` (described as `what`, e.g. "')'") or fails.
  Status expect(Tok kind, std::string_view what, std::string_view context = "") {
    if (!at(kind)) return unexpected(what, context);
    return advance();
  }
  Status expect_keyword(std::string_view word, std::string_view context = "") {
    if (!at_keyword(word)) return unexpected("'" + std::string(word) + "'", context);
    return advance();
  }

  // ---- literals
  Expected<int64_t> parse_int(std::string_view what) {
    if (!at(Tok::Int)) return unexpected(what);
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(tok_.text.data(), tok_.text.data() + tok_.text.size(), v);
    if (ec != std::errc() || ptr != tok_.text.data() + tok_.text.size())
      return error_at(tok_.offset, "integer " + describe(tok_, text_) + " is out of range");
    MLC_CHECK_OK(advance());
    return v;
  }

  // A Float token, or the identifiers inf / nan.
  bool at_float() const { return at(Tok::Float) || at_keyword("inf") || at_keyword("nan"); }
  Expected<double> parse_float() {
    double v = 0;
    std::string_view s = tok_.text;
    if (s == "inf" || s == "-inf") {
      v = s[0] == '-' ? -std::numeric_limits<double>::infinity()
                      : std::numeric_limits<double>::infinity();
    } else if (s == "nan") {
      v = std::numeric_limits<double>::quiet_NaN();
    } else {
      auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || ptr != s.data() + s.size())
        return error_at(tok_.offset, "float " + describe(tok_, text_) + " is out of range");
    }
    MLC_CHECK_OK(advance());
    return v;
  }

  // ---- types
  Expected<TensorType> parse_type() {
    size_t start = tok_.offset;
    if (!at(Tok::Ident)) return unexpected("a type");
    auto dtype = parse_dtype(tok_.text);
    if (!dtype) return error_at(tok_.offset, "unknown dtype " + describe(tok_, text_));
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::LBracket, "'['", "after dtype"));
    Shape shape;
    if (!at(Tok::RBracket)) {
      for (;;) {
        if (shape.size() == kMaxRank)
          return error_at(tok_.offset, "more than " + std::to_string(kMaxRank) +
                                           " dims in a type (the limit for a tensor's rank)");
        MLC_TRY(int64_t d, parse_int("a dimension"));
        shape.push_back(d);
        if (!at(Tok::Comma)) break;
        MLC_CHECK_OK(advance());
      }
    }
    MLC_CHECK_OK(expect(Tok::RBracket, "']'", "after dimensions"));
    if (!checked_num_elements(shape))
      return error_at(start, "shape " + shape_to_string(shape) +
                                 " is negative or has more than 2^40 elements");
    return TensorType{*dtype, std::move(shape)};
  }

  // `<S(0),R,P>` after a type: one placement per mesh axis (checked against
  // the module's mesh by the verifier). Empty when the type has none.
  Expected<Placements> parse_placements() {
    Placements p;
    if (!at(Tok::Less)) return p;
    MLC_CHECK_OK(advance());
    for (;;) {
      if (at_keyword("R")) {
        p.push_back(Placement::R());
        MLC_CHECK_OK(advance());
      } else if (at_keyword("P")) {
        MLC_CHECK_OK(advance());
        if (at(Tok::LParen)) {
          MLC_CHECK_OK(advance());
          if (!at_keyword("max")) return unexpected("'max' (a partial maximum, 'P(max)')");
          MLC_CHECK_OK(advance());
          MLC_CHECK_OK(expect(Tok::RParen, "')'", "after 'P(max'"));
          p.push_back(Placement::Pmax());
        } else {
          p.push_back(Placement::P());
        }
      } else if (at_keyword("S")) {
        MLC_CHECK_OK(advance());
        MLC_CHECK_OK(expect(Tok::LParen, "'('", "after 'S'"));
        MLC_TRY(int64_t d, parse_int("a dim"));
        if (d < 0) return error_at(tok_.offset, "sharded dim " + std::to_string(d) + " is negative");
        MLC_CHECK_OK(expect(Tok::RParen, "')'", "after the sharded dim"));
        p.push_back(Placement::S(d));
      } else {
        return unexpected("a placement 'R', 'S(dim)', 'P' or 'P(max)'");
      }
      if (at(Tok::Greater)) break;
      MLC_CHECK_OK(expect(Tok::Comma, "',' or '>'", "in placements"));
    }
    MLC_CHECK_OK(advance());
    return p;
  }

  // The verifier's placement rules, located at `offset`: placements fit the
  // module's mesh and are on every value of a function or on none; a fusion
  // body's values have none.
  Status check_placed(size_t offset, const Value* v, const std::string& what) {
    bool has = !v->placements.empty();
    if (has && (in_body_ || mesh_.empty()))
      return error_at(offset, what + " has placements " + placements_str(v->placements) +
                                  (in_body_ ? " inside a fusion body" : " but the module has no mesh"));
    if (in_body_) return {};
    if (!sharded_) sharded_ = has;
    if (*sharded_ != has)
      return error_at(offset, what + (has ? " has" : " has no") + " placements, unlike the function's first value");
    if (std::string problem = has ? check_placements(v->placements, v->type.rank(), mesh_) : ""; !problem.empty())
      return error_at(offset, what + ": " + problem);
    return {};
  }

  // ---- attributes
  Expected<AttrValue> parse_attr_value() {
    if (at(Tok::Int)) {
      MLC_TRY(int64_t v, parse_int("an integer"));
      return AttrValue{v};
    }
    if (at_float()) {
      MLC_TRY(double v, parse_float());
      return AttrValue{v};
    }
    if (at_keyword("true") || at_keyword("false")) {
      bool b = tok_.text == "true";
      MLC_CHECK_OK(advance());
      return AttrValue{b};
    }
    if (at(Tok::String)) {
      std::string s = unescape(tok_.text);
      MLC_CHECK_OK(advance());
      return AttrValue{std::move(s)};
    }
    if (at(Tok::LBracket)) return parse_list();
    return unexpected("an attribute value");
  }

  // `[n, ...]`: Ints, or Floats if any element is a float. Lists do not nest.
  Expected<AttrValue> parse_list() {
    MLC_CHECK_OK(advance());  // '['
    std::vector<int64_t> ints;
    std::vector<double> floats;
    bool any_float = false;
    while (!at(Tok::RBracket)) {
      if (!ints.empty() || !floats.empty()) MLC_CHECK_OK(expect(Tok::Comma, "',' or ']'", "in list"));
      if (at(Tok::LBracket)) return error_at(tok_.offset, "attribute lists cannot be nested");
      if (at(Tok::Int)) {
        MLC_TRY(int64_t v, parse_int("an integer"));
        ints.push_back(v);
        floats.push_back(static_cast<double>(v));
      } else if (at_float()) {
        MLC_TRY(double v, parse_float());
        any_float = true;
        ints.push_back(0);
        floats.push_back(v);
      } else {
        return unexpected("a number", "in list");
      }
    }
    MLC_CHECK_OK(advance());  // ']'
    if (any_float) return AttrValue{std::move(floats)};
    return AttrValue{std::move(ints)};
  }

  // `{name = value, ...}`; the caller has seen the '{'.
  Status parse_attrs(Attrs& attrs) {
    MLC_CHECK_OK(advance());
    std::unordered_set<std::string_view> seen;
    while (!at(Tok::RBrace)) {
      if (!seen.empty()) MLC_CHECK_OK(expect(Tok::Comma, "',' or '}'", "in attributes"));
      if (!at(Tok::Ident)) return unexpected("an attribute name");
      Token name = tok_;
      if (!seen.insert(name.text).second)
        return error_at(name.offset, "duplicate attribute " + squote(name.text));
      MLC_CHECK_OK(advance());
      MLC_CHECK_OK(expect(Tok::Equal, "'='", "after attribute name"));
      MLC_TRY(AttrValue v, parse_attr_value());
      attrs.list().push_back({std::string(name.text), std::move(v)});
    }
    return advance();
  }

  // `meta {scope = "layers.0.attn", ledger = 3}`: the op's metadata (OpMeta).
  Status parse_meta(OpMeta& meta) {
    MLC_CHECK_OK(advance());  // 'meta'
    if (!at(Tok::LBrace)) return unexpected("'{'", "after 'meta'");
    size_t start = tok_.offset;
    Attrs fields;
    MLC_CHECK_OK(parse_attrs(fields));
    for (const NamedAttr& a : fields.list()) {
      if (a.name == "ledger") {
        const int64_t* id = std::get_if<int64_t>(&a.value);
        if (!id || *id < 0 || *id > std::numeric_limits<int>::max())
          return error_at(start, "op metadata 'ledger' must be a ledger entry id (an integer >= 0), got " +
                                     unquoted(attr_value_to_string(a.value)));
        meta.ledger = static_cast<int>(*id);
        continue;
      }
      if (a.name != "scope") return error_at(start, "unknown op metadata " + squote(a.name) + " (known: scope, ledger)");
      if (!std::holds_alternative<std::string>(a.value))
        return error_at(start, "op metadata 'scope' must be a string, got " + unquoted(attr_value_to_string(a.value)));
      meta.scope = std::get<std::string>(a.value);
      if (std::string problem = check_scope(meta.scope); !problem.empty()) return error_at(start, problem);
    }
    return {};
  }

  Expected<Loc> parse_loc() {
    MLC_CHECK_OK(advance());  // 'loc'
    MLC_CHECK_OK(expect(Tok::LParen, "'('", "after 'loc'"));
    if (!at(Tok::String)) return unexpected("a file name string", "in loc");
    Loc loc{unescape(tok_.text), 0, 0};
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::Colon, "':'", "after file name"));
    size_t line_offset = tok_.offset;
    MLC_TRY(int64_t line, parse_int("a line number"));
    MLC_CHECK_OK(expect(Tok::Colon, "':'", "after line number"));
    size_t col_offset = tok_.offset;
    MLC_TRY(int64_t col, parse_int("a column number"));
    if (line < 1 || line > std::numeric_limits<int>::max())
      return error_at(line_offset, "line number must be between 1 and 2^31-1");
    if (col < 0 || col > std::numeric_limits<int>::max())
      return error_at(col_offset, "column number must be between 0 and 2^31-1");
    loc.line = static_cast<int>(line);
    loc.col = static_cast<int>(col);
    MLC_CHECK_OK(expect(Tok::RParen, "')'", "after loc"));
    return loc;
  }

  // ---- functions
  using Scope = std::unordered_map<std::string_view, Value*>;

  Expected<Value*> parse_use(const Scope& scope) {
    if (!at(Tok::ValueName)) return unexpected("a value");
    auto it = scope.find(tok_.text);
    if (it == scope.end())
      return error_at(tok_.offset, "use of undefined value " + squote("%" + std::string(tok_.text)));
    MLC_CHECK_OK(advance());
    return it->second;
  }

  Status define(Scope& scope, const Token& name, Value* v) {
    if (!scope.emplace(name.text, v).second)
      return error_at(name.offset, "redefinition of value " + squote("%" + std::string(name.text)));
    return {};
  }

  Status parse_arg(Function& f, Scope& scope) {
    if (!at(Tok::ValueName)) return unexpected("an argument", "in argument list");
    Token name = tok_;
    if (!is_arg_name(name.text))
      return error_at(name.offset, "invalid argument name " + squote("%" + std::string(name.text)) +
                                       " (must be " + std::string(kArgNameRule) + ")");
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::Colon, "':'", "after argument name"));
    MLC_TRY(TensorType type, parse_type());
    MLC_TRY(Placements placements, parse_placements());
    MLC_CHECK_OK(expect(Tok::LBrace, "'{'", "before argument kind"));
    std::optional<ArgKind> kind;
    for (ArgKind k : kAllArgKinds)
      if (at_keyword(arg_kind_name(k))) kind = k;
    if (!kind) return unexpected("'input', 'param', 'frozen', 'state', 'step' or 'buffer'");
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::RBrace, "'}'", "after argument kind"));
    Value* arg = f.add_arg(std::string(name.text), std::move(type), *kind);
    arg->placements = std::move(placements);
    MLC_CHECK_OK(check_placed(name.offset, arg, "argument " + squote("%" + std::string(name.text))));
    return define(scope, name, arg);
  }

  // `{updates = %name}` after a result type: the index of argument %name, a
  // {param} or {state} argument of the result's type not updated already.
  Expected<int> parse_result_updates(const Function& f, const TensorType& result_type) {
    MLC_CHECK_OK(advance());  // '{'
    if (!at_keyword("updates")) return unexpected("'updates'", "in result attributes");
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::Equal, "'='", "after 'updates'"));
    if (!at(Tok::ValueName)) return unexpected("an argument name '%...'", "after 'updates ='");
    Token name = tok_;
    int index = -1;
    for (size_t i = 0; i < f.args.size(); ++i)
      if (f.args[i]->name == name.text) index = static_cast<int>(i);
    if (index < 0)
      return error_at(name.offset, "'updates' names " + squote("%" + std::string(name.text)) +
                                       ", which is not an argument of " + squote("@" + f.name));
    const std::string arg = squote("%" + std::string(name.text));
    ArgKind kind = f.arg_kinds[index];
    if (kind != ArgKind::param && kind != ArgKind::state && kind != ArgKind::buffer)
      return error_at(name.offset, "'updates' names " + arg + ", which is {" +
                                       std::string(arg_kind_name(kind)) +
                                       "}, not a {param}, {state} or {buffer} argument");
    if (f.args[index]->type != result_type)
      return error_at(name.offset, "result of type " + result_type.str() + " cannot update " + arg +
                                       " of type " + f.args[index]->type.str());
    for (int earlier : f.result_updates)
      if (earlier == index)
        return error_at(name.offset, arg + " is updated by an earlier result already");
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::RBrace, "'}'", "after the updated argument"));
    return index;
  }

  Status parse_signature(Function& f, Scope& scope, std::vector<TensorType>& result_types) {
    MLC_CHECK_OK(expect(Tok::LParen, "'('", "after function name"));
    while (!at(Tok::RParen)) {
      if (!f.args.empty()) MLC_CHECK_OK(expect(Tok::Comma, "',' or ')'", "in argument list"));
      MLC_CHECK_OK(parse_arg(f, scope));
    }
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::Arrow, "'->'", "after arguments"));
    MLC_CHECK_OK(expect(Tok::LParen, "'('", "before result types"));
    while (!at(Tok::RParen)) {
      if (!result_types.empty()) MLC_CHECK_OK(expect(Tok::Comma, "',' or ')'", "in result types"));
      MLC_TRY(TensorType t, parse_type());
      result_types.push_back(std::move(t));
      MLC_TRY(Placements placements, parse_placements());
      result_placements_.push_back(std::move(placements));
      int updates = -1;
      if (at(Tok::LBrace)) {
        MLC_TRY(updates, parse_result_updates(f, result_types.back()));
      }
      if (updates >= 0 && f.args[updates]->placements != result_placements_.back())
        return error_at(tok_.offset, "result #" + std::to_string(result_types.size() - 1) + " has placements " +
                                         show_placements(result_placements_.back()) + " but updates " + squote("%" + f.args[updates]->name) + " placed " + show_placements(f.args[updates]->placements));
      if (updates >= 0) {
        f.result_updates.resize(result_types.size(), -1);
        f.result_updates.back() = updates;
      }
    }
    if (!f.result_updates.empty()) f.result_updates.resize(result_types.size(), -1);
    return advance();
  }

  Status parse_op(Function& f, Scope& scope) {
    std::vector<Token> results{tok_};
    MLC_CHECK_OK(advance());
    while (at(Tok::Comma)) {
      MLC_CHECK_OK(advance());
      if (!at(Tok::ValueName)) return unexpected("a result name '%...'", "after ','");
      results.push_back(tok_);
      MLC_CHECK_OK(advance());
    }
    MLC_CHECK_OK(expect(Tok::Equal, "'='", "after result name"));
    if (!at(Tok::Ident)) return unexpected("an op name");
    Token name = tok_;
    auto code = find_op(name.text);
    if (!code) return error_at(name.offset, "unknown op " + describe(name, text_));
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::LParen, "'('", "after op name"));
    std::vector<Value*> operands;
    while (!at(Tok::RParen)) {
      if (!operands.empty() && !at(Tok::Comma)) return unexpected("')'", "after operands");
      if (!operands.empty()) MLC_CHECK_OK(advance());
      MLC_TRY(Value* v, parse_use(scope));
      operands.push_back(v);
    }
    MLC_CHECK_OK(advance());
    Attrs attrs;
    if (at(Tok::LBrace)) MLC_CHECK_OK(parse_attrs(attrs));
    MLC_CHECK_OK(expect(Tok::Colon, "':'", "before result type"));
    // One result: `: type`; several: `: (type, type, ...)`, one per name.
    std::vector<TensorType> declared;
    std::vector<Placements> placements;
    if (results.size() == 1) {
      MLC_TRY(TensorType t, parse_type());
      declared.push_back(std::move(t));
      MLC_TRY(Placements p, parse_placements());
      placements.push_back(std::move(p));
    } else {
      MLC_CHECK_OK(expect(Tok::LParen, "'('", "before the types of " + std::to_string(results.size()) + " results"));
      while (!at(Tok::RParen)) {
        if (!declared.empty()) MLC_CHECK_OK(expect(Tok::Comma, "',' or ')'", "in result types"));
        MLC_TRY(TensorType t, parse_type());
        declared.push_back(std::move(t));
        MLC_TRY(Placements p, parse_placements());
        placements.push_back(std::move(p));
      }
      if (declared.size() != results.size())
        return error_at(tok_.offset, std::to_string(results.size()) + " results named, but " +
                                         std::to_string(declared.size()) + " result types given");
      MLC_CHECK_OK(advance());
    }
    OpMeta meta;
    if (at_keyword("meta")) MLC_CHECK_OK(parse_meta(meta));
    Loc loc;
    if (at_keyword("loc")) {
      MLC_TRY(loc, parse_loc());
    }
    Status attrs_ok = complete_attrs(op_info(*code), attrs);
    if (!attrs_ok) return error_at(name.offset, attrs_ok.error().message);
    std::vector<const TensorType*> types;
    for (Value* v : operands) types.push_back(&v->type);
    auto inferred = infer_result_types(*code, types, attrs, declared);
    if (!inferred) return error_at(name.offset, inferred.error().message);
    std::shared_ptr<Function> body;
    if (*code == OpCode::Fusion) {
      if (in_body_) return error_at(name.offset, "a fusion body cannot hold a fusion op");
      if (!at_keyword("body")) return unexpected("'body'", "after a fusion op");
      MLC_TRY(body, parse_body(declared));
      Status fits = verify_fusion_body(*body, types, declared);
      if (!fits) return error_at(name.offset, "fusion: " + fits.error().message);
    } else if (at_keyword("body")) {
      return error_at(tok_.offset, "only fusion ops have a body, not " + unquoted(name.text));
    }
    if (*code == OpCode::Call) {
      if (in_body_) return error_at(name.offset, "a fusion body cannot hold a call");
      calls_.push_back({&f, nullptr, name.offset});
    }
    Op* op = f.insert_op(f.ops.size(), *code, std::move(operands), std::move(attrs),
                         std::move(declared), std::move(loc));
    op->meta = std::move(meta);
    op->body = std::move(body);
    if (*code == OpCode::Call) calls_.back().op = op;
    for (size_t k = 0; k < results.size(); ++k) {
      op->results[k]->placements = std::move(placements[k]);
      MLC_CHECK_OK(check_placed(results[k].offset, op->results[k], squote("%" + std::string(results[k].text))));
      MLC_CHECK_OK(define(scope, results[k], op->results[k]));
    }
    if (uses_mesh_axis(*code))
      if (std::string problem = check_collective(*op, mesh_); !problem.empty()) return error_at(name.offset, problem);
    return {};
  }

  // `body(%a: type, ...) { op* return ... }` after a fusion op: a function of
  // its own values (in_body_ keeps fusion ops out of it, so this nests once).
  Expected<std::shared_ptr<Function>> parse_body(const std::vector<TensorType>& result_types) {
    MLC_CHECK_OK(advance());  // 'body'
    auto body = std::make_shared<Function>("body");
    Scope scope;
    MLC_CHECK_OK(expect(Tok::LParen, "'('", "after 'body'"));
    while (!at(Tok::RParen)) {
      if (!body->args.empty()) MLC_CHECK_OK(expect(Tok::Comma, "',' or ')'", "in body arguments"));
      if (!at(Tok::ValueName)) return unexpected("a body argument", "in body arguments");
      Token name = tok_;
      if (!is_arg_name(name.text))
        return error_at(name.offset, "invalid argument name " + squote("%" + std::string(name.text)) + " (must be " +
                                         std::string(kArgNameRule) + ")");
      MLC_CHECK_OK(advance());
      MLC_CHECK_OK(expect(Tok::Colon, "':'", "after argument name"));
      MLC_TRY(TensorType type, parse_type());
      MLC_TRY(Placements placements, parse_placements());
      Value* arg = body->add_arg(std::string(name.text), std::move(type), ArgKind::input);
      arg->placements = std::move(placements);
      in_body_ = true;
      Status placed = check_placed(name.offset, arg, "body argument " + squote("%" + std::string(name.text)));
      in_body_ = false;
      MLC_CHECK_OK(placed);
      MLC_CHECK_OK(define(scope, name, arg));
    }
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect(Tok::LBrace, "'{'", "before the body"));
    in_body_ = true;
    Status ops = parse_ops(*body, scope, result_types);
    in_body_ = false;
    MLC_CHECK_OK(ops);
    return body;
  }

  // Ops up to and including `return ... }`.
  Status parse_ops(Function& f, Scope& scope, const std::vector<TensorType>& result_types) {
    for (;;) {
      if (at(Tok::ValueName)) {
        MLC_CHECK_OK(parse_op(f, scope));
      } else if (at_keyword("return")) {
        return parse_return(f, scope, result_types);
      } else if (at(Tok::RBrace)) {
        return error_at(tok_.offset, "missing 'return' at end of " +
                                         (in_body_ ? std::string("fusion body") : "function " + squote("@" + f.name)));
      } else {
        return unexpected("an op or 'return'");
      }
    }
  }

  Status parse_return(Function& f, const Scope& scope, const std::vector<TensorType>& types) {
    size_t offset = tok_.offset;
    MLC_CHECK_OK(advance());  // 'return'
    std::vector<Token> names;
    if (at(Tok::ValueName)) {
      for (;;) {
        names.push_back(tok_);
        MLC_TRY(Value* v, parse_use(scope));
        f.results.push_back(v);
        if (!at(Tok::Comma)) break;
        MLC_CHECK_OK(advance());
      }
    }
    if (f.results.size() != types.size())
      return error_at(offset, "return has " + plural(f.results.size(), "value") + ", but " +
                                  (in_body_ ? std::string("the fusion op") : "function " + squote("@" + f.name)) +
                                  " declares " + plural(types.size(), "result"));
    for (size_t i = 0; i < types.size(); ++i)
      if (f.results[i]->type != types[i])
        return error_at(names[i].offset, "return value " + squote("%" + std::string(names[i].text)) +
                                             " has type " + f.results[i]->type.str() + ", but result #" +
                                             std::to_string(i) + " of " +
                                             (in_body_ ? std::string("the fusion op") : squote("@" + f.name)) +
                                             " is declared " + types[i].str());
    for (size_t i = 0; !in_body_ && i < result_placements_.size() && i < f.results.size(); ++i)
      if (f.results[i]->placements != result_placements_[i])
        return error_at(names[i].offset, "return value " + squote("%" + std::string(names[i].text)) + " has placements " +
                                             show_placements(f.results[i]->placements) + ", but result #" +
                                             std::to_string(i) + " of " + squote("@" + f.name) + " is declared " +
                                             show_placements(result_placements_[i]));
    return expect(Tok::RBrace, "'}'", "after return");
  }

  Status parse_function(Module& m, std::unordered_set<std::string_view>& names) {
    MLC_CHECK_OK(advance());  // 'func'
    if (!at(Tok::SymbolName)) return unexpected("a function name '@...'");
    Token name = tok_;
    if (name.text.empty()) return error_at(name.offset, "expected a function name after '@'");
    if (!names.insert(name.text).second)
      return error_at(name.offset, "redefinition of function " + squote("@" + std::string(name.text)));
    MLC_CHECK_OK(advance());
    Function& f = m.add_function(std::string(name.text));
    Scope scope;
    std::vector<TensorType> result_types;
    result_placements_.clear();
    sharded_.reset();
    MLC_CHECK_OK(parse_signature(f, scope, result_types));
    MLC_CHECK_OK(expect(Tok::LBrace, "'{'", "before function body"));
    return parse_ops(f, scope, result_types);
  }

  Status parse_module_body(Module& m) {
    MLC_CHECK_OK(advance());
    MLC_CHECK_OK(expect_keyword("module"));
    if (!at(Tok::SymbolName)) return unexpected("a module name '@...'");
    m.name = std::string(tok_.text);
    MLC_CHECK_OK(advance());
    if (at_keyword("attributes")) {
      MLC_CHECK_OK(advance());
      size_t start = tok_.offset;
      if (!at(Tok::LBrace)) return unexpected("'{'", "after 'attributes'");
      MLC_CHECK_OK(parse_attrs(m.attrs));
      for (const NamedAttr& a : m.attrs.list())
        if (std::string problem = check_module_attr(a); !problem.empty())
          return error_at(start, problem);
      mesh_ = m.mesh();
    }
    MLC_CHECK_OK(expect(Tok::LBrace, "'{'", "after module name"));
    std::unordered_set<std::string_view> names;
    while (!at(Tok::RBrace)) {
      if (!at_keyword("func")) return unexpected("'func' or '}'");
      MLC_CHECK_OK(parse_function(m, names));
    }
    MLC_CHECK_OK(advance());
    if (!at(Tok::End)) return unexpected("end of input", "after module");
    // Calls name functions that may follow them: checked once all are read.
    for (const PendingCall& c : calls_)
      if (std::string problem = check_call(m, *c.caller, *c.op); !problem.empty())
        return error_at(c.offset, "call: " + problem);
    return {};
  }

  std::string_view text_;
  const std::string& file_;
  bool in_body_ = false;  // parsing a fusion body
  struct PendingCall {
    const Function* caller;
    const Op* op;
    size_t offset;  // of the op's name
  };
  std::vector<PendingCall> calls_;  // checked at the end of the module (ir/verifier.h check_call)
  std::vector<Placements> result_placements_;  // of the function being parsed, one per result
  Mesh mesh_;                                   // the module's
  std::optional<bool> sharded_;                 // whether the function's values have placements
  Lexer lexer_;
  Token tok_;
};

}  // namespace

Expected<Module> parse_module(std::string_view text, const std::string& filename) {
  return catch_out_of_memory([&] { return Parser(text, filename).parse(); },
                             filename + ": error: out of memory while parsing the IR");
}

Expected<Module> parse_module_file(const std::string& path) {
  MLC_TRY(SourceFile file, read_source_file(path, kMaxIrFileBytes, "IR file"));
  return parse_module(file.text, file.name);
}

}  // namespace mlc
