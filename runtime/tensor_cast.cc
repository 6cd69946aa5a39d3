#include "runtime/tensor_cast.h"

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "runtime/half.h"

namespace mlc::rt {

namespace {

std::string value_text(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

}  // namespace

double element_as_double(const Tensor& t, int64_t k) {
  switch (t.dtype()) {
    case DType::f32: return t.data<float>()[k];
    case DType::f64: return t.data<double>()[k];
    case DType::bf16: return static_cast<double>(t.data<bf16>()[k].to_float());
    case DType::f16: return static_cast<double>(t.data<f16>()[k].to_float());
    case DType::i32: return t.data<int32_t>()[k];
    case DType::i64: return static_cast<double>(t.data<int64_t>()[k]);
    case DType::boolean: return t.data<uint8_t>()[k] ? 1.0 : 0.0;
  }
  return 0;
}

Expected<Tensor> cast_exactly(const Tensor& t, DType to, const std::string& what) {
  if (t.dtype() == to) return t;
  Tensor out = Tensor::uninitialized(TensorType{to, t.shape()});
  const std::string to_name(dtype_name(to));
  for (int64_t k = 0; k < t.num_elements(); ++k) {
    const double v = element_as_double(t, k);
    auto refuse = [&] {
      return make_error(what + ": element " + std::to_string(k) + " is " + value_text(v) + ", which " + to_name +
                        " cannot hold");
    };
    switch (to) {
      case DType::f64: out.data<double>()[k] = v; break;
      case DType::f32:
        if (std::isfinite(v) && std::fabs(v) > FLT_MAX) return refuse();
        out.data<float>()[k] = static_cast<float>(v);
        break;
      case DType::bf16:
      case DType::f16: {
        // From f32 (which every source but f64 and i64 is exactly) in one rounding.
        const float f = static_cast<float>(v);
        const uint16_t bits = to == DType::bf16 ? half_detail::float_to_bf16_bits(f) : half_detail::float_to_f16_bits(f);
        const float back = to == DType::bf16 ? half_detail::bf16_bits_to_float(bits) : half_detail::f16_bits_to_float(bits);
        if (std::isfinite(v) && (std::isinf(back) || std::fabs(v) > FLT_MAX)) return refuse();
        std::memcpy(out.bytes() + 2 * k, &bits, 2);
        break;
      }
      case DType::i32:
      case DType::i64: {
        const bool wide = to == DType::i64;
        if (t.dtype() == DType::i64 || t.dtype() == DType::i32) {
          const int64_t i = t.dtype() == DType::i64 ? t.data<int64_t>()[k] : t.data<int32_t>()[k];
          if (!wide && (i < INT32_MIN || i > INT32_MAX)) return refuse();
          if (wide) out.data<int64_t>()[k] = i;
          else out.data<int32_t>()[k] = static_cast<int32_t>(i);
          break;
        }
        const double limit = wide ? 9223372036854775808.0 : 2147483648.0;
        if (!(v == std::trunc(v) && v >= -limit && v < limit)) return refuse();
        if (wide) out.data<int64_t>()[k] = static_cast<int64_t>(v);
        else out.data<int32_t>()[k] = static_cast<int32_t>(v);
        break;
      }
      case DType::boolean:
        if (v != 0 && v != 1) return refuse();
        out.data<uint8_t>()[k] = v == 1;
        break;
    }
  }
  return out;
}

}  // namespace mlc::rt
