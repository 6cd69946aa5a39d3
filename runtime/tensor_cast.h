// Element values of host tensors read and converted exactly: what `mlc data`
// prints (min, max, mean) and what `mlc data import --dtype` converts.
#pragma once

#include <cstdint>
#include <string>

#include "ir/expected.h"
#include "runtime/tensor.h"

namespace mlc::rt {

// Element k of `t` as a double (f16, bf16 and f32 exactly; i64 beyond 2^53
// rounded; bool 0 or 1).
double element_as_double(const Tensor& t, int64_t k);

// `t` with dtype `to`, refusing any element that `to` cannot hold as it is:
// a fraction or a value out of range for an integer dtype, a value other
// than 0 and 1 for bool, a finite value beyond a float dtype's range (a float
// dtype rounds to nearest even, as torch's .to() does; NaN and infinities
// stay). i64 to i64 and any dtype to itself copy. The error names `what`,
// the element and its value:
//   "x.npy: error: --dtype i64: element 3 is 2.5, which i64 cannot hold"
Expected<Tensor> cast_exactly(const Tensor& t, DType to, const std::string& what);

}  // namespace mlc::rt
