// Elementwise kernels: unary math, binary arithmetic (numpy broadcasting),
// compare, select and cast.
//
// Integer semantics: add/sub/mul/neg/abs wrap around (two's complement);
// div truncates toward zero, division by zero is an error, and INT_MIN / -1
// wraps to INT_MIN. max/min propagate NaN (the first NaN operand) and return
// the first operand at a tie. Casts of floats to integers truncate toward zero;
// NaN, +-inf and values whose truncation does not fit the integer type are an
// error; int -> narrower int wraps.
#include <cmath>
#include <functional>

#include "ir/attributes.h"
#include "ir/random.h"
#include "ir/scalar_math.h"
#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

// ---- unary

// Every elementwise op's meaning is ir/scalar_math.h's; these adapt it to the
// loops below (compute type C: float, double or an integer type).
template <OpCode kCode>
struct UnaryF {
  template <class C> C operator()(C x) const {
    scalar::CppScalar<C> h;
    return scalar::unary<kCode>(h, x);
  }
};

template <class F, bool kIntsToo>
Status unary(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T> || (kIntsToo && kIsInt<T>)) {
      // Kernel inputs and results never alias: let the compiler vectorize.
      const T* __restrict x = in[0]->data<T>();
      T* __restrict y = out.data<T>();
      F f;
      for (int64_t i = 0, n = out.num_elements(); i < n; ++i) y[i] = store<T>(f(load(x[i])));
      return {};
    } else {
      return unsupported_dtype(op, out.dtype());
    }
  });
}

// ---- broadcasting loops

// out[i] = f(a[i'], b[i'']) over out's shape, with numpy broadcasting of a and b.
template <class A, class B, class R, class F>
void map2(const Tensor& ta, const Tensor& tb, Tensor& tr, F& f) {
  const A* __restrict pa = ta.data<A>();
  const B* __restrict pb = tb.data<B>();
  R* __restrict pr = tr.data<R>();
  if (ta.shape() == tr.shape() && tb.shape() == tr.shape()) {
    for (int64_t i = 0, n = tr.num_elements(); i < n; ++i) pr[i] = f(pa[i], pb[i]);
    return;
  }
  const Shape& s = tr.shape();
  for_each_row<3>(s, {contiguous_strides(s), broadcast_strides(ta.shape(), s),
                      broadcast_strides(tb.shape(), s)},
                  [&](const std::array<int64_t, 3>& off, int64_t n, const std::array<int64_t, 3>& st) {
                    R* __restrict o = pr + off[0];  // output inner stride is always 1
                    const A* __restrict x = pa + off[1];
                    const B* __restrict y = pb + off[2];
                    if (st[1] == 1 && st[2] == 1) {
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
                    } else if (st[1] == 1 && st[2] == 0) {
                      B v = *y;
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], v);
                    } else if (st[1] == 0 && st[2] == 1) {
                      A v = *x;
                      for (int64_t i = 0; i < n; ++i) o[i] = f(v, y[i]);
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i] = f(x[i * st[1]], y[i * st[2]]);
                    }
                  });
}

// ---- binary arithmetic

// Integer division by zero sets `div_by_zero` (and yields 0); the kernel then fails.
template <OpCode kCode>
struct BinaryF {
  bool div_by_zero = false;
  template <class C> C operator()(C a, C b) {
    scalar::CppScalar<C> h;
    C r = scalar::binary<kCode>(h, a, b);
    div_by_zero |= h.div_by_zero;
    return r;
  }
};

template <class F, bool kIntsToo>
Status binary(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  F f;
  Status st = visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (kIsFloat<T> || (kIntsToo && kIsInt<T>)) {
      auto g = [&f](T a, T b) { return store<T>(f(load(a), load(b))); };
      map2<T, T, T>(*in[0], *in[1], out, g);
      return {};
    } else {
      return unsupported_dtype(op, out.dtype());
    }
  });
  if (st.ok() && f.div_by_zero) return kernel_error(op, "integer division by zero");
  return st;
}

// ---- compare, select

template <class Cmp>
Status compare(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  return visit_dtype(in[0]->dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    auto g = [](T a, T b) { return Cmp{}(load(a), load(b)); };
    map2<T, T, bool>(*in[0], *in[1], out, g);
    return {};
  });
}

template <class T>
void select_impl(const Tensor& p, const Tensor& a, const Tensor& b, Tensor& r) {
  const bool* pp = p.data<bool>();
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pr = r.data<T>();
  const Shape& s = r.shape();
  if (p.shape() == s && a.shape() == s && b.shape() == s) {
    for (int64_t i = 0, n = r.num_elements(); i < n; ++i) pr[i] = pp[i] ? pa[i] : pb[i];
    return;
  }
  for_each_row<4>(s, {contiguous_strides(s), broadcast_strides(p.shape(), s),
                      broadcast_strides(a.shape(), s), broadcast_strides(b.shape(), s)},
                  [&](const std::array<int64_t, 4>& off, int64_t n, const std::array<int64_t, 4>& st) {
                    T* o = pr + off[0];
                    const bool* c = pp + off[1];
                    const T* x = pa + off[2];
                    const T* y = pb + off[3];
                    for (int64_t i = 0; i < n; ++i) o[i] = c[i * st[1]] ? x[i * st[2]] : y[i * st[3]];
                  });
}

// ---- cast

// Converts n elements; float -> int fails on NaN, inf or out-of-range values,
// reporting the offending value in `bad`.
template <class T, class S>
bool cast_elements(const S* in, T* out, int64_t n, double& bad) {
  if constexpr (kIsInt<T> && kIsFloat<S>) {
    const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    for (int64_t i = 0; i < n; ++i) {
      double d = std::trunc(static_cast<double>(load(in[i])));
      if (!(d >= lo && d < -lo)) {
        bad = static_cast<double>(load(in[i]));
        return false;
      }
      out[i] = static_cast<T>(d);
    }
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = convert<T>(in[i]);
  }
  return true;
}

}  // namespace

Status kernel_Neg(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Neg>, true>(op, in, out); }
Status kernel_Abs(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Abs>, true>(op, in, out); }
Status kernel_Exp(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Exp>, false>(op, in, out); }
Status kernel_Log(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Log>, false>(op, in, out); }
Status kernel_Sqrt(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Sqrt>, false>(op, in, out); }
Status kernel_Rsqrt(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Rsqrt>, false>(op, in, out); }
Status kernel_Tanh(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Tanh>, false>(op, in, out); }
Status kernel_Sigmoid(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Sigmoid>, false>(op, in, out); }
Status kernel_Erf(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Erf>, false>(op, in, out); }
Status kernel_Sin(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Sin>, false>(op, in, out); }
Status kernel_Cos(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return unary<UnaryF<OpCode::Cos>, false>(op, in, out); }

Status kernel_Add(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Add>, true>(op, in, out); }
Status kernel_Sub(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Sub>, true>(op, in, out); }
Status kernel_Mul(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Mul>, true>(op, in, out); }
Status kernel_Div(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Div>, true>(op, in, out); }
Status kernel_Max(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Max>, true>(op, in, out); }
Status kernel_Min(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Min>, true>(op, in, out); }
Status kernel_Pow(const Op& op, std::span<const Tensor* const> in, Tensor& out) { return binary<BinaryF<OpCode::Pow>, false>(op, in, out); }

Status kernel_Compare(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const std::string& d = op.attrs.get_string("direction");
  if (d == "eq") return compare<std::equal_to<>>(op, in, out);
  if (d == "ne") return compare<std::not_equal_to<>>(op, in, out);
  if (d == "lt") return compare<std::less<>>(op, in, out);
  if (d == "le") return compare<std::less_equal<>>(op, in, out);
  if (d == "gt") return compare<std::greater<>>(op, in, out);
  if (d == "ge") return compare<std::greater_equal<>>(op, in, out);
  return kernel_error(op, "unknown direction \"" + d + "\"");
}

Status kernel_RandomUniform(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const uint64_t seed = static_cast<uint64_t>(op.attrs.get_int("seed"));
  const uint32_t stream = static_cast<uint32_t>(op.attrs.get_int("stream"));
  auto draw = [&](int64_t index, int64_t step) {
    return random::uniform(static_cast<uint64_t>(index), static_cast<uint64_t>(step), seed, stream);
  };
  map2<int64_t, int64_t, float>(*in[0], *in[1], out, draw);
  return {};
}

Status kernel_Select(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  // Selection only moves elements: dispatch on the element size.
  return visit_bytes(dtype_size(out.dtype()), [&](auto tag) -> Status {
    select_impl<typename decltype(tag)::type>(*in[0], *in[1], *in[2], out);
    return {};
  });
}

Status kernel_Cast(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  double bad = 0;
  bool ok = visit_dtype(in[0]->dtype(), [&](auto from) {
    using S = typename decltype(from)::type;
    return visit_dtype(out.dtype(), [&](auto to) {
      using T = typename decltype(to)::type;
      return cast_elements<T, S>(in[0]->data<S>(), out.data<T>(), out.num_elements(), bad);
    });
  });
  if (!ok)
    return kernel_error(op, "value " + float_to_string(bad) + " of " + in[0]->type().str() +
                                " does not fit " + std::string(dtype_name(out.dtype())));
  return {};
}

}  // namespace mlc::rt
