// The built-in functions of the forward statement language: their signatures
// (read by the parser to bind positional and keyword arguments) and their
// emission into IR (forward_builtins.cc). docs/model-format.md, "forward",
// lists them with their PyTorch counterparts.
//
// Contracts:
//  - find_builtin(name, form) returns the spec callable in that form, or null.
//  - A spec's params are in PyTorch's order; the first `required` are
//    required. The parameter at `variadic` (if >= 0) takes the positional
//    arguments from its position on as a list (x.view(B, T, C) binds
//    shape = [B, T, C]), or one list given there (x.view((B, T, C))); the
//    parameters after it are keyword-only.
//  - max_ops bounds the ops one call emits, whatever its arguments (the model
//    file's work budget counts it before anything is emitted).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontends/emit_util.h"
#include "ir/builder.h"

namespace mlc {

// kQualified: a function callable only as torch.f(...) or F.f(...), whose bare
// name stays free for assignments (torch.cos; `cos = ...` is a variable).
enum BuiltinForm : unsigned { kFunction = 1, kMethod = 2, kAttribute = 4, kQualified = 8 };

struct BuiltinSpec {
  std::string_view name;
  unsigned forms;  // BuiltinForm bits
  std::vector<std::string_view> params;
  int required;
  int variadic = -1;
  int max_ops = 1;
};

const BuiltinSpec* find_builtin(std::string_view name, unsigned form);
// dropout, rand_like and randn_like: run_forward evaluates them with its
// ForwardRandom (forward_expr.h, random_ops.h), not emit_builtin.
bool is_random_builtin(std::string_view name);
// `self.training` in a forward: a name the evaluator defines (True in
// training mode, False in evaluation mode).
inline constexpr std::string_view kSelfTraining = "self.training";
// Names callable in `form` (for messages), in table order.
std::vector<std::string> builtin_names(unsigned form);
inline std::vector<std::string> builtin_function_names() { return builtin_names(kFunction); }

// An argument during evaluation: a tensor, a number (not yet typed), a list,
// a dtype, None, a string ('sum'), or absent (an optional argument not given).
struct Val {
  enum class Kind { absent, tensor, number, list, dtype, none, string } kind = Kind::absent;
  Value* v = nullptr;
  double num = 0;
  bool integral = false;
  bool boolean = false;
  DType dtype = DType::f32;
  std::vector<Val> items;
  std::string text;  // string
  Loc loc;  // of the expression it came from

  static Val of(Kind k, Loc l) {
    Val r;
    r.kind = k;
    r.loc = std::move(l);
    return r;
  }
  static Val tensor(Value* x, Loc l) {
    Val r;
    r.kind = Kind::tensor;
    r.v = x;
    r.loc = std::move(l);
    return r;
  }
  static Val number(double n, bool is_int, Loc l) {
    Val r;
    r.kind = Kind::number;
    r.num = n;
    r.integral = is_int;
    r.loc = std::move(l);
    return r;
  }
  bool is_tensor() const { return kind == Kind::tensor; }
  bool is_number() const { return kind == Kind::number; }
  // "the number 3", "f32[2,3]", "a list of 2", "None", "the dtype bf16".
  std::string describe() const;
};

// Emits built-in `spec` on `args` (in spec.params order, absent ones of kind
// absent) at the builder's loc; errors are located at `at` (the callee).
Expected<Val> emit_builtin(Builder& b, const BuiltinSpec& spec, std::vector<Val> args,
                           const Loc& at);

// ---- shared by the evaluator and the built-ins
Error fwd_error(const Loc& loc, const std::string& message);
std::string number_text(double num, bool integral);
// A scalar constant of `dtype` for a number argument, or an error at the number.
Expected<Value*> literal_like(Builder& b, const Val& lit, DType dtype);
// Argument conversions; errors at the argument (or `at` if it has no location).
Expected<Value*> tensor_arg(const Val& v, const std::string& what, const Loc& at);
Expected<int64_t> int_arg(const Val& v, const std::string& what, const Loc& at);
// An integer or a list of at most kMaxRank integers (dims, or sizes of dims).
Expected<std::vector<int64_t>> int_list(const Val& v, const std::string& what, const Loc& at);
// True/False (`dflt` when absent).
Expected<bool> bool_arg(const Val& v, bool dflt, const std::string& what, const Loc& at);
// A number (`dflt` when absent or None).
Expected<double> number_arg(const Val& v, double dflt, const std::string& what, const Loc& at);
// A string ('sum'; `dflt` when absent).
Expected<std::string> string_arg(const Val& v, const std::string& dflt, const std::string& what, const Loc& at);
// A dim of `t`, negative ones counted from the end: in [0, rank + extra).
Expected<int64_t> dim_arg(const Val& v, const TensorType& t, const std::string& what, const Loc& at,
                          int64_t extra = 0);

}  // namespace mlc
