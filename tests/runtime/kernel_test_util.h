// Helpers for the runtime's tests: build a tensor from a list of values, read
// one back as doubles, evaluate one op through its reference kernel, and
// compare results exactly or within a tolerance. Test-only, header-only.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "runtime/kernels/kernel_util.h"
#include "runtime/kernels/kernels.h"

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

namespace mlc::rt::testing {

inline constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();
using Ints = std::vector<int64_t>;

// Runs one op's reference kernel; a failure is a test failure.
inline Tensor eval(OpCode code, std::vector<const Tensor*> in, Attrs attrs = {},
                   std::optional<TensorType> declared = std::nullopt) {
  auto r = eval_op(code, in, attrs, declared);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(r).value() : Tensor();
}

// The error message of running one op, or "(no error)".
inline std::string eval_error(OpCode code, std::vector<const Tensor*> in, Attrs attrs = {},
                              std::optional<TensorType> declared = std::nullopt) {
  auto r = eval_op(code, in, attrs, declared);
  return r.ok() ? "(no error)" : r.error().message;
}

// Exact comparison (NaN equals NaN; the sign of zero is not checked).
inline void expect_values(const Tensor& t, const TensorType& type, const std::vector<double>& want) {
  ASSERT_EQ(t.type(), type);
  std::vector<double> got = to_doubles(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "element " << i;
    else EXPECT_EQ(got[i], want[i]) << "element " << i;
  }
}

inline void expect_near(const Tensor& t, const TensorType& type, const std::vector<double>& want,
                        double tol) {
  ASSERT_EQ(t.type(), type);
  std::vector<double> got = to_doubles(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

}  // namespace mlc::rt::testing
