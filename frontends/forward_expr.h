// The statement language of a container's "forward": a subset of the Python
// that PyTorch users write in a module's forward.
//
//   statement  := name '=' expr | target (',' target)+ [','] '=' expr | 'return' expr
//               | name '+=' expr                   (name = name + expr)
//               | 'for' name 'in' 'range' '(' integer ')' ':' statement (';' statement)*
//                 (frontends/forward_loop.h)
//   target     := name | '(' name (',' name)+ ')'    (`out, (h, c) = lstm(x)`)
//   expr       := sum [('<' | '>' | '<=' | '>=' | '==' | '!=') sum]
//   sum        := term (('+' | '-') term)*
//   term       := unary (('*' | '/' | '//' | '@') unary)*
//   unary      := '-' unary | power
//   power      := postfix ['**' unary]
//   postfix    := primary ('.' ident | '.' ident '(' args ')' | '[' subscripts ']')*
//   primary    := number | string | name | param | call | '(' expr ')' | '(' expr ',' ... ')'
//               | '[' expr, ... ']'
//   call       := callee '(' args ')'        callee: a layer, a built-in, torch.f or F.f
//   args       := [arg (',' arg)*]           arg := [ident '='] expr  (keywords last)
//   param      := layer ('.' (ident | integer))+   a parameter's state_dict path below
//                                               the container, e.g. tok_emb.weight
//   subscripts := sub (',' sub)*             sub := expr | [expr] ':' [expr] [':' [expr]]
//                                                 | '...' | None
//
// Names are the container's inputs and earlier assignments (tensors, or
// numbers and lists of numbers: sizes, static since shapes are), True, False, None,
// inf and the dtypes (f32, bf16, float32, bfloat16, ...). Callees are the
// container's layers (any arity the layer takes; a layer with a call spec,
// Layer::call_spec, binds positional and keyword arguments as a built-in
// does, takes tuples `(h, c)` as lists of tensors and may return a list, a
// tuple) or the built-ins of
// forward_builtins.h (also as methods, x.sum(-1), and the attributes x.T,
// x.mT). `+ - * / ** <...` use numpy broadcasting; a number next to a tensor
// becomes a scalar constant of the tensor's dtype; numbers fold, and `//`
// (floor division) takes numbers only. x.size(), x.shape, x.size(d),
// x.shape[d], x.numel(), x.dim() and x.ndim are numbers. (...) with commas and [...]
// are lists (shapes, dims, cat's tensors).
//
// Contracts:
//  - parse_forward checks syntax, names, parameter paths and the arguments of
//    every call (count, keywords) statically; every error points into the JSON
//    string: FILE:LINE:(column of the string's character). It is linear in the
//    total length of the statements (names are hashed).
//  - Nesting is bounded (kMaxExprDepth brackets / unary minus / powers,
//    kMaxExprHeight for the whole tree), so parsing, evaluation and destruction
//    recurse at most that deep whatever the input.
//  - run_forward emits ops at the statement's Loc (layer calls set their own)
//    and reports type errors (shapes, dims, dtypes) at the operator's or
//    callee's column, saying what was expected and what was found.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontends/forward_builtins.h"
#include "frontends/json_doc.h"
#include "ir/builder.h"

namespace mlc {

struct DecodeState;

inline constexpr int kMaxExprDepth = 32;
inline constexpr int kMaxExprHeight = 256;

struct Expr {
  enum class Kind {
    name,       // a defined value: `name`
    number,     // a literal; also True/False (`boolean`) and inf
    none,       // None
    string,     // a string literal ('sum' or "sum"): `name`, without the quotes
    dtype,      // a dtype name: `dtype`
    param,      // a parameter: `name` is its path below the container, or
                // (`tied`) the full state_dict name of the one it is tied to
    list,       // (a, b) or [a, b]: `args`
    call,       // `name`(args): a layer, or a built-in (`builtin`) with args in
                // the built-in's parameter order (absent optional ones null)
    binary,     // args[0] `op` args[1]
    negate,     // -args[0]
    subscript,  // args[0][subs], the items' expressions in args[1..]
  } kind = Kind::name;
  Loc loc;           // of the token that starts it (binary: of the operator)
  std::string name;  // name, callee or parameter path
  double number = 0;
  bool integral = false;  // a number literal without '.' or exponent
  bool boolean = false;   // True or False
  DType dtype = DType::f32;
  std::string op;         // binary: "+", "-", "*", "/", "@", "**", "<", "<=", ...
  bool builtin = false;   // call: of a built-in (not a layer of the container)
  bool keywords = false;  // call: of a layer with a call spec (Layer::call_spec), args in
                          // its order (absent optional ones null)
  bool tied = false;      // param: `name` is a full state_dict name
  bool maybe_number = false;  // name: may hold a number (a size), which becomes a
                              // constant next to a tensor (the work budget counts it)
  int height = 1;
  std::vector<std::unique_ptr<Expr>> args;  // may hold nulls (absent optional arguments)
  struct Sub {
    enum class Kind { index, slice, ellipsis, newaxis } kind = Kind::index;
    int start = -1, stop = -1, step = -1;  // positions in args; -1 if absent (index: start)
    Loc loc;
  };
  std::vector<Sub> subs;  // subscript
};

struct Statement {
  // The names assigned, none for `return`. `unpack` (`B, T, C = x.size()`):
  // the value is a list of as many items, one per name, in order.
  std::vector<std::string> targets;
  bool unpack = false;
  // unpack: per item of the value, 0 for a name, or n for a parenthesized group
  // of the next n names (`out, (h, c)`: {0, 2}).
  std::vector<size_t> groups;
  Loc target_loc;  // of the first name
  std::unique_ptr<Expr> expr;
  Loc loc;  // of the JSON string
  // A loop (`for t in range(N): ...`): `body` runs `loop_count` times with
  // `loop_var` bound to 0 .. N-1; `expr` is null.
  std::string loop_var;
  int64_t loop_count = 0;
  std::vector<Statement> body;
  bool is_loop() const { return loop_count > 0; }
  bool is_return() const { return targets.empty() && !is_loop(); }
};

struct ForwardProgram {
  std::vector<std::string> inputs;
  std::vector<Statement> statements;  // the last one's value is returned
  // Work of one run, for the model's budget: `ops` bounds the ops the
  // statements emit themselves (each operator, built-in call or literal at
  // most its max_ops); `calls` counts the calls of each layer of the container.
  int64_t ops = 0;
  std::unordered_map<std::string, int64_t> calls;
};

// What a dotted path below a container names.
struct PathInfo {
  enum class Kind { none, module, param } kind = Kind::none;
  // none: the members of the deepest module the path reaches and that module's
  // path ("" for the container); module: its members (for messages).
  std::vector<std::string> members;
  std::string reached;
  // param: the parameter's full state_dict name when a layer uses it tied
  // (Linear "tie_weight": head.weight is tok_emb.weight), else "".
  std::string tied_to;
};

// What parse_forward needs to know about the container.
struct ForwardScope {
  std::vector<std::string> inputs;
  // Number of arguments a layer of the container takes, or nullopt if no such layer.
  std::function<std::optional<int>(const std::string&)> layer_arity;
  // The call spec of a layer of the container that takes keyword arguments
  // (Layer::call_spec), or nullptr (then it takes layer_arity tensors).
  std::function<const BuiltinSpec*(const std::string&)> layer_spec;
  // What "a.b.c" names below the container (a is a layer of it).
  std::function<PathInfo(const std::string&)> resolve_path;
};

bool is_identifier(std::string_view s);
bool is_forward_builtin(std::string_view name);

Expected<ForwardProgram> parse_forward(const JsonDoc& doc, const Node& forward,
                                       const ForwardScope& scope);

// Calls a layer of the container; `call` locates the call. The arguments are
// tensors, or (a layer with a call spec) one Val per parameter of its spec.
// The result is a tensor, or a list (a tuple: nn.MultiheadAttention's).
using LayerCall =
    std::function<Expected<Val>(const std::string& layer, std::vector<Val> args, const Loc& call)>;
// The value of a parameter, by its path below the container or (`full`) its
// full state_dict name (parse_forward checked it).
using ParamLookup = std::function<Value*(const std::string& path, bool full)>;

// What the random built-ins (dropout, rand_like, randn_like: random_ops.h)
// draw from, and the value of `self.training`. Without it (a custom op's
// forward) they are errors and self.training is False.
struct ForwardRandom {
  bool training = false;  // self.training: the mode the forward is lowered in
  uint64_t seed = 0;      // train.seed
  // The {step} argument (training mode; evaluation draws at step -1).
  std::function<Value*()> step;
  // The stream of the k-th random built-in evaluated in this run of the forward.
  std::function<uint32_t(int64_t k)> stream;
};

// `decode`: building for incremental decoding (frontends/decode_state.h);
// then arange(n) denotes the positions being computed. `random`: see ForwardRandom.
Expected<Value*> run_forward(const ForwardProgram& program, const std::vector<Value*>& inputs,
                             Builder& b, const LayerCall& call_layer, const ParamLookup& param,
                             const DecodeState* decode = nullptr, const ForwardRandom* random = nullptr);

}  // namespace mlc
