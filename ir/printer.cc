// Textual IR printer; see ir/printer.h for the syntax contract.
#include "ir/printer.h"

#include <unordered_map>

#include "ir/op_table.h"

namespace mlc {

namespace {

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Names of a function's values: arguments by name, op results by number.
class ValueNames {
 public:
  explicit ValueNames(const Function& f) {
    for (const Value* v : f.args) names_[v] = "%" + v->name;
    int64_t next = 0;
    for (const auto& op : f.ops)
      if (op)
        for (const Value* r : op->results) names_[r] = "%" + std::to_string(next++);
  }
  std::string operator()(const Value* v) const {
    auto it = names_.find(v);
    return it == names_.end() ? "%<undefined>" : it->second;
  }

 private:
  std::unordered_map<const Value*, std::string> names_;
};

// A value's type and, in a sharded program, its placements: `f32[16,64]<S(0),R>`.
std::string value_type(const Value* v) { return print_type(v->type) + placements_str(v->placements); }

std::string print_attrs(const Attrs& attrs) {
  if (attrs.empty()) return "";
  std::string s = " {";
  bool first = true;
  for (const NamedAttr& a : attrs.list()) {
    if (!first) s += ", ";
    first = false;
    s += a.name + " = " + attr_value_to_string(a.value);
  }
  return s + "}";
}

std::string print_op(const Op& op, const ValueNames& names) {
  bool valid = static_cast<int>(op.code) < kNumOps;
  std::string s, types;
  for (size_t k = 0; k < op.results.size(); ++k) {
    s += (k ? ", " : "") + names(op.results[k]);
    types += (k ? ", " : "") + value_type(op.results[k]);
  }
  if (op.results.empty()) s = types = "<no result>";
  if (op.results.size() > 1) types = "(" + types + ")";
  s += " = " + (valid ? std::string(op_name(op.code)) : "<invalid>") + "(";
  for (size_t i = 0; i < op.operands.size(); ++i) s += (i ? ", " : "") + names(op.operands[i]);
  s += ")" + print_attrs(op.attrs);
  s += " : " + types;
  if (!op.meta.empty()) {
    std::string fields;
    if (!op.meta.scope.empty()) fields = "scope = " + attr_value_to_string(op.meta.scope);
    if (op.meta.ledger >= 0) fields += (fields.empty() ? "" : ", ") + std::string("ledger = ") + std::to_string(op.meta.ledger);
    s += " meta {" + fields + "}";
  }
  if (op.loc.known()) s += " " + print_loc(op.loc);
  return s;
}

std::string print_signature(const Function& f) {
  std::string s = "func @" + f.name + "(";
  for (size_t i = 0; i < f.args.size(); ++i) {
    const Value* a = f.args[i];
    ArgKind kind = i < f.arg_kinds.size() ? f.arg_kinds[i] : ArgKind::input;
    s += (i ? ", %" : "%") + a->name + ": " + value_type(a) + " {" +
         std::string(arg_kind_name(kind)) + "}";
  }
  s += ") -> (";
  for (size_t i = 0; i < f.results.size(); ++i) {
    s += (i ? ", " : "") + (f.results[i] ? value_type(f.results[i]) : std::string("?"));
    int a = f.updated_arg(i);
    if (a >= 0 && a < static_cast<int>(f.args.size())) s += " {updates = %" + f.args[a]->name + "}";
  }
  return s + ")";
}

// The ops of `f` and its return line, at `indent`; a fusion op's body after
// the op's line, two spaces deeper, closed by `}` at the op's indentation.
void print_ops_at(const Function& f, const std::string& indent, std::string& out) {
  ValueNames names(f);
  for (const auto& op : f.ops) {
    if (!op) continue;
    out += indent + print_op(*op, names);
    if (op->body) {
      const Function& body = *op->body;
      out += " body(";
      for (size_t i = 0; i < body.args.size(); ++i)
        out += (i ? ", %" : "%") + body.args[i]->name + ": " + value_type(body.args[i]);
      out += ") {\n";
      print_ops_at(body, indent + "  ", out);
      out += indent + "}";
    }
    out += "\n";
  }
  out += indent + "return";
  for (size_t i = 0; i < f.results.size(); ++i) out += (i ? ", " : " ") + names(f.results[i]);
  out += "\n";
}

void print_function_at(const Function& f, const std::string& indent, std::string& out) {
  out += indent + print_signature(f) + " {\n";
  print_ops_at(f, indent + "  ", out);
  out += indent + "}\n";
}

}  // namespace

std::string print_type(const TensorType& type) { return type.str(); }

std::string print_loc(const Loc& loc) {
  if (!loc.known()) return "";
  return "loc(" + quote(loc.file) + ":" + std::to_string(loc.line) + ":" +
         std::to_string(loc.col) + ")";
}

std::string print_function(const Function& f) {
  std::string out;
  print_function_at(f, "", out);
  return out;
}

std::string print_module(const Module& m) {
  std::string out = "module @" + m.name;
  if (!m.attrs.empty()) out += " attributes" + print_attrs(m.attrs);
  out += " {\n";
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (i) out += "\n";
    if (m.functions[i]) print_function_at(*m.functions[i], "  ", out);
  }
  return out + "}\n";
}

}  // namespace mlc
