// Internal helpers of the reference kernels (runtime/kernels/*.cc): dtype
// dispatch, element conversions and strided iteration. Not part of the runtime
// API.
//
// Dispatch happens once per op: `visit_dtype` calls a generic lambda with a
// Tag<T> for the tensor's element type, and the lambda's loops are then
// compiled for T. Inner loops use plain functors, never virtual calls.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ir/op_table.h"
#include "ir/scalar_math.h"
#include "runtime/half.h"
#include "runtime/kernels/kernels.h"

namespace mlc::rt::kern {

template <class T>
struct Tag {
  using type = T;
};

// Element type of each DType: f32 float, f64 double, bf16, f16, i32 int32_t,
// i64 int64_t, bool bool (one byte, 0 or 1).
template <class F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::f64: return f(Tag<double>{});
    case DType::bf16: return f(Tag<bf16>{});
    case DType::f16: return f(Tag<f16>{});
    case DType::i32: return f(Tag<int32_t>{});
    case DType::i64: return f(Tag<int64_t>{});
    case DType::boolean: return f(Tag<bool>{});
    case DType::f32: break;
  }
  return f(Tag<float>{});
}

// Calls f(Tag<U>{}) with an unsigned integer type of `bytes` bytes (1, 2, 4, 8):
// for kernels that only move elements.
template <class F>
decltype(auto) visit_bytes(int bytes, F&& f) {
  switch (bytes) {
    case 1: return f(Tag<uint8_t>{});
    case 2: return f(Tag<uint16_t>{});
    case 4: return f(Tag<uint32_t>{});
    default: break;
  }
  return f(Tag<uint64_t>{});
}

template <class T>
inline constexpr bool kIsHalf = std::is_same_v<T, bf16> || std::is_same_v<T, f16>;
template <class T>
inline constexpr bool kIsFloat = kIsHalf<T> || std::is_floating_point_v<T>;
template <class T>
inline constexpr bool kIsInt = std::is_same_v<T, int32_t> || std::is_same_v<T, int64_t>;

// The type arithmetic is done in: float for bf16/f16, the type itself otherwise.
template <class T>
using Compute = std::conditional_t<kIsHalf<T>, float, T>;

template <class T>
Compute<T> load(T x) {
  if constexpr (kIsHalf<T>) return x.to_float();
  else return x;
}
template <class T>
T store(Compute<T> x) {
  if constexpr (kIsHalf<T>) return T::from_float(x);
  else return x;
}

// Converts any element or accumulator value to T with one rounding. Unchecked:
// float -> int saturates (NaN -> 0), int -> narrower int wraps, -> bool is x != 0.
template <class T, class S>
T convert(S x) {
  if constexpr (std::is_same_v<T, S>) {
    return x;
  } else if constexpr (kIsHalf<S>) {
    return convert<T>(x.to_float());
  } else if constexpr (std::is_same_v<T, bool>) {
    return x != S(0);
  } else if constexpr (kIsHalf<T>) {
    if constexpr (std::is_same_v<S, float>) return T::from_float(x);
    else return T::from_double(static_cast<double>(x));
  } else if constexpr (kIsInt<T> && std::is_floating_point_v<S>) {
    double d = std::trunc(static_cast<double>(x));
    if (std::isnan(d)) return 0;
    if (d <= static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
    if (d >= -static_cast<double>(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::max();
    return static_cast<T>(d);
  } else {
    return static_cast<T>(x);
  }
}

using scalar::wrap_add;  // two's-complement wrapping (ir/scalar_math.h)

// "<op>: message".
inline Error kernel_error(const Op& op, const std::string& message) {
  return make_error(std::string(op_name(op.code)) + ": " + message);
}
inline Error unsupported_dtype(const Op& op, DType t) {
  return kernel_error(op, "no kernel for dtype " + std::string(dtype_name(t)));
}

// Normalizes a possibly negative axis (already verified to be in range).
inline int64_t norm_axis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

// Row-major strides (in elements) of `shape`.
inline std::vector<int64_t> contiguous_strides(const Shape& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
  return s;
}

// Strides of a tensor of shape `in` read as the numpy broadcast `out` (trailing
// dims aligned): 0 along dims where `in` has size 1 or no dim.
inline std::vector<int64_t> broadcast_strides(const Shape& in, const Shape& out) {
  std::vector<int64_t> s(out.size(), 0);
  std::vector<int64_t> in_strides = contiguous_strides(in);
  size_t offset = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1) s[offset + i] = in_strides[i];
  return s;
}

// `shape` and per-array strides with size-1 dims dropped and neighbouring dims
// merged where they are contiguous in every array (same element order).
template <size_t N>
struct Coalesced {
  Shape dims;
  std::array<std::vector<int64_t>, N> strides;
  bool empty = false;  // some dim has size 0
};

template <size_t N>
Coalesced<N> coalesce(const Shape& shape, const std::array<std::vector<int64_t>, N>& strides) {
  Coalesced<N> c;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) c.empty = true;
    if (shape[d] <= 1) continue;
    bool merge = !c.dims.empty();
    for (size_t k = 0; k < N && merge; ++k) merge = c.strides[k].back() == strides[k][d] * shape[d];
    if (merge) {
      c.dims.back() *= shape[d];
      for (size_t k = 0; k < N; ++k) c.strides[k].back() = strides[k][d];
      continue;
    }
    c.dims.push_back(shape[d]);
    for (size_t k = 0; k < N; ++k) c.strides[k].push_back(strides[k][d]);
  }
  return c;
}

// Visits `shape` in row-major order for N arrays with the given strides (in
// elements), calling f(offsets, n, inner_strides) once per innermost row:
// array k's elements of the row are at offsets[k] + i * inner_strides[k],
// i < n. Dims are coalesced first, so equal-shaped contiguous arrays give one
// call with all inner strides 1. Nothing is called for an empty shape; a 0-d
// shape gives one call with n == 1.
template <size_t N, class F>
void for_each_row(const Shape& shape, const std::array<std::vector<int64_t>, N>& strides, F&& f) {
  Coalesced<N> c = coalesce<N>(shape, strides);
  if (c.empty) return;
  std::array<int64_t, N> off{}, inner{};
  if (c.dims.empty()) {
    f(off, int64_t{1}, inner);
    return;
  }
  const size_t r = c.dims.size();
  for (size_t k = 0; k < N; ++k) inner[k] = c.strides[k][r - 1];
  std::vector<int64_t> idx(r - 1, 0);
  for (;;) {
    f(off, c.dims[r - 1], inner);
    size_t d = r - 1;
    for (;;) {
      if (d == 0) return;
      --d;
      ++idx[d];
      for (size_t k = 0; k < N; ++k) off[k] += c.strides[k][d];
      if (idx[d] < c.dims[d]) break;
      for (size_t k = 0; k < N; ++k) off[k] -= c.strides[k][d] * c.dims[d];
      idx[d] = 0;
    }
  }
}

// Copies elements of type U from `src` (strides src_strides) to `dst` (strides
// dst_strides) over `shape`. When the source is not contiguous along the
// innermost dim (a transpose), the last two dims are copied in 32x32 tiles so
// that both sides stay in cache.
template <class U>
void strided_copy(const Shape& shape, U* dst, const std::vector<int64_t>& dst_strides, const U* src,
                  const std::vector<int64_t>& src_strides) {
  Coalesced<2> c = coalesce<2>(shape, {dst_strides, src_strides});
  const size_t r = c.dims.size();
  if (!c.empty && r >= 2 && c.strides[1][r - 1] > 1) {
    constexpr int64_t kTile = 32;
    const int64_t n0 = c.dims[r - 2], n1 = c.dims[r - 1];
    const int64_t d0 = c.strides[0][r - 2], d1 = c.strides[0][r - 1];
    const int64_t s0 = c.strides[1][r - 2], s1 = c.strides[1][r - 1];
    Shape outer(c.dims.begin(), c.dims.end() - 2);
    std::array<std::vector<int64_t>, 2> outer_strides = {
        std::vector<int64_t>(c.strides[0].begin(), c.strides[0].end() - 2),
        std::vector<int64_t>(c.strides[1].begin(), c.strides[1].end() - 2)};
    for_each_row<2>(outer, outer_strides,
                    [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                      for (int64_t k = 0; k < n; ++k) {
                        U* o = dst + off[0] + k * st[0];
                        const U* x = src + off[1] + k * st[1];
                        for (int64_t i0 = 0; i0 < n0; i0 += kTile)
                          for (int64_t j0 = 0; j0 < n1; j0 += kTile)
                            for (int64_t i = i0; i < std::min(i0 + kTile, n0); ++i)
                              for (int64_t j = j0; j < std::min(j0 + kTile, n1); ++j)
                                o[i * d0 + j * d1] = x[i * s0 + j * s1];
                      }
                    });
    return;
  }
  for_each_row<2>(shape, {dst_strides, src_strides},
                  [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& s) {
                    U* o = dst + off[0];
                    const U* x = src + off[1];
                    if (s[0] == 1 && s[1] == 1) {
                      for (int64_t i = 0; i < n; ++i) o[i] = x[i];
                    } else {
                      for (int64_t i = 0; i < n; ++i) o[i * s[0]] = x[i * s[1]];
                    }
                  });
}

}  // namespace mlc::rt::kern
