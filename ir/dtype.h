// Element types of tensors. The set is closed: every op, kernel and file
// format handles exactly these.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mlc {

enum class DType : uint8_t { f32, f64, bf16, f16, i32, i64, boolean };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f64, DType::bf16, DType::f16,
                                       DType::i32, DType::i64, DType::boolean};

// Textual name used by the IR and model files: "f32", "f64", "bf16", "f16",
// "i32", "i64", "bool".
std::string_view dtype_name(DType t);
std::optional<DType> parse_dtype(std::string_view name);
// Bytes per element.
int dtype_size(DType t);
bool is_float(DType t);    // f32, f64, bf16, f16
bool is_half(DType t);     // bf16, f16
bool is_integer(DType t);  // i32, i64

}  // namespace mlc
