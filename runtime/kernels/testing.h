// Helpers for tests of kernels and of code that produces tensors: build a
// tensor from a list of values, read one back as doubles. Header-only.
#pragma once

#include <vector>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt::testing {

// A tensor of `dtype` and `shape` holding `values` in row-major order (a single
// value fills the tensor), each converted with one rounding (float -> int
// saturates, -> bool is x != 0).
inline Tensor make_tensor(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t(dtype, std::move(shape));
  kern::visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (int64_t i = 0; i < t.num_elements(); ++i)
      p[i] = kern::convert<T>(values.size() == 1 ? values[0] : values.at(i));
    return 0;
  });
  return t;
}

// The elements as doubles (exact for every dtype but i64 beyond 2^53).
inline std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> out(t.num_elements());
  kern::visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t.data<T>();
    for (size_t i = 0; i < out.size(); ++i) out[i] = kern::convert<double>(p[i]);
    return 0;
  });
  return out;
}

}  // namespace mlc::rt::testing
