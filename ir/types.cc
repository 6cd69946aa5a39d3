#include "ir/types.h"

namespace mlc {

std::optional<int64_t> checked_num_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > kMaxElements / d) return std::nullopt;
    n *= d;
  }
  return n;
}

int64_t num_elements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_to_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string TensorType::str() const {
  return std::string(dtype_name(dtype)) + shape_to_string(shape);
}

}  // namespace mlc
