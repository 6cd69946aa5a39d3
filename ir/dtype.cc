#include "ir/dtype.h"

namespace mlc {

std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::f32: return "f32";
    case DType::f64: return "f64";
    case DType::bf16: return "bf16";
    case DType::f16: return "f16";
    case DType::i32: return "i32";
    case DType::i64: return "i64";
    case DType::boolean: return "bool";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (DType t : kAllDTypes)
    if (dtype_name(t) == name) return t;
  return std::nullopt;
}

int dtype_size(DType t) {
  switch (t) {
    case DType::f64:
    case DType::i64: return 8;
    case DType::f32:
    case DType::i32: return 4;
    case DType::bf16:
    case DType::f16: return 2;
    case DType::boolean: return 1;
  }
  return 0;
}

bool is_half(DType t) { return t == DType::bf16 || t == DType::f16; }

bool is_float(DType t) {
  return t == DType::f32 || t == DType::f64 || t == DType::bf16 || t == DType::f16;
}
bool is_integer(DType t) { return t == DType::i32 || t == DType::i64; }

}  // namespace mlc
