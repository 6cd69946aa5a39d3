#include "ir/attributes.h"

#include <cassert>
#include <charconv>
#include <cmath>

namespace mlc {

std::string_view attr_kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::Int: return "integer";
    case AttrKind::Float: return "float";
    case AttrKind::Bool: return "bool";
    case AttrKind::String: return "string";
    case AttrKind::Ints: return "integer list";
    case AttrKind::Number: return "number or number list";
  }
  return "?";
}

bool attr_has_kind(const AttrValue& v, AttrKind k) {
  switch (k) {
    case AttrKind::Int: return std::holds_alternative<int64_t>(v);
    case AttrKind::Float: return std::holds_alternative<double>(v);
    case AttrKind::Bool: return std::holds_alternative<bool>(v);
    case AttrKind::String: return std::holds_alternative<std::string>(v);
    case AttrKind::Ints: return std::holds_alternative<std::vector<int64_t>>(v);
    case AttrKind::Number:
      return !std::holds_alternative<bool>(v) && !std::holds_alternative<std::string>(v);
  }
  return false;
}

std::string float_to_string(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, x);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
}  // namespace

std::string attr_value_to_string(const AttrValue& v) {
  struct Visitor {
    std::string operator()(int64_t x) const { return std::to_string(x); }
    std::string operator()(double x) const { return float_to_string(x); }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::string& x) const { return quote(x); }
    std::string operator()(const std::vector<int64_t>& xs) const {
      std::string s = "[";
      for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
      return s + "]";
    }
    std::string operator()(const std::vector<double>& xs) const {
      std::string s = "[";
      for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + float_to_string(xs[i]);
      return s + "]";
    }
  };
  return std::visit(Visitor{}, v);
}

const AttrValue* Attrs::find(std::string_view name) const {
  for (const auto& a : list_)
    if (a.name == name) return &a.value;
  return nullptr;
}

void Attrs::set(std::string name, AttrValue value) {
  for (auto& a : list_)
    if (a.name == name) {
      a.value = std::move(value);
      return;
    }
  list_.push_back({std::move(name), std::move(value)});
}

template <class T>
static const T& get_as(const Attrs& attrs, std::string_view name) {
  const AttrValue* v = attrs.find(name);
  assert(v && std::holds_alternative<T>(*v) && "attribute missing or of the wrong kind");
  return std::get<T>(*v);
}

int64_t Attrs::get_int(std::string_view name) const { return get_as<int64_t>(*this, name); }
double Attrs::get_float(std::string_view name) const { return get_as<double>(*this, name); }
bool Attrs::get_bool(std::string_view name) const { return get_as<bool>(*this, name); }
const std::string& Attrs::get_string(std::string_view name) const {
  return get_as<std::string>(*this, name);
}
const std::vector<int64_t>& Attrs::get_ints(std::string_view name) const {
  return get_as<std::vector<int64_t>>(*this, name);
}

}  // namespace mlc
