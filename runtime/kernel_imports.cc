#include "runtime/kernel_imports.h"

#include <algorithm>
#include <iterator>

namespace mlc::rt {

namespace {

bool is_lower_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// libm functions of a double, each also with the float suffix 'f'.
constexpr std::string_view kMath[] = {"exp",   "exp2",  "exp10", "expm1", "log",   "log2",   "log10", "log1p",
                                      "sin",   "cos",   "tan",   "sincos", "pow",  "tanh",   "erf",   "sqrt",
                                      "cbrt",  "fabs",  "fmax",  "fmin",  "fmod",  "ldexp",  "floor", "ceil",
                                      "trunc", "round", "rint",  "nearbyint"};

bool is_math(std::string_view name) {
  if (std::find(std::begin(kMath), std::end(kMath), name) != std::end(kMath)) return true;
  return name.size() > 1 && name.back() == 'f' &&
         std::find(std::begin(kMath), std::end(kMath), name.substr(0, name.size() - 1)) != std::end(kMath);
}

// _ZGV <isa b|c|d|e> <mask N|M> <lanes> <one 'v' per argument> _ <math function>.
bool is_vector_math(std::string_view name) {
  constexpr std::string_view kPrefix = "_ZGV";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  size_t i = kPrefix.size();
  if (i + 2 > name.size() || std::string_view("bcde").find(name[i]) == std::string_view::npos ||
      (name[i + 1] != 'N' && name[i + 1] != 'M'))
    return false;
  i += 2;
  const size_t lanes = i;
  while (i < name.size() && is_digit(name[i])) ++i;
  if (i == lanes) return false;
  const size_t args = i;
  while (i < name.size() && name[i] == 'v') ++i;
  if (i == args || i >= name.size() || name[i] != '_') return false;
  return is_math(name.substr(i + 1));
}

}  // namespace

bool is_kernel_symbol(std::string_view name) {
  constexpr std::string_view kPrefix = "mlc_kernel_";
  if (name.size() < kPrefix.size() + 16 || name.substr(0, kPrefix.size()) != kPrefix) return false;
  const std::string_view hash = name.substr(kPrefix.size(), 16), rest = name.substr(kPrefix.size() + 16);
  return std::all_of(hash.begin(), hash.end(), is_lower_hex) &&
         std::all_of(rest.begin(), rest.end(), [](char c) { return c == '_'; });
}

bool is_kernel_import(std::string_view name) {
  return name == "memset" || name == "memcpy" || name == "memmove" || is_math(name) || is_vector_math(name);
}

}  // namespace mlc::rt
