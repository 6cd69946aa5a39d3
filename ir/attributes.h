// Op attributes: a small ordered list of named, typed constants.
//
// Text form (printer/parser): `{stride = [1, 1], eps = 1.0e-05, direction = "lt",
// keepdim = false}`. Ints print without a decimal point; floats always print
// with one (or an exponent, `inf`, `-inf`, `nan`) so the two never mix up.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mlc {

enum class AttrKind : uint8_t { Int, Float, Bool, String, Ints, Number };
// Number: an integer, a float, or a list of either (a constant's value: splat or dense).

using AttrValue =
    std::variant<int64_t, double, bool, std::string, std::vector<int64_t>, std::vector<double>>;

std::string_view attr_kind_name(AttrKind k);
// Does `v` have kind `k`?
bool attr_has_kind(const AttrValue& v, AttrKind k);
// Text of a value as the printer writes it.
std::string attr_value_to_string(const AttrValue& v);
// Shortest text that reads back as exactly `x`, always recognizable as a float.
std::string float_to_string(double x);

struct NamedAttr {
  std::string name;
  AttrValue value;
  friend bool operator==(const NamedAttr&, const NamedAttr&) = default;
};

// Ordered by the op's attribute schema once the op is built (Builder fills defaults).
class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<NamedAttr> list) : list_(list) {}

  bool has(std::string_view name) const { return find(name) != nullptr; }
  const AttrValue* find(std::string_view name) const;
  void set(std::string name, AttrValue value);

  // Typed getters; the op's verifier guarantees the kind, so these assert.
  int64_t get_int(std::string_view name) const;
  double get_float(std::string_view name) const;
  bool get_bool(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;
  const std::vector<int64_t>& get_ints(std::string_view name) const;

  const std::vector<NamedAttr>& list() const { return list_; }
  std::vector<NamedAttr>& list() { return list_; }
  bool empty() const { return list_.empty(); }
  friend bool operator==(const Attrs&, const Attrs&) = default;

 private:
  std::vector<NamedAttr> list_;
};

}  // namespace mlc
