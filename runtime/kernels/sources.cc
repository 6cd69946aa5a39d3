// Source kernels (no operands): iota and constant. The result type is the
// op's declared type.
//
// constant's value is an int, a float, or a list of num_elements of either;
// it is converted to the result dtype with one rounding (ints into i32 wrap;
// floats into bf16/f16 round to nearest even from the double value).
#include <variant>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

template <class T, class V>
void fill_from(const V& value, T* out, int64_t n) {
  if constexpr (std::is_arithmetic_v<V>) {
    T v = convert<T>(value);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i) out[i] = convert<T>(value[i]);
  }
}
}  // namespace

Status kernel_Iota(const Op& op, std::span<const Tensor* const>, Tensor& out) {
  int64_t dim = op.attrs.get_int("dim");
  const Shape& s = out.shape();
  int64_t outer = 1, n = s[dim], inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s[d];
  for (int64_t d = dim + 1; d < out.rank(); ++d) inner *= s[d];
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t k = 0; k < n; ++k) {
        T v = convert<T>(k);
        T* row = p + (o * n + k) * inner;
        for (int64_t j = 0; j < inner; ++j) row[j] = v;
      }
    return {};
  });
}

Status kernel_Constant(const Op& op, std::span<const Tensor* const>, Tensor& out) {
  const AttrValue& value = *op.attrs.find("value");
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    T* p = out.data<T>();
    int64_t n = out.num_elements();
    if (auto* i = std::get_if<int64_t>(&value)) fill_from<T>(*i, p, n);
    else if (auto* f = std::get_if<double>(&value)) fill_from<T>(*f, p, n);
    else if (auto* is = std::get_if<std::vector<int64_t>>(&value)) fill_from<T>(*is, p, n);
    else if (auto* fs = std::get_if<std::vector<double>>(&value)) fill_from<T>(*fs, p, n);
    else return kernel_error(op, "value must be a number or a list of numbers");
    return {};
  });
}

}  // namespace mlc::rt
