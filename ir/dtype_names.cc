#include "ir/dtype_names.h"

#include <utility>

namespace mlc {

namespace {
// torch's dtype attributes that have an mlc dtype (torch.float32, torch.float, ...).
constexpr std::pair<std::string_view, DType> kTorchDTypes[] = {
    {"float32", DType::f32},   {"float", DType::f32},   {"float64", DType::f64}, {"double", DType::f64},
    {"bfloat16", DType::bf16}, {"float16", DType::f16}, {"half", DType::f16},    {"int32", DType::i32},
    {"int", DType::i32},       {"int64", DType::i64},   {"long", DType::i64},    {"bool", DType::boolean}};
}  // namespace

std::optional<DType> parse_dtype_or_torch_name(std::string_view name) {
  if (auto d = parse_dtype(name)) return d;
  for (const auto& [torch_name, d] : kTorchDTypes)
    if (torch_name == name) return d;
  return std::nullopt;
}

std::string accepted_dtype_names() {
  std::string s;
  for (DType t : kAllDTypes) s += std::string(dtype_name(t)) + ", ";
  s += "or PyTorch's";
  for (const auto& [torch_name, d] : kTorchDTypes)
    if (torch_name != "bool") s += std::string(s.ends_with("PyTorch's") ? " " : ", ") + std::string(torch_name);
  return s;
}

}  // namespace mlc
