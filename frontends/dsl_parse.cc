#include "frontends/dsl_parse.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <unordered_map>

#include "frontends/dsl_lexer.h"
#include "frontends/dsl_signatures.h"
#include "frontends/module_tree.h"
#include "ir/diagnostics.h"
#include "ir/dtype.h"
#include "ir/dtype_names.h"

namespace mlc {

namespace {

constexpr size_t kNone = std::string::npos;

// A value read from the text, with where it came from; becomes a Json (and its
// JsonLocations entries) once the whole file is read.
struct PNode {
  enum class Kind { null, boolean, integer, real, string, array, object } kind = Kind::null;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
  size_t at = 0;            // first byte of the value
  size_t key_at = kNone;    // first byte of its key
  size_t bare_end = kNone;  // a string written without quotes ends here
  bool call = false;        // an object written as Type(...) or repeat(...)
  bool block_layers = false;  // the "layers" a container's block collects
  struct Member;
  std::vector<Member> children;  // members, or elements ("" keys)

  const PNode* find(std::string_view key) const;
};

struct PNode::Member {
  std::string first;
  PNode second;
  Member(std::string k, PNode v) : first(std::move(k)), second(std::move(v)) {}
};

const PNode* PNode::find(std::string_view key) const {
  for (const auto& [k, v] : children)
    if (k == key) return &v;
  return nullptr;
}

// Where a line is: the file, a module's block, any other object, the
// blocks of a custom op (`custom_ops:`, one op `name(x):`, its `backward:`),
// whose `forward:` and gradients are statements, and train's `phases:` and
// one phase's block (`D:`), whose `loss:` is statements.
enum class Ctx { top, module, object, custom_ops, custom_op, backward, phases, phase };

struct Key {
  std::string name;
  size_t at = 0;
  bool quoted = false;  // written as a "string"
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& path)
      : text_(text), path_(path), lex_(text, path), cur_(pull()) {}

  Expected<PNode> file() {
    PNode root = make(PNode::Kind::object, 0);
    while (tok().kind != DslToken::end) {
      if (tok().kind == DslToken::newline) {
        advance();
        continue;
      }
      if (tok().kind == DslToken::indent) return error(tok(), "unexpected indent");
      MLC_CHECK_OK(line(root, Ctx::top, 1));
    }
    if (lex_error_) return *lex_error_;
    return root;
  }

 private:
  // The tokens, pulled from the lexer as the parser goes: the current one and
  // at most one more. A token the lexer cannot read ends the file, and its
  // error is the one the parse reports (error() and file()).
  DslToken pull() {
    if (lex_error_) return DslToken{DslToken::end, text_.size(), text_.size(), {}};
    Expected<DslToken> t = lex_.next();
    if (t) return *t;
    lex_error_ = t.take_error();
    return DslToken{DslToken::end, text_.size(), text_.size(), {}};
  }
  const DslToken& tok() const { return cur_; }
  const DslToken& next() {
    if (!ahead_) ahead_ = pull();
    return *ahead_;
  }
  void advance() {
    cur_ = ahead_ ? *ahead_ : pull();
    ahead_.reset();
  }
  bool accept(std::string_view p) {
    if (!tok().is(p)) return false;
    advance();
    return true;
  }

  Error error(size_t offset, const std::string& message) const {
    if (lex_error_) return *lex_error_;
    return error_at(loc_of_offset(path_, text_, offset), message);
  }
  Error error(const DslToken& t, const std::string& message) const {
    return error(t.begin, message);
  }

  // After an element of the bracket opened at `open_at`, neither ',' nor its
  // closing bracket: says where the bracket opened when that was on an
  // earlier line (it is most likely never closed; the lexer finds that only
  // at the end of the file, which the parse does not read).
  Error expected_comma_or(char close, size_t open_at) const {
    std::string message = "expected ',' or '" + std::string(1, close) + "', found " + tok().describe();
    Loc open = loc_of_offset(path_, text_, open_at);
    if (loc_of_offset(path_, text_, tok().begin).line > open.line)
      message += " (inside the " + squote(text_.substr(open_at, 1)) + " at line " +
                 std::to_string(open.line) + ", column " + std::to_string(open.col) + ")";
    return error(tok(), message);
  }

  Status count(size_t at, int64_t n = 1) {
    values_ += n;
    if (values_ > kMaxJsonValues)
      return error(at, "more than " + std::to_string(kMaxJsonValues) +
                           " values (the limit for a model file)");
    return {};
  }
  static PNode make(PNode::Kind kind, size_t at) {
    PNode p;
    p.kind = kind;
    p.at = at;
    return p;
  }
  Status check_depth(int depth, size_t at) const {
    if (depth > kMaxJsonDepth)
      return error(at, "nesting deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    return {};
  }

  static void add(PNode& obj, std::string key, size_t key_at, PNode value) {
    value.key_at = key_at;
    obj.children.emplace_back(std::move(key), std::move(value));
  }

  Status end_of_line() {
    if (tok().kind == DslToken::newline) {
      advance();
      return {};
    }
    if (tok().kind == DslToken::end) return {};
    return error(tok(), "expected the end of the line, found " + tok().describe());
  }

  Expected<Key> key() {
    const DslToken t = tok();
    if (t.kind == DslToken::word) {
      advance();
      return Key{std::string(t.text), t.begin};
    }
    if (t.kind == DslToken::number && t.text.find_first_not_of("0123456789") == kNone) {
      advance();
      return Key{std::string(t.text), t.begin};
    }
    if (t.kind == DslToken::string) {
      MLC_TRY(PNode s, string(t));
      advance();
      return Key{s.s, t.begin, true};
    }
    return error(t, "expected a name, found " + t.describe());
  }

  // One line of a block (or of the file): `key = value`, `key: value`,
  // `key:` + block, `name(inputs):` + block (a container), `pass`.
  Status line(PNode& obj, Ctx ctx, int depth) {
    if (ctx != Ctx::top && tok().is_word("pass") && next().kind == DslToken::newline) {
      advance();
      advance();
      return {};
    }
    MLC_TRY(Key k, key());
    MLC_CHECK_OK(count(k.at));
    bool modular = ctx == Ctx::module || (ctx == Ctx::top && k.name == "model");
    if (tok().is("(") && modular) return container_block(obj, ctx, k, depth);
    if (tok().is("(") && ctx == Ctx::custom_ops) return custom_op_block(obj, k, depth);
    if (tok().is(":") && next().kind == DslToken::newline) {
      if (modular && !(ctx == Ctx::module && k.name == "forward" && !k.quoted))
        return container_block(obj, ctx, k, depth);
      advance();
      bool statement_block = ((ctx == Ctx::module || ctx == Ctx::custom_op) && k.name == "forward" && !k.quoted) ||
                             (ctx == Ctx::phase && k.name == "loss" && !k.quoted);
      if (statement_block || ctx == Ctx::backward) return statements(obj, k, depth);
      Ctx inner = ctx == Ctx::top && k.name == "custom_ops"       ? Ctx::custom_ops
                  : ctx == Ctx::custom_ops                        ? Ctx::custom_op
                  : ctx == Ctx::custom_op && k.name == "backward" ? Ctx::backward
                  : ctx == Ctx::object && k.name == "phases"      ? Ctx::phases
                  : ctx == Ctx::phases                            ? Ctx::phase
                                                                  : Ctx::object;
      PNode o = make(PNode::Kind::object, k.at);
      MLC_CHECK_OK(count(k.at));
      MLC_CHECK_OK(check_depth(depth + 1, k.at));
      MLC_CHECK_OK(block(o, inner, depth + 1, k.name));
      add(obj, k.name, k.at, std::move(o));
      return {};
    }
    if (!tok().is("=") && !tok().is(":"))
      return error(tok(), "expected '=' or ':' after " + squote(k.name) + ", found " +
                              tok().describe());
    advance();
    MLC_TRY(bool took_block, member(obj, ctx, k, depth));
    if (took_block) return {};  // the block's end ended the line
    while (accept(";")) {
      if (tok().kind == DslToken::newline || tok().kind == DslToken::end) break;
      MLC_TRY(Key k2, key());
      MLC_CHECK_OK(count(k2.at));
      if (!accept("=") && !accept(":"))
        return error(tok(), "expected '=' or ':' after " + squote(k2.name) + ", found " +
                                tok().describe());
      MLC_TRY(bool block_after_semicolon, member(obj, ctx, k2, depth));
      if (block_after_semicolon) return error(k2.at, "a block cannot follow ';'");
    }
    return end_of_line();
  }

  // The value of `key = value`: in a module a call is a layer, anything else a
  // field of the container; `name = repeat(N):` takes the block below (then
  // it returns true).
  Expected<bool> member(PNode& obj, Ctx ctx, const Key& k, int depth) {
    bool modular = ctx == Ctx::module || (ctx == Ctx::top && k.name == "model");
    MLC_TRY(PNode v, value(depth + (modular && ctx == Ctx::module ? 2 : 1), modular));
    bool took_block = false;
    if (v.call && v.find("repeat") && tok().is(":") && next().kind == DslToken::newline) {
      took_block = true;
      if (v.find("block"))
        return error(tok(), "repeat(N, block) with a block below too; give one of them");
      advance();
      PNode c = make(PNode::Kind::object, k.at);
      MLC_CHECK_OK(count(k.at));
      MLC_CHECK_OK(container(c, nullptr, depth + (ctx == Ctx::module ? 3 : 2), k.name));
      add(v, "block", kNone, std::move(c));
      MLC_CHECK_OK(count(k.at));
    }
    if (ctx == Ctx::module && v.call) {
      add(layers(obj), k.name, k.at, std::move(v));
    } else {
      add(obj, k.name, k.at, std::move(v));
    }
    return took_block;
  }

  // `name:` or `name(a, b):` and the block below, in a module (or `model` at
  // the top): a container whose inputs are the names in parentheses.
  Status container_block(PNode& obj, Ctx ctx, const Key& k, int depth) {
    const bool has_inputs = tok().is("(");
    PNode inputs;
    if (has_inputs) {
      MLC_TRY(inputs, input_names());
    }
    if (!tok().is(":") || next().kind != DslToken::newline)
      return error(tok(), "expected ':' and a block below " + squote(k.name) + ", found " +
                              tok().describe());
    advance();
    int inner = depth + (ctx == Ctx::module ? 2 : 1);  // a layer sits in its parent's "layers"
    PNode c = make(PNode::Kind::object, k.at);
    MLC_CHECK_OK(count(k.at));
    MLC_CHECK_OK(container(c, has_inputs ? &inputs : nullptr, inner, k.name));
    if (ctx == Ctx::module)
      add(layers(obj), k.name, k.at, std::move(c));
    else
      add(obj, k.name, k.at, std::move(c));
    return {};
  }

  // `(a, b)`: the input names of a container or custom op.
  Expected<PNode> input_names() {
    PNode inputs = make(PNode::Kind::array, tok().begin);
    advance();  // '('
    MLC_CHECK_OK(count(inputs.at, 2));
    while (!tok().is(")")) {
      if (tok().kind != DslToken::word)
        return error(tok(), "expected an input name, found " + tok().describe());
      PNode s = bare(tok(), std::string(tok().text));
      MLC_CHECK_OK(count(s.at));
      inputs.children.emplace_back("", std::move(s));
      advance();
      if (!accept(",") && !tok().is(")")) return expected_comma_or(')', inputs.at);
    }
    advance();
    return inputs;
  }

  // A container's block: its layers go to "layers" (kept only if the block is
  // not a layer or repeat written field by field).
  Status container(PNode& c, PNode* inputs, int depth, const std::string& name) {
    MLC_CHECK_OK(check_depth(depth, c.at));
    if (inputs) add(c, "inputs", inputs->at, std::move(*inputs));
    PNode l = make(PNode::Kind::object, c.at);
    l.block_layers = true;
    add(c, "layers", c.at, std::move(l));
    MLC_CHECK_OK(count(c.at, 2));
    MLC_CHECK_OK(block(c, Ctx::module, depth, name));
    // Its own "layers" goes when the block is a layer or repeat written field
    // by field, or gives "layers" itself (nn.Sequential's list: layers = [...]).
    bool own_layers = std::count_if(c.children.begin(), c.children.end(),
                                    [](const PNode::Member& m) { return m.first == "layers"; }) > 1;
    if ((c.find("type") || c.find("repeat") || own_layers) && layers(c).children.empty()) {
      for (size_t i = 0; i < c.children.size(); ++i)
        if (c.children[i].second.block_layers) {
          c.children.erase(c.children.begin() + static_cast<std::ptrdiff_t>(i));
          break;
        }
    }
    return {};
  }

  PNode& layers(PNode& c) {
    for (auto& [k, v] : c.children)
      if (v.block_layers) return v;
    return c.children.front().second;  // unreachable: container() adds it first
  }

  // NEWLINE INDENT line* DEDENT, after `header:`.
  Status block(PNode& obj, Ctx ctx, int depth, const std::string& header) {
    if (tok().kind == DslToken::newline) advance();
    if (tok().kind != DslToken::indent)
      return error(tok(), "expected an indented block after " + squote(header + ":") +
                              ", found " + tok().describe());
    advance();
    while (tok().kind != DslToken::dedent && tok().kind != DslToken::end) {
      if (tok().kind == DslToken::indent) return error(tok(), "unexpected indent");
      MLC_CHECK_OK(line(obj, ctx, depth));
    }
    if (tok().kind == DslToken::dedent) advance();
    return {};
  }

  // `forward:` (or a custom op's gradient, `x:`) and one statement per line,
  // each kept as its text, under the key `k`.
  Status statements(PNode& obj, const Key& k, int depth) {
    MLC_CHECK_OK(check_depth(depth + 1, k.at));
    PNode arr = make(PNode::Kind::array, k.at);
    MLC_CHECK_OK(count(k.at));
    if (tok().kind == DslToken::newline) advance();
    if (tok().kind != DslToken::indent)
      return error(tok(), "expected an indented block of statements after " +
                              squote(k.name + ":") + ", found " + tok().describe());
    advance();
    while (tok().kind != DslToken::dedent && tok().kind != DslToken::end) {
      if (tok().kind == DslToken::indent) return error(tok(), "unexpected indent");
      size_t begin = tok().begin, end = tok().end_;
      while (tok().kind != DslToken::newline && tok().kind != DslToken::end) {
        if (tok().begin != begin && tok().comment != kNone)
          return error(tok().comment, "a comment inside a statement that spans lines");
        end = tok().end_;
        advance();
      }
      if (tok().kind == DslToken::newline) advance();
      PNode s = make(PNode::Kind::string, begin);
      s.s = std::string(text_.substr(begin, end - begin));
      s.bare_end = end;
      MLC_CHECK_OK(count(begin));
      arr.children.emplace_back("", std::move(s));
    }
    if (tok().kind == DslToken::dedent) advance();
    add(obj, k.name, k.at, std::move(arr));
    return {};
  }

  // `name(a, b):` in `custom_ops:` and the op's block below.
  Status custom_op_block(PNode& obj, const Key& k, int depth) {
    MLC_TRY(PNode inputs, input_names());
    if (!tok().is(":") || next().kind != DslToken::newline)
      return error(tok(), "expected ':' and a block below " + squote(k.name) + ", found " +
                              tok().describe());
    advance();
    PNode op = make(PNode::Kind::object, k.at);
    MLC_CHECK_OK(count(k.at, 2));
    MLC_CHECK_OK(check_depth(depth + 1, k.at));
    size_t at = inputs.at;
    add(op, "inputs", at, std::move(inputs));
    MLC_CHECK_OK(block(op, Ctx::custom_op, depth + 1, k.name));
    add(obj, k.name, k.at, std::move(op));
    return {};
  }

  PNode bare(const DslToken& t, std::string s) const {
    PNode p = make(PNode::Kind::string, t.begin);
    p.s = std::move(s);
    p.bare_end = t.end_;
    return p;
  }

  Expected<PNode> string(const DslToken& t) const {
    if (t.text[0] == '\'')
      return error(t, "strings are written in double quotes (\"...\"); single quotes only in forward statements");
    Json j = Json::parse(t.text, nullptr, false);
    if (j.is_discarded() || !j.is_string())
      return error(t, "invalid escape in this string (escapes: \\\" \\\\ \\/ \\b \\f \\n \\r \\t "
                      "\\uXXXX)");
    PNode p = make(PNode::Kind::string, t.begin);
    p.s = j.get<std::string>();
    return p;
  }

  Expected<PNode> number(const DslToken& t, bool negative, size_t at) const {
    std::string s = (negative ? "-" : "") + std::string(t.text);
    PNode p = make(PNode::Kind::integer, at);
    if (t.text.find_first_not_of("0123456789") == kNone) {
      auto r = std::from_chars(s.data(), s.data() + s.size(), p.i);
      if (r.ec != std::errc()) return error(at, "integer " + unquoted(s) + " is out of range");
      return p;
    }
    p.kind = PNode::Kind::real;
    p.d = std::strtod(s.c_str(), nullptr);
    if (!std::isfinite(p.d)) return error(at, "number " + unquoted(s) + " is out of range");
    return p;
  }

  // A value: number, "string", word, True/False/None, [list], (tuple),
  // {dict}, Type(args), dtype[dims] (an input's type), name[...] (a slice).
  Expected<PNode> value(int depth, bool modular) {
    MLC_CHECK_OK(check_depth(depth, tok().begin));
    const DslToken t = tok();
    MLC_CHECK_OK(count(t.begin));
    if (t.is("-") && next().kind == DslToken::number) {
      const DslToken n = next();
      advance();
      advance();
      return number(n, true, t.begin);
    }
    if (t.kind == DslToken::number) {
      advance();
      return number(t, false, t.begin);
    }
    if (t.kind == DslToken::string) {
      advance();
      return string(t);
    }
    if (t.is("[") || t.is("(")) return sequence(depth, modular);
    if (t.is("{")) return dict(depth, modular);
    if (t.kind != DslToken::word) return error(t, "expected a value, found " + t.describe());
    advance();
    if (t.text == "True" || t.text == "true" || t.text == "False" || t.text == "false") {
      PNode p = make(PNode::Kind::boolean, t.begin);
      p.b = t.text[0] == 'T' || t.text[0] == 't';
      return p;
    }
    if (t.text == "None" || t.text == "null") return make(PNode::Kind::null, t.begin);
    if (t.text == "nn" && tok().is("."))
      return error(t, "write layer types without 'nn.': Linear(...), not nn.Linear(...)");
    if (tok().is("(")) return call(t, depth, modular);
    if (tok().is("[")) {
      if (parse_dtype_or_torch_name(t.text)) return tensor_type(t, depth);
      size_t open = 0, end = t.end_;
      for (; tok().kind != DslToken::end; advance()) {
        if (tok().is("[")) ++open;
        if (tok().is("]") && --open == 0) {
          end = tok().end_;
          advance();
          break;
        }
      }
      return bare(t, std::string(text_.substr(t.begin, end - t.begin)));
    }
    return bare(t, std::string(t.text));
  }

  Expected<PNode> sequence(int depth, bool modular) {
    const DslToken open = tok();
    std::string close = open.is("[") ? "]" : ")";
    advance();
    PNode arr = make(PNode::Kind::array, open.begin);
    bool comma = false;
    while (!tok().is(close)) {
      MLC_TRY(PNode v, value(depth + 1, modular));
      arr.children.emplace_back("", std::move(v));
      comma = accept(",");
      if (!comma && !tok().is(close)) return expected_comma_or(close[0], open.begin);
    }
    advance();
    if (close == ")" && arr.children.size() == 1 && !comma) {
      values_ -= 1;  // (x) is x, not a tuple
      return std::move(arr.children[0].second);
    }
    return arr;
  }

  Expected<PNode> dict(int depth, bool modular) {
    PNode obj = make(PNode::Kind::object, tok().begin);
    advance();
    while (!tok().is("}")) {
      MLC_TRY(Key k, key());
      MLC_CHECK_OK(count(k.at));
      if (!accept(":") && !accept("="))
        return error(tok(), "expected ':' after " + squote(k.name) + ", found " + tok().describe());
      MLC_TRY(PNode v, value(depth + 1, modular));
      add(obj, k.name, k.at, std::move(v));
      if (!accept(",") && !tok().is("}")) return expected_comma_or('}', obj.at);
    }
    advance();
    return obj;
  }

  // f32[batch, 1, 8, 8] -> {"dtype": "f32", "shape": ["batch", 1, 8, 8]}
  Expected<PNode> tensor_type(const DslToken& dtype, int depth) {
    PNode obj = make(PNode::Kind::object, dtype.begin);
    MLC_CHECK_OK(count(dtype.begin, 4));
    add(obj, "dtype", kNone, bare(dtype, std::string(dtype.text)));
    MLC_TRY(PNode shape, sequence(depth + 1, false));
    add(obj, "shape", kNone, std::move(shape));
    return obj;
  }

  // Type(a, b, name=c) -> {"type": "Type", <positional fields>: a, b, "name": c};
  // in a module, repeat(N, block) -> {"repeat": N, "block": block}.
  Expected<PNode> call(const DslToken& type, int depth, bool modular) {
    bool repeat = modular && type.text == "repeat";
    static constexpr std::string_view kRepeatFields[] = {"repeat", "block"};
    CallSignature sig = repeat ? CallSignature{kRepeatFields, 2} : call_signature(type.text);
    PNode obj = make(PNode::Kind::object, type.begin);
    obj.call = true;
    // In a module every call is a layer: an unknown type is named before its arguments are read.
    if (modular && !repeat && !is_layer_type(std::string(type.text))) return error(type, unknown_layer_type(type.text));
    if (!repeat) {
      add(obj, "type", kNone, bare(type, std::string(type.text)));
      MLC_CHECK_OK(count(type.begin, 2));
    }
    const size_t open_at = tok().begin;
    advance();  // '('
    size_t positional = 0;
    bool keywords = false;
    while (!tok().is(")")) {
      if (tok().kind == DslToken::word && next().is("=")) {
        Key k{std::string(tok().text), tok().begin};
        advance();
        advance();
        MLC_CHECK_OK(count(k.at));
        MLC_TRY(PNode v, value(depth + 1, modular));
        add(obj, k.name, k.at, std::move(v));
        keywords = true;
      } else {
        size_t at = tok().begin;
        if (keywords) return error(at, "a positional argument after a keyword argument");
        if (sig.positional.empty())
          return error(at, squote(type.text) + " takes keyword arguments only (name=value)");
        if (positional >= sig.positional.size()) {
          std::string names;
          for (auto n : sig.positional) names += (names.empty() ? "" : ", ") + std::string(n);
          return error(at, unquoted(type.text) + " takes at most " +
                               std::to_string(sig.positional.size()) + " positional argument" +
                               (sig.positional.size() == 1 ? "" : "s") + " (" + names + ")");
        }
        MLC_CHECK_OK(count(at));
        MLC_TRY(PNode v, value(depth + 1, modular));
        add(obj, std::string(sig.positional[positional++]), kNone, std::move(v));
      }
      if (!accept(",") && !tok().is(")")) return expected_comma_or(')', open_at);
    }
    advance();
    if (repeat && !obj.find("repeat"))
      return error(type, "repeat needs the number of copies: repeat(N, block) or repeat(N):");
    return obj;
  }

  std::string_view text_;
  const std::string& path_;
  DslLexer lex_;
  std::optional<Error> lex_error_;  // before cur_: pull() reads it
  std::optional<DslToken> ahead_;
  DslToken cur_;
  int64_t values_ = 0;
};

// The Json of a PNode; duplicate keys are errors at the second.
Status to_json(const PNode& p, Json& out, std::string_view text, const std::string& path) {
  switch (p.kind) {
    case PNode::Kind::null: out = nullptr; return {};
    case PNode::Kind::boolean: out = p.b; return {};
    case PNode::Kind::integer: out = p.i; return {};
    case PNode::Kind::real: out = p.d; return {};
    case PNode::Kind::string: out = p.s; return {};
    case PNode::Kind::array: {
      out = Json::array();
      auto& arr = out.get_ref<Json::array_t&>();
      arr.reserve(p.children.size());
      for (const auto& c : p.children) {
        Json v;
        MLC_CHECK_OK(to_json(c.second, v, text, path));
        arr.push_back(std::move(v));
      }
      return {};
    }
    case PNode::Kind::object: {
      out = Json::object();
      std::unordered_map<std::string_view, const PNode*> seen;
      auto& members = static_cast<Json::object_t::Container&>(out.get_ref<Json::object_t&>());
      for (const auto& [k, v] : p.children) {
        auto [it, fresh] = seen.emplace(k, &v);
        if (!fresh) {
          size_t first = it->second->key_at != kNone ? it->second->key_at : it->second->at;
          Loc f = loc_of_offset(path, text, first);
          return error_at(loc_of_offset(path, text, v.key_at != kNone ? v.key_at : v.at),
                          "duplicate key " + squote(k) + " (first at line " +
                              std::to_string(f.line) + ", column " + std::to_string(f.col) + ")");
        }
        Json j;
        MLC_CHECK_OK(to_json(v, j, text, path));
        members.emplace_back(k, std::move(j));
      }
      return {};
    }
  }
  return {};
}

// Records where each value of `j` (built from `p` by to_json) came from.
void record(const PNode& p, const Json& j, JsonLocations& locs) {
  locs.add(&j, p.at, p.key_at, p.kind == PNode::Kind::string ? p.bare_end : kNone);
  if (p.kind == PNode::Kind::array) {
    for (size_t i = 0; i < p.children.size(); ++i) record(p.children[i].second, j[i], locs);
  } else if (p.kind == PNode::Kind::object) {
    size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) record(p.children[i].second, *it, locs);
  }
}

}  // namespace

bool is_model_language_path(std::string_view path) {
  return path.size() >= 4 && path.substr(path.size() - 4) == ".mlc";
}

Expected<JsonDoc> parse_model_language(std::string_view text, const std::string& path) {
  Parser parser(text, path);
  MLC_TRY(PNode root, parser.file());
  auto json = std::make_shared<Json>();
  MLC_CHECK_OK(to_json(root, *json, text, path));
  auto locs = std::make_shared<JsonLocations>(JsonLocations::for_source(text, path));
  record(root, *json, *locs);
  return JsonDoc::from_parts(std::move(json), std::move(locs));
}

}  // namespace mlc
