#include "frontends/dsl_print.h"

#include "frontends/dsl_signatures.h"
#include "frontends/forward_expr.h"
#include "ir/dtype_names.h"

namespace mlc {

namespace {

bool is_word(std::string_view s) { return is_identifier(s); }

// Words the parser reads as something other than a string.
bool is_literal_word(std::string_view s) {
  return s == "True" || s == "False" || s == "None" || s == "true" || s == "false" ||
         s == "null";
}

bool is_bare_string(std::string_view s) {
  if (is_word(s)) return !is_literal_word(s) && s != "nn";
  // name[...]: a tensor slice, unless `name` is a dtype (that reads as a type).
  size_t open = s.find('[');
  if (open == std::string_view::npos || !is_word(s.substr(0, open)) || s.back() != ']' ||
      parse_dtype_or_torch_name(s.substr(0, open)) || s.substr(0, open) == "nn")
    return false;
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' || c == '#' || c == '\'' || static_cast<unsigned char>(c) < 0x20 ||
        static_cast<unsigned char>(c) >= 0x7F)
      return false;
    if (c == '(' || c == '{' || c == ')' || c == '}') return false;
    if (c == '[') ++depth;
    if (c == ']' && --depth == 0 && i + 1 != s.size()) return false;
  }
  return depth == 0;
}

bool is_bare_key(std::string_view s) {
  if (is_word(s)) return !is_literal_word(s);
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::string quoted(const std::string& s) { return Json(s).dump(-1, ' ', false); }

std::string key_text(const std::string& k) { return is_bare_key(k) ? k : quoted(k); }

// A statement the parser gives back unchanged from one line.
bool is_line_statement(const Json& j) {
  if (!j.is_string()) return false;
  const auto& s = j.get_ref<const std::string&>();
  if (s.empty() || s.front() == ' ' || s.back() == ' ' || s.front() == '\t' || s.back() == '\t')
    return false;
  char open = 0;  // the quote of a string literal ('sum') the statement is inside
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '#' || c == '\\' || (static_cast<unsigned char>(c) < 0x20 && c != '\t'))
      return false;
    if (c == '"' || c == '\'') open = open == 0 ? c : open == c ? 0 : open;
  }
  return open == 0;
}

bool callable(const Json& v) {
  if (!v.is_object() || v.empty()) return false;
  auto it = v.begin();
  if (it.key() != "type" || !it->is_string() || !is_word(it->get_ref<const std::string&>()) ||
      it->get_ref<const std::string&>() == "nn" || is_literal_word(it->get_ref<const std::string&>()))
    return false;
  for (++it; it != v.end(); ++it)
    if (!is_word(it.key()) || is_literal_word(it.key()) || it.key() == "type") return false;
  return true;
}

bool is_tensor_type(const Json& v) {
  if (!v.is_object() || v.size() != 2) return false;
  auto it = v.begin();
  if (it.key() != "dtype" || !it->is_string() || !parse_dtype_or_torch_name(it->get_ref<const std::string&>()))
    return false;
  ++it;
  return it.key() == "shape" && it->is_array();
}

// A container: "layers" as an object (its lines), or as nn.Sequential's list
// (then a field line `layers = [...]`).
bool is_container(const Json& v) {
  return v.is_object() && !v.contains("type") && !v.contains("repeat") && v.contains("layers") &&
         (v["layers"].is_object() || v["layers"].is_array());
}

// A container's inputs, when the header `name(a, b):` can hold them.
bool header_inputs(const Json& v) {
  if (!v.contains("inputs") || !v["inputs"].is_array()) return false;
  for (const Json& n : v["inputs"])
    if (!n.is_string() || !is_word(n.get_ref<const std::string&>()) ||
        is_literal_word(n.get_ref<const std::string&>()))
      return false;
  return true;
}

// "(a, b)": the names of a header's inputs (header_inputs(v) holds).
std::string input_list(const Json& v) {
  std::string s = "(";
  for (const Json& n : v["inputs"]) s += (s.size() > 1 ? ", " : "") + n.get<std::string>();
  return s + ")";
}

class Printer {
 public:
  std::string run(const Json& root) {
    bool first = true, last_block = false;
    for (auto it = root.begin(); it != root.end(); ++it) {
      size_t before = out_.size();
      if (it.key() == "model") {
        module_member(0, it.key(), *it);
      } else if (it.key() == "custom_ops" && it->is_object() && !it->empty()) {
        line(0, "custom_ops:");
        for (auto op = it->begin(); op != it->end(); ++op) custom_op(4, op.key(), *op);
      } else if (it.key() == "inputs" && it->is_object() && !it->empty()) {
        line(0, "inputs:");
        for (auto in = it->begin(); in != it->end(); ++in) {
          if (is_tensor_type(*in))
            line(4, key_text(in.key()) + ": " + tensor_type(*in));
          else
            member(4, in.key(), *in);
        }
      } else {
        member(0, it.key(), *it);
      }
      bool block = out_.find('\n', before) + 1 < out_.size();
      if (!first && (block || last_block)) out_.insert(before, "\n");
      first = false;
      last_block = block;
    }
    return out_;
  }

 private:
  void line(int indent, const std::string& text) {
    out_ += std::string(static_cast<size_t>(indent), ' ') + text + "\n";
  }

  std::string tensor_type(const Json& v) {
    std::string s = v["dtype"].get<std::string>() + "[";
    bool first = true;
    for (const Json& d : v["shape"]) {
      s += (first ? "" : ", ") + value(d, false);
      first = false;
    }
    return s + "]";
  }

  // Outside modules: `key = value`, or `key:` and a block for an object.
  // `depth_in_phases`: 1 for a phase of train's `phases:`, 2 for its
  // members (whose `loss:` is a block of statements).
  void member(int indent, const std::string& key, const Json& v, int depth_in_phases = 0) {
    if (depth_in_phases == 2 && key == "loss" && statements(indent, "loss", v)) return;
    if (v.is_object() && !v.empty() && !callable(v)) {
      line(indent, key_text(key) + ":");
      const int inner = key == "phases" && depth_in_phases == 0 ? 1 : depth_in_phases == 1 ? 2 : 0;
      for (auto it = v.begin(); it != v.end(); ++it) member(indent + 4, it.key(), *it, inner);
      return;
    }
    line(indent, key_text(key) + " = " + value(v, true));
  }

  // `calls`: objects with a "type" print as calls. A container's own fields
  // print without (a call on a line of a module block is a layer).
  std::string value(const Json& v, bool calls) {
    switch (v.type()) {
      case Json::value_t::null: return "None";
      case Json::value_t::boolean: return v.get<bool>() ? "True" : "False";
      case Json::value_t::string: {
        const auto& s = v.get_ref<const std::string&>();
        return is_bare_string(s) ? s : quoted(s);
      }
      case Json::value_t::array: {
        std::string s = "[";
        bool first = true;
        for (const Json& e : v) {
          s += (first ? "" : ", ") + value(e, calls);
          first = false;
        }
        return s + "]";
      }
      case Json::value_t::object: {
        if (calls && callable(v)) return call(v);
        std::string s = "{";
        bool first = true;
        for (auto it = v.begin(); it != v.end(); ++it) {
          s += (first ? "" : ", ") + key_text(it.key()) + ": " + value(*it, calls);
          first = false;
        }
        return s + "}";
      }
      default: return v.dump();
    }
  }

  // Type(positional..., name=value...)
  std::string call(const Json& v) {
    auto it = v.begin();
    std::string type = it->get<std::string>();
    CallSignature sig = call_signature(type);
    std::string s = type + "(";
    ++it;
    size_t n = 0;
    bool first = true;
    for (; it != v.end(); ++it) {
      bool positional = n < sig.printed && it.key() == sig.positional[n];
      s += (first ? "" : ", ") + (positional ? "" : it.key() + "=") + value(*it, true);
      if (positional) ++n; else n = sig.printed;  // once named, the rest are named
      first = false;
    }
    return s + ")";
  }

  // One custom op: `name(a, b):`, its `forward:` and each `backward:` gradient
  // as statement blocks (fields that do not fit print as they are).
  void custom_op(int indent, const std::string& name, const Json& v) {
    if (!v.is_object() || v.empty()) {
      member(indent, name, v);
      return;
    }
    bool header = v.begin().key() == "inputs" && header_inputs(v);
    line(indent, key_text(name) + (header ? input_list(v) : "") + ":");
    size_t before = out_.size();
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (header && it == v.begin()) continue;
      if (it.key() == "forward" && statements(indent + 4, "forward", *it)) continue;
      if (it.key() == "backward" && it->is_object() && !it->empty()) {
        line(indent + 4, "backward:");
        for (auto g = it->begin(); g != it->end(); ++g)
          if (!is_word(g.key()) || is_literal_word(g.key()) || !statements(indent + 8, g.key(), *g))
            member(indent + 8, g.key(), *g);
        continue;
      }
      member(indent + 4, it.key(), *it);
    }
    if (out_.size() == before) line(indent + 4, "pass");
  }

  // `key:` and one statement per line, if every statement fits on its line.
  bool statements(int indent, const std::string& key, const Json& v) {
    if (!v.is_array() || v.empty()) return false;
    for (const Json& st : v)
      if (!is_line_statement(st)) return false;
    line(indent, key + ":");
    for (const Json& st : v) line(indent + 4, st.get<std::string>());
    return true;
  }

  // A member of a container's block (or the top-level `model`).
  void module_member(int indent, const std::string& name, const Json& v) {
    std::string key = key_text(name);
    if (callable(v)) {
      line(indent, key + " = " + call(v));
      return;
    }
    if (v.is_object() && !v.contains("type") && v.contains("repeat")) {
      bool simple = true;
      std::string kws;
      const Json* block = nullptr;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it.key() == "repeat") continue;
        if (it.key() == "block") {
          block = &*it;
          continue;
        }
        if (!is_word(it.key()) || is_literal_word(it.key())) simple = false;
        kws += ", " + it.key() + "=" + value(*it, true);
      }
      std::string n = value(v["repeat"], true);
      if (simple && block && is_container(*block)) {
        line(indent, key + " = repeat(" + n + kws + "):");
        body(indent + 4, *block, false);
        return;
      }
      if (simple && (!block || callable(*block))) {
        line(indent, key + " = repeat(" + n + (block ? ", " + call(*block) : "") + kws + ")");
        return;
      }
    }
    // A block named `forward` without inputs is written "forward": (a bare
    // `forward:` holds statements).
    std::string block_key = name == "forward" ? quoted(name) : key;
    if (is_container(v)) {
      bool header = header_inputs(v);
      line(indent, (header ? key + input_list(v) : block_key) + ":");
      body(indent + 4, v, header);
      return;
    }
    if (v.is_object() && !v.empty()) {  // a layer written field by field
      line(indent, block_key + ":");
      for (auto it = v.begin(); it != v.end(); ++it)
        line(indent + 4, key_text(it.key()) + " = " + value(*it, !it->is_object()));
      return;
    }
    line(indent, key + " = " + value(v, false));
  }

  // The lines of a container's block: its layers, then its other fields in
  // order (the order the parser gives back, so printing is a fixed point).
  void body(int indent, const Json& v, bool header) {
    size_t before = out_.size();
    if (v.contains("layers") && v["layers"].is_object())
      for (auto l = v["layers"].begin(); l != v["layers"].end(); ++l)
        module_member(indent, l.key(), *l);
    for (auto it = v.begin(); it != v.end(); ++it) {
      const std::string& k = it.key();
      if ((k == "inputs" && header) || (k == "layers" && it->is_object())) continue;
      if (k == "forward" && statements(indent, "forward", *it)) continue;
      line(indent, key_text(k) + " = " + value(*it, !it->is_object()));
    }
    if (out_.size() == before) line(indent, "pass");
  }

  std::string out_;
};

}  // namespace

std::string print_model_language(const Json& root) { return Printer().run(root); }

}  // namespace mlc
