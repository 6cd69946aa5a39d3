#include "passes/fold_constants.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <variant>
#include <vector>

#include "ir/scalar_math.h"

namespace mlc {

namespace {

// ---- elements of a dtype

// Rounds finite `d` to nearest even in a binary format with `precision`
// significand bits (implicit bit included), smallest normal exponent `min_exp`
// and largest finite value `max_finite`; overflow gives +-inf.
double round_to_format(double d, int precision, int min_exp, double max_finite) {
  if (!std::isfinite(d) || d == 0) return d;
  // d's binary exponent, clamped to the normal range (below it the format is
  // subnormal: the last kept bit stays at 2^(min_exp - precision + 1)).
  int e = std::max(std::ilogb(d), min_exp);
  double scaled = std::ldexp(d, precision - 1 - e);  // exact: a power-of-two scaling
  double r = std::ldexp(std::nearbyint(scaled), e - (precision - 1));  // ties to even
  if (std::fabs(r) > max_finite) return std::copysign(std::numeric_limits<double>::infinity(), d);
  return r;
}

// A double rounded to the float dtype `t`, with the runtime's one rounding.
double round_float(double d, DType t) {
  switch (t) {
    case DType::f32: return static_cast<float>(d);
    case DType::bf16: return round_to_format(d, 8, -126, 0x1.fep127);
    case DType::f16: return round_to_format(d, 11, -14, 65504.0);
    default: return d;
  }
}

// An integer converted to dtype `t` as the kernels' convert<T>(int64) does.
Splat from_int(int64_t x, DType t) {
  Splat s{t};
  if (t == DType::f32) s.f = static_cast<float>(x);  // one rounding, not via double
  else if (is_float(t)) s.f = round_float(static_cast<double>(x), t);
  else if (t == DType::i32) s.i = static_cast<int32_t>(x);  // wraps (C++20)
  else if (t == DType::boolean) s.i = x != 0;
  else s.i = x;
  return s;
}

Splat from_float(double x, DType t) {
  Splat s{t};
  s.f = round_float(x, t);
  return s;
}


// Bitwise equality of elements, except that all NaNs are equal.
bool same_element(const Splat& a, const Splat& b) {
  if (a.dtype != b.dtype) return false;
  if (!is_float(a.dtype)) return a.i == b.i;
  if (std::isnan(a.f) || std::isnan(b.f)) return std::isnan(a.f) && std::isnan(b.f);
  return a.f == b.f && std::signbit(a.f) == std::signbit(b.f);
}

// Shortest decimal (as a double) that rounds to the element `x` of dtype `t`.
double shortest_equivalent(double x, DType t) {
  if (!std::isfinite(x) || t == DType::f64) return x;  // f64 already prints shortest
  for (int digits = 1; digits <= 17; ++digits) {
    char buf[40];
    auto res = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, digits);
    double d = 0;
    std::from_chars(buf, res.ptr, d);
    if (round_float(d, t) == x && std::signbit(d) == std::signbit(x)) return d;
  }
  return x;
}

// ---- elementwise math: ir/scalar_math.h's definitions, in the kernels'
// compute type C (float or double; int64 for integers, wrapped to the dtype
// by from_int, which equals wrapping in the narrower type)

template <class C>
std::optional<C> unary_math(OpCode code, C x) {
  scalar::CppScalar<C> h;
  C r;
  if (!scalar::unary_dispatch(h, code, x, r)) return std::nullopt;
  return r;
}

template <class C>
std::optional<C> binary_math(OpCode code, C a, C b) {
  scalar::CppScalar<C> h;
  C r;
  if (!scalar::binary_dispatch(h, code, a, b, r)) return std::nullopt;
  if (h.div_by_zero) return std::nullopt;  // a runtime error: keep it
  return r;
}

// Runs `math(c)` with c of the compute type of float dtype `t` and rounds the
// result to `t`.
template <class F>
std::optional<Splat> in_compute_type(DType t, F math) {
  if (t == DType::f64) {
    std::optional<double> r = math(double{});
    if (r) return from_float(*r, t);
  } else {
    std::optional<float> r = math(float{});
    if (r) return from_float(*r, t);
  }
  return std::nullopt;
}

std::optional<Splat> fold_unary(OpCode code, const Splat& x) {
  if (is_float(x.dtype))
    return in_compute_type(x.dtype, [&](auto c) {
      return unary_math(code, static_cast<decltype(c)>(x.f));
    });
  if (auto r = unary_math<int64_t>(code, x.i)) return from_int(*r, x.dtype);
  return std::nullopt;
}

std::optional<Splat> fold_binary(OpCode code, const Splat& a, const Splat& b) {
  if (is_float(a.dtype))
    return in_compute_type(a.dtype, [&](auto c) {
      using C = decltype(c);
      return binary_math(code, static_cast<C>(a.f), static_cast<C>(b.f));
    });
  if (auto r = binary_math<int64_t>(code, a.i, b.i)) return from_int(*r, a.dtype);
  return std::nullopt;
}

template <class T>
bool compare_values(const std::string& direction, T a, T b) {
  if (direction == "eq") return a == b;
  if (direction == "ne") return a != b;
  if (direction == "lt") return a < b;
  if (direction == "le") return a <= b;
  if (direction == "gt") return a > b;
  return a >= b;  // "ge" (the verifier allows nothing else)
}

// Elements are exact in double, so comparing doubles equals comparing in the
// kernels' compute type.
Splat fold_compare(const Op& op, const Splat& a, const Splat& b) {
  const std::string& direction = op.attrs.get_string("direction");
  bool r = is_float(a.dtype) ? compare_values(direction, a.f, b.f)
                             : compare_values(direction, a.i, b.i);
  return from_int(r, DType::boolean);
}

// cast: float -> int truncates and fails (not folded) on NaN, inf or out of
// range; -> bool is x != 0; everything else is one rounding to the target.
std::optional<Splat> fold_cast(const Splat& x, DType to) {
  if (!is_float(x.dtype)) return from_int(x.i, to);
  if (to == DType::boolean) return from_int(x.f != 0, to);
  if (is_float(to)) return from_float(x.f, to);
  double lo = to == DType::i32 ? -0x1p31 : -0x1p63;
  double d = std::trunc(x.f);
  if (!(d >= lo && d < -lo)) return std::nullopt;
  return from_int(static_cast<int64_t>(d), to);
}

// ---- data movement and reductions

// pad's fill value converted to dtype `t` as the pad kernel does (convert<T>(double)).
Splat pad_fill(double value, DType t) {
  if (is_float(t)) return from_float(value, t);
  if (t == DType::boolean) return from_int(value != 0, t);
  // Saturating truncation; NaN -> 0 (kern::convert).
  double d = std::trunc(value);
  double lo = t == DType::i32 ? -0x1p31 : -0x1p63;
  int64_t hi = t == DType::i32 ? std::numeric_limits<int32_t>::max() : std::numeric_limits<int64_t>::max();
  if (std::isnan(d)) return from_int(0, t);
  if (d <= lo) return from_int(static_cast<int64_t>(lo), t);
  if (d >= -lo) return from_int(hi, t);
  return from_int(static_cast<int64_t>(d), t);
}

std::optional<Splat> fold_pad(const Op& op, const Splat& x) {
  bool pads = false;
  for (const char* side : {"low", "high"})
    for (int64_t n : op.attrs.get_ints(side)) pads |= n != 0;
  if (!pads || same_element(pad_fill(op.attrs.get_float("value"), x.dtype), x)) return x;
  return std::nullopt;
}

std::optional<Splat> fold_concat(const std::vector<Splat>& in) {
  for (const Splat& s : in)
    if (!same_element(s, in[0])) return std::nullopt;
  return in[0];
}

// Number of input elements that fold into each result element.
int64_t reduced_count(const Op& op) {
  const Shape& shape = op.operands[0]->type.shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  int64_t n = 1;
  for (int64_t d : op.attrs.get_ints("dims")) n *= shape[d < 0 ? d + rank : d];
  return n;
}

// Is adding `x` to a double accumulator n times exact at every step?
bool exact_repeated_sum(double x, int64_t n) {
  int exponent = 0;
  double fraction = std::frexp(std::fabs(x), &exponent);  // [0.5, 1)
  auto mantissa = static_cast<uint64_t>(std::ldexp(fraction, 53));
  while (mantissa != 0 && (mantissa & 1) == 0) mantissa >>= 1;
  return mantissa == 0 || static_cast<uint64_t>(n) < (uint64_t{1} << 53) / mantissa;
}

std::optional<Splat> fold_reduce_sum(const Op& op, const Splat& x) {
  int64_t n = reduced_count(op);
  if (!is_float(x.dtype)) return from_int(scalar::wrap_mul(x.i, n), x.dtype);
  if (n == 0) return from_float(0.0, x.dtype);
  if (!std::isfinite(x.f)) return x;
  if (!exact_repeated_sum(x.f, n)) return std::nullopt;
  // Exact, like every partial sum; 0.0 + makes a -0.0 sum +0.0 as the kernel's does.
  double sum = 0.0 + x.f * static_cast<double>(n);
  if (!std::isfinite(sum)) return std::nullopt;
  return from_float(sum, x.dtype);
}

// ---- dispatch

std::optional<Splat> retyped(const Splat& x, const Op& op) {
  Splat s = x;
  s.dtype = op.result()->type.dtype;
  return s;
}

std::optional<Splat> fold_op(const Op& op, const std::vector<Splat>& in) {
  switch (op.code) {
    case OpCode::Neg:
    case OpCode::Abs:
    case OpCode::Exp:
    case OpCode::Log:
    case OpCode::Sqrt:
    case OpCode::Rsqrt:
    case OpCode::Tanh:
    case OpCode::Sigmoid:
    case OpCode::Erf:
    case OpCode::Sin:
    case OpCode::Cos: return fold_unary(op.code, in[0]);
    case OpCode::Add:
    case OpCode::Sub:
    case OpCode::Mul:
    case OpCode::Div:
    case OpCode::Max:
    case OpCode::Min:
    case OpCode::Pow: return fold_binary(op.code, in[0], in[1]);
    case OpCode::Compare: return fold_compare(op, in[0], in[1]);
    case OpCode::Select: return retyped(in[0].i != 0 ? in[1] : in[2], op);
    case OpCode::Cast: return fold_cast(in[0], op.result()->type.dtype);
    case OpCode::Broadcast:
    case OpCode::Reshape:
    case OpCode::Transpose:
    case OpCode::Slice:
    case OpCode::ReduceMax:
    case OpCode::ReduceMin: return retyped(in[0], op);
    case OpCode::Pad: return fold_pad(op, in[0]);
    case OpCode::Concat: return fold_concat(in);
    case OpCode::ReduceSum: return fold_reduce_sum(op, in[0]);
    case OpCode::Argmax: return from_int(0, DType::i64);
    default: return std::nullopt;
  }
}

// The splat elements of op's operands, or nullopt if an operand is not a splat.
std::optional<std::vector<Splat>> splat_operands(const Op& op) {
  std::vector<Splat> in;
  for (const Value* v : op.operands) {
    auto s = splat_value(v);
    if (!s) return std::nullopt;
    in.push_back(*s);
  }
  return in;
}

}  // namespace

std::optional<Splat> splat_value(const Value* v) {
  if (!v->producer || v->producer->code != OpCode::Constant) return std::nullopt;
  const AttrValue* value = v->producer->attrs.find("value");
  if (!value) return std::nullopt;
  DType t = v->type.dtype;
  if (auto* i = std::get_if<int64_t>(value)) return from_int(*i, t);
  if (auto* d = std::get_if<double>(value); d && is_float(t)) return from_float(*d, t);
  return std::nullopt;
}

AttrValue splat_attr(const Splat& s) {
  if (is_float(s.dtype)) return shortest_equivalent(s.f, s.dtype);
  return s.i;
}

bool fold_constants(Function& f) {
  bool changed = false;
  for (auto& op_ptr : f.ops) {
    Op& op = *op_ptr;
    if (op.operands.empty()) continue;
    auto in = splat_operands(op);
    if (!in) continue;
    auto folded = fold_op(op, *in);
    if (!folded) continue;
    op.code = OpCode::Constant;
    op.operands.clear();
    op.attrs = Attrs{{"value", splat_attr(*folded)}};
    changed = true;
  }
  return changed;
}

Expected<bool> FoldConstantsPass::run(Module& module) {
  return rewrite_each_function(module, fold_constants);
}

}  // namespace mlc
