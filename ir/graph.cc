#include "ir/graph.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "support/quote.h"

namespace mlc {

std::string Loc::str() const {
  if (!known()) return "";
  return file + ":" + std::to_string(line) + ":" + std::to_string(col);
}

std::string_view arg_kind_name(ArgKind k) {
  switch (k) {
    case ArgKind::input: return "input";
    case ArgKind::param: return "param";
    case ArgKind::frozen: return "frozen";
    case ArgKind::state: return "state";
    case ArgKind::step: return "step";
    case ArgKind::buffer: return "buffer";
  }
  return "?";
}

Value* Function::add_arg(std::string arg_name, TensorType type, ArgKind kind) {
  values_.push_back(std::make_unique<Value>(Value{std::move(type), std::move(arg_name), nullptr}));
  args.push_back(values_.back().get());
  arg_kinds.push_back(kind);
  return args.back();
}

Op* Function::insert_op(size_t position, OpCode code, std::vector<Value*> operands, Attrs attrs,
                        std::vector<TensorType> result_types, Loc loc) {
  auto op = std::make_unique<Op>();
  op->code = code;
  op->operands = std::move(operands);
  op->attrs = std::move(attrs);
  op->loc = std::move(loc);
  for (size_t k = 0; k < result_types.size(); ++k) {
    values_.push_back(std::make_unique<Value>(
        Value{std::move(result_types[k]), "", op.get(), static_cast<int>(k)}));
    op->results.push_back(values_.back().get());
  }
  Op* raw = op.get();
  ops.insert(ops.begin() + static_cast<std::ptrdiff_t>(std::min(position, ops.size())),
             std::move(op));
  return raw;
}

bool is_arg_name(std::string_view s) {
  bool only_digits = true;
  for (char c : s) {
    bool digit = c >= '0' && c <= '9';
    bool other = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '.';
    if (!digit && !other) return false;
    only_digits = only_digits && digit;
  }
  return !s.empty() && !only_digits;
}

void Function::replace_all_uses(Value* from, Value* to) {
  for (auto& op : ops)
    for (Value*& v : op->operands)
      if (v == from) v = to;
  for (Value*& v : results)
    if (v == from) v = to;
}

void Function::erase_dead_values() {
  std::unordered_set<const Value*> live(args.begin(), args.end());
  for (auto& op : ops) live.insert(op->results.begin(), op->results.end());
  std::erase_if(values_, [&](const std::unique_ptr<Value>& v) { return !live.count(v.get()); });
}

std::unique_ptr<Function> Function::clone() const {
  auto f = std::make_unique<Function>(name);
  std::unordered_map<const Value*, Value*> map;
  for (size_t i = 0; i < args.size(); ++i)
    (map[args[i]] = f->add_arg(args[i]->name, args[i]->type, arg_kinds[i]))->placements = args[i]->placements;
  for (const auto& op : ops) {
    std::vector<Value*> operands;
    for (Value* v : op->operands) operands.push_back(map.at(v));
    std::vector<TensorType> types;
    for (const Value* r : op->results) types.push_back(r->type);
    Op* copy = f->insert_op(f->ops.size(), op->code, std::move(operands), op->attrs,
                            std::move(types), op->loc);
    copy->meta = op->meta;
    copy->body = op->body;
    for (size_t k = 0; k < op->results.size(); ++k) {
      map[op->results[k]] = copy->results[k];
      copy->results[k]->placements = op->results[k]->placements;
    }
  }
  for (Value* v : results) f->results.push_back(map.at(v));
  f->result_updates = result_updates;
  return f;
}

std::string check_scope(std::string_view scope) {
  size_t part = 0;  // length of the current dotted component
  for (char c : scope) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (c == '.') {
      if (part == 0) return "scope " + squote(scope) + " has an empty component";
      part = 0;
    } else if (!ok) {
      return "scope " + squote(scope) + " has a character outside [A-Za-z0-9_.]";
    } else {
      ++part;
    }
  }
  if (!scope.empty() && part == 0) return "scope " + squote(scope) + " has an empty component";
  return "";
}

const std::vector<ModuleAttrSpec>& module_attr_specs() {
  static const std::vector<ModuleAttrSpec> specs = {
      {"target", AttrKind::String, {"cpu", "cuda"}},
      {"mesh", AttrKind::String, {}},
  };
  return specs;
}

std::string check_module_attr(const NamedAttr& a) {
  std::string known;
  for (const ModuleAttrSpec& spec : module_attr_specs()) {
    known += (known.empty() ? "" : ", ") + std::string(spec.name);
    if (spec.name != a.name) continue;
    if (!attr_has_kind(a.value, spec.kind))
      return "module attribute " + squote(a.name) + " must be " + std::string(attr_kind_name(spec.kind)) +
             ", got " + attr_value_to_string(a.value);
    if (a.name == "mesh") {
      auto mesh = Mesh::parse(std::get<std::string>(a.value));
      return mesh ? "" : "module attribute 'mesh': " + mesh.error().message;
    }
    if (spec.choices.empty()) return "";
    std::string choices;
    for (std::string_view c : spec.choices) {
      if (std::get<std::string>(a.value) == c) return "";
      choices += (choices.empty() ? "\"" : ", \"") + std::string(c) + "\"";
    }
    return "module attribute " + squote(a.name) + " must be one of " + choices + ", got " +
           attr_value_to_string(a.value);
  }
  return "unknown module attribute " + squote(a.name) + " (known: " + known + ")";
}

Function* Module::find(std::string_view func_name) const {
  for (const auto& f : functions)
    if (f->name == func_name) return f.get();
  return nullptr;
}

Mesh Module::mesh() const {
  const AttrValue* v = attrs.find("mesh");
  if (!v || !std::holds_alternative<std::string>(*v)) return {};
  auto mesh = Mesh::parse(std::get<std::string>(*v));
  return mesh ? *mesh : Mesh{};
}

void Module::set_mesh(const Mesh& mesh) {
  if (mesh.empty()) {
    std::erase_if(attrs.list(), [](const NamedAttr& a) { return a.name == "mesh"; });
    return;
  }
  attrs.set("mesh", mesh.str());
}

Function& Module::add_function(std::string func_name) {
  functions.push_back(std::make_unique<Function>(std::move(func_name)));
  return *functions.back();
}

}  // namespace mlc
