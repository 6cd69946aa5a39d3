#include "frontends/json_print.h"

namespace mlc {

namespace {

constexpr size_t kLineWidth = 100;

std::string scalar(const Json& v) { return v.dump(-1, ' ', false); }

// One line: {"a": 1, "b": [2, 3]}.
std::string flat(const Json& v) {
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + flat(v[i]);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      s += (first ? "" : ", ") + scalar(Json(it.key())) + ": " + flat(*it);
      first = false;
    }
    return s + "}";
  }
  return scalar(v);
}

// Objects that hold modules or sections stay one member per line.
bool keep_open(const Json& v) {
  return v.is_object() && (v.contains("layers") || v.contains("block") || v.contains("forward"));
}

// `statements`: a forward's list, one statement per line.
void write(const Json& v, size_t indent, size_t prefix, bool statements, std::string& out) {
  std::string one = flat(v);
  if (!v.is_structured() || v.empty() ||
      (!keep_open(v) && !statements && indent + prefix + one.size() + 1 <= kLineWidth &&
       indent > 0)) {
    out += one;
    return;
  }
  std::string pad(indent + 2, ' ');
  out += v.is_array() ? "[\n" : "{\n";
  size_t i = 0;
  for (auto it = v.begin(); it != v.end(); ++it, ++i) {
    out += pad;
    size_t key = 0;
    if (v.is_object()) {
      std::string k = scalar(Json(it.key())) + ": ";
      out += k;
      key = k.size();
    }
    write(*it, indent + 2, key, v.is_object() && it.key() == "forward" && it->is_array(), out);
    out += i + 1 < v.size() ? ",\n" : "\n";
  }
  out += std::string(indent, ' ') + (v.is_array() ? "]" : "}");
}

}  // namespace

std::string print_model_json(const Json& root) {
  std::string out;
  write(root, 0, 0, false, out);
  return out + "\n";
}

}  // namespace mlc
