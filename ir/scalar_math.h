// The scalar meaning of every elementwise op, defined once.
//
// Each definition is written against a handler H that supplies primitive
// operations on its value type (Inductor's `ops.*` handlers work this way):
// the reference kernels instantiate it with C++ numbers (CppScalar below), the
// constant folder with the same, and the LLVM emitter with IR values. Nothing
// else spells out what sigmoid, rsqrt or max mean.
//
// Handler contract (V = H::Value, B = H::Bool), all in the op's compute type
// (float for f32/bf16/f16, double for f64, the integer type itself for ints):
//   static constexpr bool kFloat;          is the compute type floating point?
//   V constant(double c);                  c converted to the compute type
//   V add(V, V), sub, mul, div, neg(V)      IEEE for floats; ints wrap around
//                                           (two's complement); integer div
//                                           truncates toward zero and is the
//                                           handler's to check for b == 0
//   V fabs(V), exp, log, sqrt, tanh, erf, sin, cos, pow(V, V)   floats only
//   B is_nan(V);  B cmp(CmpDir, V, V);     ordered IEEE comparisons
//   V select(B, V, V)
// Handlers must not reassociate or contract (no fast-math): a definition is
// the exact sequence of roundings every consumer reproduces.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "ir/op_code.h"

namespace mlc::scalar {

enum class CmpDir : uint8_t { eq, ne, lt, le, gt, ge };
// The direction attribute of `compare` ("eq", ...); the verifier allows nothing else.
inline CmpDir parse_direction(std::string_view d) {
  if (d == "eq") return CmpDir::eq;
  if (d == "ne") return CmpDir::ne;
  if (d == "lt") return CmpDir::lt;
  if (d == "le") return CmpDir::le;
  if (d == "gt") return CmpDir::gt;
  return CmpDir::ge;
}

// Two's-complement arithmetic without undefined behaviour.
template <class T> T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}
template <class T> T wrap_sub(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) - static_cast<U>(b));
}
template <class T> T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// ---- the definitions

template <OpCode kCode, class H>
typename H::Value unary(H& h, typename H::Value x) {
  if constexpr (kCode == OpCode::Neg) {
    return h.neg(x);
  } else if constexpr (kCode == OpCode::Abs) {
    if constexpr (H::kFloat) return h.fabs(x);
    else return h.select(h.cmp(CmpDir::lt, x, h.constant(0)), h.neg(x), x);
  } else if constexpr (kCode == OpCode::Exp) {
    return h.exp(x);
  } else if constexpr (kCode == OpCode::Log) {
    return h.log(x);
  } else if constexpr (kCode == OpCode::Sqrt) {
    return h.sqrt(x);
  } else if constexpr (kCode == OpCode::Rsqrt) {
    return h.div(h.constant(1), h.sqrt(x));
  } else if constexpr (kCode == OpCode::Tanh) {
    return h.tanh(x);
  } else if constexpr (kCode == OpCode::Erf) {
    return h.erf(x);
  } else if constexpr (kCode == OpCode::Sin) {
    return h.sin(x);
  } else if constexpr (kCode == OpCode::Cos) {
    return h.cos(x);
  } else if constexpr (kCode == OpCode::Sigmoid) {
    // Stable on both sides: exp only ever sees -|x|. For x >= 0 this is
    // 1 / (1 + exp(-x)); for x < 0, e / (1 + e) with e = exp(x).
    auto e = h.exp(h.neg(h.fabs(x)));
    auto one_plus_e = h.add(h.constant(1), e);
    return h.select(h.cmp(CmpDir::ge, x, h.constant(0)), h.div(h.constant(1), one_plus_e),
                    h.div(e, one_plus_e));
  } else {
    static_assert(kCode == OpCode::Neg, "not a unary elementwise op");
  }
}

template <OpCode kCode, class H>
typename H::Value binary(H& h, typename H::Value a, typename H::Value b) {
  if constexpr (kCode == OpCode::Add) {
    return h.add(a, b);
  } else if constexpr (kCode == OpCode::Sub) {
    return h.sub(a, b);
  } else if constexpr (kCode == OpCode::Mul) {
    return h.mul(a, b);
  } else if constexpr (kCode == OpCode::Div) {
    return h.div(a, b);
  } else if constexpr (kCode == OpCode::Pow) {
    return h.pow(a, b);
  } else if constexpr (kCode == OpCode::Max || kCode == OpCode::Min) {
    // NaN propagates (the first NaN operand); at a tie the first operand wins.
    constexpr CmpDir keep_a = kCode == OpCode::Max ? CmpDir::ge : CmpDir::le;
    auto r = h.select(h.cmp(keep_a, a, b), a, b);
    if constexpr (H::kFloat) r = h.select(h.is_nan(a), a, h.select(h.is_nan(b), b, r));
    return r;
  } else {
    static_assert(kCode == OpCode::Add, "not a binary elementwise op");
  }
}

// Run-time dispatch over the same definitions (for emitters, which see the op
// code as data). Returns false for codes that are not unary/binary math.
template <class H>
bool unary_dispatch(H& h, OpCode code, typename H::Value x, typename H::Value& out) {
  switch (code) {
#define MLC_UNARY(E) case OpCode::E: out = unary<OpCode::E>(h, x); return true;
    MLC_UNARY(Neg) MLC_UNARY(Abs)
#undef MLC_UNARY
#define MLC_UNARY(E) case OpCode::E: if constexpr (H::kFloat) { out = unary<OpCode::E>(h, x); return true; } return false;
    MLC_UNARY(Exp) MLC_UNARY(Log) MLC_UNARY(Sqrt) MLC_UNARY(Rsqrt) MLC_UNARY(Tanh)
    MLC_UNARY(Erf) MLC_UNARY(Sin) MLC_UNARY(Cos) MLC_UNARY(Sigmoid)
#undef MLC_UNARY
    default: return false;
  }
}

template <class H>
bool binary_dispatch(H& h, OpCode code, typename H::Value a, typename H::Value b,
                     typename H::Value& out) {
  switch (code) {
#define MLC_BINARY(E) case OpCode::E: out = binary<OpCode::E>(h, a, b); return true;
    MLC_BINARY(Add) MLC_BINARY(Sub) MLC_BINARY(Mul) MLC_BINARY(Div) MLC_BINARY(Max) MLC_BINARY(Min)
#undef MLC_BINARY
    case OpCode::Pow:
      if constexpr (H::kFloat) {
        out = binary<OpCode::Pow>(h, a, b);
        return true;
      }
      return false;
    default: return false;
  }
}

// ---- the C++ handler: compute type C (float, double, int32_t, int64_t)

// Integer division by zero yields 0 and sets `div_by_zero`; INT_MIN / -1 wraps.
template <class C>
struct CppScalar {
  using Value = C;
  using Bool = bool;
  static constexpr bool kFloat = std::is_floating_point_v<C>;
  bool div_by_zero = false;

  C constant(double c) const { return static_cast<C>(c); }
  C add(C a, C b) const {
    if constexpr (kFloat) return a + b;
    else return wrap_add(a, b);
  }
  C sub(C a, C b) const {
    if constexpr (kFloat) return a - b;
    else return wrap_sub(a, b);
  }
  C mul(C a, C b) const {
    if constexpr (kFloat) return a * b;
    else return wrap_mul(a, b);
  }
  C neg(C x) const {
    if constexpr (kFloat) return -x;
    else return wrap_sub(C(0), x);
  }
  C div(C a, C b) {
    if constexpr (kFloat) {
      return a / b;
    } else {
      if (b == 0) {
        div_by_zero = true;
        return 0;
      }
      if (b == -1) return neg(a);
      return a / b;
    }
  }
  C fabs(C x) const { return std::fabs(x); }
  C exp(C x) const { return std::exp(x); }
  C log(C x) const { return std::log(x); }
  C sqrt(C x) const { return std::sqrt(x); }
  C tanh(C x) const { return std::tanh(x); }
  C erf(C x) const { return std::erf(x); }
  C sin(C x) const { return std::sin(x); }
  C cos(C x) const { return std::cos(x); }
  C pow(C a, C b) const { return std::pow(a, b); }
  bool is_nan(C x) const {
    if constexpr (kFloat) return std::isnan(x);
    else return false;
  }
  bool cmp(CmpDir d, C a, C b) const {
    switch (d) {
      case CmpDir::eq: return a == b;
      case CmpDir::ne: return a != b;
      case CmpDir::lt: return a < b;
      case CmpDir::le: return a <= b;
      case CmpDir::gt: return a > b;
      case CmpDir::ge: break;
    }
    return a >= b;
  }
  C select(bool p, C a, C b) const { return p ? a : b; }
};

}  // namespace mlc::scalar
