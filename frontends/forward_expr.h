// The statement language of a container's "forward":
//
//   statement := name '=' expr | 'return' expr
//   expr      := term (('+' | '-') term)*
//   term      := unary ('*' unary)*
//   unary     := '-' unary | primary
//   primary   := number | name | name '(' [expr (',' expr)*] ')' | '(' expr ')'
//
// Names are the container's inputs and earlier assignments; callees are the
// container's layers (any arity the layer takes) or the built-ins relu, gelu,
// silu, tanh, sigmoid, flatten (from dim 1), softmax (last dim) and arange(n)
// (i64 0..n-1, n a positive integer literal). `+ - *` use numpy broadcasting;
// a number next to a tensor becomes a scalar constant of the tensor's dtype.
//
// Contracts:
//  - parse_forward checks syntax and names statically; every error points into
//    the JSON string: FILE:LINE:(column of the string's character). It is
//    linear in the total length of the statements (names are hashed).
//  - Nesting is bounded (kMaxExprDepth parentheses / unary minus, kMaxExprHeight
//    for the whole tree), so parsing, evaluation and destruction recurse at most
//    that deep whatever the input.
//  - run_forward emits ops at the statement's Loc (layer calls set their own)
//    and reports type errors (broadcasting, dtypes) at the operator's column.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontends/json_doc.h"
#include "ir/builder.h"

namespace mlc {

inline constexpr int kMaxExprDepth = 32;
inline constexpr int kMaxExprHeight = 256;

struct Expr {
  enum class Kind { name, number, call, binary, negate } kind = Kind::name;
  Loc loc;           // of the token that starts it (binary: of the operator)
  std::string name;  // name, or callee
  double number = 0;
  bool integral = false;  // a number literal without '.' or exponent
  char op = 0;            // binary: '+', '-', '*'
  bool builtin = false;   // call: of a built-in (not a layer of the container)
  int height = 1;
  std::vector<std::unique_ptr<Expr>> args;  // call arguments; binary: lhs, rhs; negate: x
};

struct Statement {
  std::string target;  // "" for `return`
  std::unique_ptr<Expr> expr;
  Loc loc;  // of the JSON string
};

struct ForwardProgram {
  std::vector<std::string> inputs;
  std::vector<Statement> statements;  // the last one's value is returned
  // Work of one run, for the model's budget: `ops` bounds the ops the
  // statements emit themselves (one per operator, built-in call or literal);
  // `calls` counts the calls of each layer of the container.
  int64_t ops = 0;
  std::unordered_map<std::string, int64_t> calls;
};

// What parse_forward needs to know about the container.
struct ForwardScope {
  std::vector<std::string> inputs;
  // Number of arguments a layer of the container takes, or nullopt if no such layer.
  std::function<std::optional<int>(const std::string&)> layer_arity;
};

bool is_identifier(std::string_view s);
bool is_forward_builtin(std::string_view name);

Expected<ForwardProgram> parse_forward(const JsonDoc& doc, const Node& forward,
                                       const ForwardScope& scope);

// Calls a layer of the container with tensor arguments; `call` locates the call.
using LayerCall =
    std::function<Expected<Value*>(const std::string& layer, std::vector<Value*> args,
                                   const Loc& call)>;

Expected<Value*> run_forward(const ForwardProgram& program, const std::vector<Value*>& inputs,
                             Builder& b, const LayerCall& call_layer);

}  // namespace mlc
