// run_forward (declared in forward_expr.h): evaluates parsed statements into IR.
#include <cmath>
#include <unordered_map>

#include "frontends/emit_util.h"
#include "frontends/forward_expr.h"
#include "ir/attributes.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

// A value during evaluation: a tensor, or a number literal not yet typed.
struct Val {
  Value* v = nullptr;
  double num = 0;
  bool integral = false;
};

std::string number_text(const Val& x) {
  bool exact = x.integral && std::abs(x.num) < 9e15;
  return exact ? std::to_string(static_cast<int64_t>(x.num)) : float_to_string(x.num);
}

Error fwd_error(const Loc& loc, const std::string& message) {
  return error_at(loc, "forward: " + message);
}

class Evaluator {
 public:
  Evaluator(Builder& b, const LayerCall& call) : b_(b), call_(call) {}

  Expected<Value*> run(const ForwardProgram& program, const std::vector<Value*>& inputs) {
    for (size_t i = 0; i < program.inputs.size() && i < inputs.size(); ++i)
      vars_[program.inputs[i]] = inputs[i];
    Val last;
    for (const Statement& st : program.statements) {
      stmt_loc_ = st.loc;
      MLC_TRY(last, eval(*st.expr));
      if (!last.v) {
        if (st.target.empty() || &st == &program.statements.back())
          return fwd_error(st.loc, "the result must be a tensor, found the number " +
                                       number_text(last));
        return fwd_error(st.loc, "cannot assign a bare number to " + squote(st.target) +
                                     "; use it inside an expression");
      }
      if (!st.target.empty()) vars_[st.target] = last.v;
    }
    return last.v;
  }

 private:
  Expected<Val> eval(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::number: return Val{nullptr, e.number, e.integral};
      case Expr::Kind::name: return Val{vars_.at(e.name)};
      case Expr::Kind::negate: {
        MLC_TRY(Val x, eval(*e.args[0]));
        if (!x.v) return Val{nullptr, -x.num, x.integral};
        b_.set_loc(stmt_loc_);
        MLC_TRY(Value* y, emit_op(b_, OpCode::Neg, {x.v}));
        return Val{y};
      }
      case Expr::Kind::binary: {
        MLC_TRY(Val a, eval(*e.args[0]));
        MLC_TRY(Val c, eval(*e.args[1]));
        return binary(e, a, c);
      }
      case Expr::Kind::call: return call(e);
    }
    return fwd_error(e.loc, "internal: unknown expression");
  }

  Expected<Value*> literal_like(const Loc& loc, const Val& lit, DType dtype) {
    if (!is_float(dtype) && !lit.integral)
      return fwd_error(loc, "cannot combine the number " + number_text(lit) + " with a " +
                                std::string(dtype_name(dtype)) + " tensor");
    if (dtype == DType::boolean)
      return fwd_error(loc, "cannot do arithmetic on a bool tensor");
    if (!is_float(dtype) && std::abs(lit.num) > 9e15)
      return fwd_error(loc, "the number " + number_text(lit) + " is out of range for " +
                                std::string(dtype_name(dtype)));
    b_.set_loc(stmt_loc_);
    return emit_scalar(b_, lit.num, dtype);
  }

  Expected<Val> binary(const Expr& e, Val a, Val c) {
    if (!a.v && !c.v) {
      double r = e.op == '+' ? a.num + c.num : e.op == '-' ? a.num - c.num : a.num * c.num;
      return Val{nullptr, r, a.integral && c.integral};
    }
    if (!a.v) {
      MLC_TRY(a.v, literal_like(e.args[0]->loc, a, c.v->type.dtype));
    }
    if (!c.v) {
      MLC_TRY(c.v, literal_like(e.args[1]->loc, c, a.v->type.dtype));
    }
    std::string op(1, e.op);
    if (a.v->type.dtype != c.v->type.dtype)
      return fwd_error(e.loc, "operands of '" + op + "' have different dtypes: " +
                                  a.v->type.str() + " and " + c.v->type.str());
    if (!broadcast_shapes(a.v->type.shape, c.v->type.shape))
      return fwd_error(e.loc, "cannot broadcast " + a.v->type.str() + " and " + c.v->type.str() +
                                  " in '" + op + "'");
    OpCode code = e.op == '+' ? OpCode::Add : e.op == '-' ? OpCode::Sub : OpCode::Mul;
    b_.set_loc(stmt_loc_);
    MLC_TRY(Value* y, emit_op(b_, code, {a.v, c.v}));
    return Val{y};
  }

  Expected<Val> call(const Expr& e) {
    if (e.builtin && e.name == "arange") {  // the parser checked the literal
      b_.set_loc(stmt_loc_);
      auto n = static_cast<int64_t>(e.args[0]->number);
      MLC_TRY(Value* y, emit_iota(b_, TensorType{DType::i64, {n}}, 0));
      return Val{y};
    }
    std::vector<Value*> args;
    for (const auto& a : e.args) {
      MLC_TRY(Val x, eval(*a));
      if (!x.v)
        return fwd_error(a->loc, squote(e.name) + " expects a tensor, found the number " +
                                     number_text(x));
      args.push_back(x.v);
    }
    if (e.builtin) return builtin(e, args[0]);
    MLC_TRY(Value* y, call_(e.name, std::move(args), e.loc));
    return Val{y};
  }

  Expected<Val> builtin(const Expr& e, Value* x) {
    b_.set_loc(stmt_loc_);
    const TensorType& t = x->type;
    if (!is_float(t.dtype))
      return fwd_error(e.loc, e.name + " expects a float tensor, found " + t.str());
    Expected<Value*> y = Error{};
    if (e.name == "relu") y = emit_op(b_, OpCode::Relu, {x});
    if (e.name == "gelu") y = emit_op(b_, OpCode::Gelu, {x});
    if (e.name == "silu") y = emit_op(b_, OpCode::Silu, {x});
    if (e.name == "tanh") y = emit_op(b_, OpCode::Tanh, {x});
    if (e.name == "sigmoid") y = emit_op(b_, OpCode::Sigmoid, {x});
    if (e.name == "softmax") {
      if (t.rank() == 0) return fwd_error(e.loc, "softmax expects rank >= 1, found " + t.str());
      y = emit_op(b_, OpCode::Softmax, {x}, {{"axis", int64_t{-1}}});
    }
    if (e.name == "flatten") {
      if (t.rank() < 2) return fwd_error(e.loc, "flatten expects rank >= 2, found " + t.str());
      int64_t rest = 1;
      for (int64_t i = 1; i < t.rank(); ++i) rest *= t.shape[i];
      y = emit_reshape(b_, x, {t.shape[0], rest});
    }
    if (!y) return y.take_error();
    return Val{*y};
  }

  Builder& b_;
  const LayerCall& call_;
  std::unordered_map<std::string, Value*> vars_;
  Loc stmt_loc_;
};

}  // namespace

Expected<Value*> run_forward(const ForwardProgram& program, const std::vector<Value*>& inputs,
                             Builder& b, const LayerCall& call_layer) {
  Evaluator ev(b, call_layer);
  return ev.run(program, inputs);
}

}  // namespace mlc
