// Static tensor types: a dtype and a shape. `f32[32,1,8,8]`, `i64[]` (0-d).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace mlc {

using Shape = std::vector<int64_t>;

// Largest element count a tensor may have (2^40). Keeps every byte count far
// from int64 overflow, and turns absurd model files into clear errors.
inline constexpr int64_t kMaxElements = int64_t{1} << 40;

// Largest rank a tensor may have (docs/limits.md): far above any model's,
// and it keeps every type, and so every message that prints one, short.
inline constexpr size_t kMaxRank = 16;

// Element count, or nullopt if a dim is negative or the product exceeds kMaxElements.
std::optional<int64_t> checked_num_elements(const Shape& shape);
// Element count of a shape already known to be valid.
int64_t num_elements(const Shape& shape);
std::string shape_to_string(const Shape& shape);  // "[32,1,8,8]"

struct TensorType {
  DType dtype = DType::f32;
  Shape shape;

  int64_t rank() const { return static_cast<int64_t>(shape.size()); }
  int64_t num_elements() const { return mlc::num_elements(shape); }
  int64_t num_bytes() const { return num_elements() * dtype_size(dtype); }
  std::string str() const;  // "f32[32,1,8,8]"
  friend bool operator==(const TensorType&, const TensorType&) = default;
};

}  // namespace mlc
