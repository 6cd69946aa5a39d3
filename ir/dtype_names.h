// The dtype names model files and `mlc data --dtype` accept: the IR's
// (ir/dtype.h) and PyTorch's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "ir/dtype.h"

namespace mlc {

// parse_dtype's names and PyTorch's (torch.float32 is "float32" or "float",
// torch.long "int64" or "long", torch.half "float16" or "half", ...).
std::optional<DType> parse_dtype_or_torch_name(std::string_view name);
// Every name parse_dtype_or_torch_name accepts, for messages:
// "f32, f64, bf16, f16, i32, i64, bool, or PyTorch's float32, float, ...".
std::string accepted_dtype_names();

}  // namespace mlc
