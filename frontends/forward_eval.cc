// run_forward (declared in forward_expr.h): evaluates parsed statements into IR.
#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "frontends/decode_positions.h"
#include "frontends/emit_util.h"
#include "frontends/forward_builtins.h"
#include "frontends/forward_expr.h"
#include "frontends/forward_shape_ops.h"
#include "frontends/random_ops.h"
#include "ir/attributes.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

struct BinaryOp {
  std::string_view op;
  OpCode code;
  const char* direction;  // comparisons
};
constexpr BinaryOp kBinary[] = {
    {"+", OpCode::Add, nullptr},     {"-", OpCode::Sub, nullptr},     {"*", OpCode::Mul, nullptr},
    {"/", OpCode::Div, nullptr},     {"**", OpCode::Pow, nullptr},    {"<", OpCode::Compare, "lt"},
    {"<=", OpCode::Compare, "le"},   {">", OpCode::Compare, "gt"},    {">=", OpCode::Compare, "ge"},
    {"==", OpCode::Compare, "eq"},   {"!=", OpCode::Compare, "ne"}};

// The value of `a op c` for two numbers.
Expected<Val> fold(const Expr& e, const Val& a, const Val& c) {
  double x = a.num, y = c.num, r = 0;
  bool integral = a.integral && c.integral;
  const std::string& op = e.op;
  if (op == "+") r = x + y;
  else if (op == "-") r = x - y;
  else if (op == "*") r = x * y;
  else if (op == "/") {
    if (y == 0) return fwd_error(e.loc, "division by zero");
    r = x / y;
    integral = false;
  } else if (op == "//") {  // Python's floor division
    if (y == 0) return fwd_error(e.loc, "division by zero");
    r = std::floor(x / y);
  } else if (op == "**") {
    r = std::pow(x, y);
    integral = integral && y >= 0;
  } else {
    bool v = op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : op == ">=" ? x >= y
             : op == "==" ? x == y : x != y;
    Val b = Val::number(v, true, e.loc);
    b.boolean = true;
    return b;
  }
  if (!std::isfinite(r)) return fwd_error(e.loc, "the result of '" + op + "' is out of range");
  return Val::number(r, integral, e.loc);
}

class Evaluator {
 public:
  Evaluator(Builder& b, const LayerCall& call, const ParamLookup& param, const DecodeState* decode,
            const ForwardRandom* random)
      : b_(b), call_(call), param_(param), decode_(decode), random_(random) {}

  Expected<Value*> run(const ForwardProgram& program, const std::vector<Value*>& inputs) {
    Val training = Val::number(random_ && random_->training, true, {});
    training.boolean = true;
    vars_[std::string(kSelfTraining)] = training;
    for (size_t i = 0; i < program.inputs.size() && i < inputs.size(); ++i)
      vars_[program.inputs[i]] = Val::tensor(inputs[i], {});
    Val last;
    for (const Statement& st : program.statements) {
      if (st.is_loop()) {
        for (int64_t i = 0; i < st.loop_count; ++i) {
          vars_[st.loop_var] = Val::number(static_cast<double>(i), true, st.loc);
          for (const Statement& inner : st.body) MLC_CHECK_OK(exec(inner, last));
        }
        continue;
      }
      MLC_CHECK_OK(exec(st, last));
      if (!last.is_tensor() && (st.is_return() || &st == &program.statements.back()))
        return fwd_error(st.loc, "the result must be a tensor, found " + last.describe());
    }
    return last.v;
  }

 private:
  // Evaluates a statement's expression into `value` and assigns it.
  Status exec(const Statement& st, Val& value) {
    stmt_loc_ = st.loc;
    MLC_TRY(value, eval(*st.expr));
    if (st.unpack) return unpack(st, value);
    if (st.is_return()) return {};
    // `h = attn(q, k, v)`: PyTorch's h would be the whole tuple; ask for the item meant.
    if (value.kind == Val::Kind::list && st.expr->kind == Expr::Kind::call && !st.expr->builtin)
      return fwd_error(st.loc, "cannot assign " + value.describe() + ", the tuple " + squote(st.expr->name) +
                                   " returns, to " + squote(st.targets[0]) + "; index or unpack it: " +
                                   st.targets[0] + " = " + st.expr->name + "(...)[0], or " + st.targets[0] +
                                   ", rest = ...");
    return assign(st, st.targets[0], value);
  }

  // `a, b = v` and `out, (h, c) = v`: st.groups says which targets are groups.
  Status unpack(const Statement& st, const Val& v) {
    MLC_CHECK_OK(check_unpack(st, v, st.groups.size(), names(st)));
    size_t next = 0;
    for (size_t i = 0; i < st.groups.size(); ++i) {
      const size_t g = st.groups[i];
      if (g == 0) {
        MLC_CHECK_OK(assign(st, st.targets[next++], v.items[i]));
        continue;
      }
      std::string group = std::to_string(g) + " names (";
      for (size_t k = 0; k < g; ++k) group += (k ? ", " : "") + st.targets[next + k];
      MLC_CHECK_OK(check_unpack(st, v.items[i], g, group + ")"));
      for (size_t k = 0; k < g; ++k) MLC_CHECK_OK(assign(st, st.targets[next++], v.items[i].items[k]));
    }
    return {};
  }

  static Status check_unpack(const Statement& st, const Val& v, size_t n, const std::string& into) {
    if (v.kind != Val::Kind::list)
      return fwd_error(st.target_loc, "cannot unpack " + v.describe() + " into " + into +
                                          "; sizes unpack: B, T, C = x.size()");
    if (v.items.size() != n)
      return fwd_error(st.target_loc, std::string(v.items.size() > n ? "too many" : "not enough") +
                                          " values to unpack: " + std::to_string(v.items.size()) +
                                          " values into " + into);
    return {};
  }

  // A tensor, or a list of tensors and such lists (a recurrent layer's state).
  static bool is_tensor_tuple(const Val& v) {
    if (v.is_tensor()) return true;
    return v.kind == Val::Kind::list && !v.items.empty() &&
           std::all_of(v.items.begin(), v.items.end(), [](const Val& i) { return is_tensor_tuple(i); });
  }
  // Tensors, tuples of them and sizes (numbers, lists of numbers) can be assigned.
  Status assign(const Statement& st, const std::string& name, const Val& v) {
    bool size = v.is_number() ||
                (v.kind == Val::Kind::list &&
                 std::all_of(v.items.begin(), v.items.end(), [](const Val& i) { return i.is_number(); }));
    if (!is_tensor_tuple(v) && !size)
      return fwd_error(st.loc, "cannot assign " + v.describe() + " to " + squote(name) +
                                   "; only tensors, tuples of tensors and numbers (sizes) can be assigned");
    vars_[name] = v;
    return {};
  }

  // "2 names (B, T)": the first few of them.
  static std::string names(const Statement& st) {
    constexpr size_t kShown = 8;
    std::string s = std::to_string(st.targets.size()) + " names (";
    for (size_t i = 0; i < st.targets.size() && i < kShown; ++i) s += (i ? ", " : "") + st.targets[i];
    return s + (st.targets.size() > kShown ? ", ...)" : ")");
  }

  Expected<Val> eval(const Expr& e) {
    b_.set_loc(stmt_loc_);
    switch (e.kind) {
      case Expr::Kind::number: {
        Val v = Val::number(e.number, e.integral, e.loc);
        v.boolean = e.boolean;
        return v;
      }
      case Expr::Kind::none: return Val::of(Val::Kind::none, e.loc);
      case Expr::Kind::string: {
        Val v = Val::of(Val::Kind::string, e.loc);
        v.text = e.name;
        return v;
      }
      case Expr::Kind::dtype: {
        Val v = Val::of(Val::Kind::dtype, e.loc);
        v.dtype = e.dtype;
        return v;
      }
      case Expr::Kind::name: {
        Val v = vars_.at(e.name);
        v.loc = e.loc;
        return v;
      }
      case Expr::Kind::param: return Val::tensor(param_(e.name, e.tied), e.loc);
      case Expr::Kind::list: {
        Val v;
        v.kind = Val::Kind::list;
        v.loc = e.loc;
        for (const auto& a : e.args) {
          MLC_TRY(Val item, eval(*a));
          v.items.push_back(std::move(item));
        }
        return v;
      }
      case Expr::Kind::negate: {
        MLC_TRY(Val x, eval(*e.args[0]));
        if (x.is_number()) return Val::number(-x.num, x.integral, e.loc);
        if (!x.is_tensor()) return fwd_error(e.loc, "'-' expects a tensor or a number, found " + x.describe());
        b_.set_loc(stmt_loc_);
        MLC_TRY(Value* y, emit_op(b_, OpCode::Neg, {x.v}));
        return Val::tensor(y, e.loc);
      }
      case Expr::Kind::binary: {
        MLC_TRY(Val a, eval(*e.args[0]));
        MLC_TRY(Val c, eval(*e.args[1]));
        b_.set_loc(stmt_loc_);
        return binary(e, std::move(a), std::move(c));
      }
      case Expr::Kind::subscript: return subscript(e);
      case Expr::Kind::call: return call(e);
    }
    return fwd_error(e.loc, "internal: unknown expression");
  }

  Expected<Val> binary(const Expr& e, Val a, Val c) {
    const std::string& op = e.op;
    if (op == "+" && a.kind == Val::Kind::list && c.kind == Val::Kind::list) {  // outs + [h]
      a.items.insert(a.items.end(), c.items.begin(), c.items.end());
      return a;
    }
    for (const Val* v : {&a, &c})
      if (!v->is_tensor() && !v->is_number())
        return fwd_error(e.loc, "operands of '" + op + "' must be tensors or numbers, found " +
                                    v->describe());
    if (a.is_number() && c.is_number()) return fold(e, a, c);
    if (op == "//")
      return fwd_error(e.loc, "'//' takes numbers (sizes: C // 4), found " + a.describe() + " and " +
                                  c.describe());
    if (op == "@") {
      if (!a.is_tensor() || !c.is_tensor())
        return fwd_error(e.loc, "'@' expects two tensors, found " + a.describe() + " and " + c.describe());
      MLC_TRY(Value* y, emit_matmul(b_, a.v, c.v, e.loc));
      return Val::tensor(y, e.loc);
    }
    if (!a.is_tensor()) {
      MLC_TRY(a.v, literal_like(b_, a, c.v->type.dtype));
    }
    if (!c.is_tensor()) {
      MLC_TRY(c.v, literal_like(b_, c, a.v->type.dtype));
    }
    if (a.v->type.dtype != c.v->type.dtype)
      return fwd_error(e.loc, "operands of '" + op + "' have different dtypes: " + a.v->type.str() +
                                  " and " + c.v->type.str());
    if (!broadcast_shapes(a.v->type.shape, c.v->type.shape))
      return fwd_error(e.loc, "cannot broadcast " + a.v->type.str() + " and " + c.v->type.str() +
                                  " in '" + op + "'");
    const BinaryOp* spec = nullptr;
    for (const BinaryOp& s : kBinary)
      if (s.op == op) spec = &s;
    DType dt = a.v->type.dtype;
    if ((op == "/" || op == "**") && !is_float(dt))
      return fwd_error(e.loc, "'" + op + "' expects float tensors, found " + a.v->type.str() +
                                  " and " + c.v->type.str() + " (cast with .float())");
    if (!spec->direction && dt == DType::boolean)
      return fwd_error(e.loc, "cannot do arithmetic on a bool tensor");
    Attrs attrs;
    if (spec->direction) attrs.set("direction", std::string(spec->direction));
    MLC_TRY(Value* y, emit_op(b_, spec->code, {a.v, c.v}, std::move(attrs)));
    return Val::tensor(y, e.loc);
  }

  Expected<Val> subscript(const Expr& e) {
    MLC_TRY(Val base, eval(*e.args[0]));
    if (base.kind == Val::Kind::list) {  // x.size()[1]
      if (e.subs.size() != 1 || e.subs[0].kind != Expr::Sub::Kind::index)
        return fwd_error(e.loc, "a list takes one integer index, e.g. x.size()[1]");
      MLC_TRY(Val iv, eval(*e.args[e.subs[0].start]));
      MLC_TRY(int64_t i, int_arg(iv, "a list index", e.loc));
      auto n = static_cast<int64_t>(base.items.size());
      if (i < -n || i >= n)
        return fwd_error(iv.loc, "index " + std::to_string(i) + " is out of range for " + base.describe());
      return base.items[i < 0 ? i + n : i];
    }
    if (!base.is_tensor()) return fwd_error(e.loc, "cannot index " + base.describe());
    std::vector<SubscriptItem> items;
    auto arg = [&](int i) -> Expected<Val> {
      if (i < 0) return Val{};
      return eval(*e.args[i]);
    };
    for (const Expr::Sub& s : e.subs) {
      SubscriptItem it;
      it.loc = s.loc;
      it.kind = static_cast<SubscriptItem::Kind>(s.kind);
      MLC_TRY(it.start, arg(s.start));
      MLC_TRY(it.stop, arg(s.stop));
      MLC_TRY(it.step, arg(s.step));
      if (it.kind == SubscriptItem::Kind::index && !it.start.is_number())
        return fwd_error(s.loc, "an index must be an integer, a slice, '...' or None, found " +
                                    it.start.describe());
      items.push_back(std::move(it));
    }
    b_.set_loc(stmt_loc_);
    MLC_TRY(Value* y, emit_subscript(b_, base.v, items, e.loc));
    return Val::tensor(y, e.loc);
  }

  Expected<Val> call(const Expr& e) {
    if (e.builtin) {
      std::vector<Val> args;
      for (const auto& a : e.args) {
        if (!a) {
          args.emplace_back();
          continue;
        }
        MLC_TRY(Val x, eval(*a));
        args.push_back(std::move(x));
      }
      b_.set_loc(stmt_loc_);
      if (decode_ && e.name == "arange") return decode_positions(b_, *decode_, args, e.loc);
      if (is_random_builtin(e.name)) return random_builtin(e.name, args, e.loc);
      return emit_builtin(b_, *find_builtin(e.name, kFunction | kMethod | kAttribute | kQualified), std::move(args),
                          e.loc);
    }
    std::vector<Val> args;
    for (const auto& a : e.args) {
      if (!a) {  // an optional argument of a layer's call spec, not given
        args.emplace_back();
        continue;
      }
      MLC_TRY(Val x, eval(*a));
      if (!e.keywords && !x.is_tensor())
        return fwd_error(a->loc, squote(e.name) + " expects a tensor, found " + x.describe());
      args.push_back(std::move(x));
    }
    MLC_TRY(Val y, call_(e.name, std::move(args), e.loc));
    y.loc = e.loc;
    return y;
  }

  // dropout(input, p, training, inplace), rand_like(input, dtype),
  // randn_like(input, dtype) on the keyed generator (random_ops.h).
  Expected<Val> random_builtin(const std::string& name, const std::vector<Val>& args, const Loc& at) {
    if (!random_)
      return fwd_error(at, squote(name) + " draws random numbers, which a custom op's forward cannot");
    MLC_TRY(Value* x, tensor_arg(args[0], name, at));
    if (!is_float(x->type.dtype)) return fwd_error(at, name + " expects a float tensor, found " + x->type.str());
    double p = 0;
    bool draw = true;
    if (name == "dropout") {
      MLC_TRY(p, number_arg(args[1], 0.5, "p", at));
      if (p < 0 || p > 1) return fwd_error(args[1].loc, "dropout's p must be in [0, 1], found " + number_text(p, false));
      MLC_TRY(draw, bool_arg(args[2], true, "training", at));
      MLC_TRY(bool inplace, bool_arg(args[3], false, "inplace", at));
      (void)inplace;  // the result is a new value either way
      if (!draw || p == 0) return Val::tensor(x, at);
      if (p == 1) {  // torch: every element dropped
        MLC_TRY(Value* zero, emit_scalar(b_, 0, x->type.dtype));
        MLC_TRY(Value* y, emit_op(b_, OpCode::Mul, {x, zero}));
        return Val::tensor(y, at);
      }
    } else if (args[1].kind != Val::Kind::absent && args[1].kind != Val::Kind::none) {
      if (args[1].kind != Val::Kind::dtype || !is_float(args[1].dtype))
        return fwd_error(args[1].loc, name + "'s dtype must be a float dtype, found " + args[1].describe());
    }
    RandomKey key{random_->seed, random_->stream(random_calls_++), nullptr};
    if (random_->training) {
      key.step = random_->step();
    } else {
      MLC_TRY(key.step, emit_scalar(b_, -1, DType::i64));
    }
    Value* y = nullptr;
    if (name == "dropout") {
      MLC_TRY(y, emit_dropout(b_, x, p, key));
      return Val::tensor(y, at);
    }
    if (name == "rand_like") {
      MLC_TRY(y, emit_uniform_draws(b_, x->type.shape, key));
    } else {
      MLC_TRY(y, emit_normal_draws(b_, x->type.shape, key));
    }
    const DType dtype = args[1].kind == Val::Kind::dtype ? args[1].dtype : x->type.dtype;
    if (dtype != DType::f32) {
      MLC_TRY(y, emit_cast(b_, y, dtype));
    }
    return Val::tensor(y, at);
  }

  Builder& b_;
  const LayerCall& call_;
  const ParamLookup& param_;
  const DecodeState* decode_;
  const ForwardRandom* random_;
  int64_t random_calls_ = 0;
  std::unordered_map<std::string, Val> vars_;
  Loc stmt_loc_;
};

}  // namespace

Expected<Value*> run_forward(const ForwardProgram& program, const std::vector<Value*>& inputs,
                             Builder& b, const LayerCall& call_layer, const ParamLookup& param,
                             const DecodeState* decode, const ForwardRandom* random) {
  Evaluator ev(b, call_layer, param, decode, random);
  return ev.run(program, inputs);
}

}  // namespace mlc
