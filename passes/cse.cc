#include "passes/cse.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/op_table.h"
#include "passes/dce.h"

namespace mlc {

namespace {

template <class T>
void append_bytes(std::string& key, const T& x) {
  key.append(reinterpret_cast<const char*>(&x), sizeof x);
}

// The identity of an op's computation as a string: code, operand pointers and
// result types as raw bytes, then the attributes as printed. Every variable-length
// part is preceded by its length, so different identities never share a key.
std::string op_key(const Op& op) {
  std::string key;
  append_bytes(key, op.code);
  append_bytes(key, op.operands.size());
  for (const Value* v : op.operands) append_bytes(key, v);
  append_bytes(key, op.body.get());  // fusion ops: the same body object, not merely an equal one
  append_bytes(key, op.results.size());
  for (const Value* r : op.results) {
    append_bytes(key, r->type.dtype);
    append_bytes(key, r->type.shape.size());
    for (int64_t d : r->type.shape) append_bytes(key, d);
  }
  for (const NamedAttr& a : op.attrs.list()) {
    std::string value = attr_value_to_string(a.value);
    append_bytes(key, a.name.size());
    key += a.name;
    append_bytes(key, value.size());
    key += value;
  }
  return key;
}

// Follows `replaced` from `v` to the value that now stands for it.
Value* resolve(const std::unordered_map<const Value*, Value*>& replaced, Value* v) {
  auto it = replaced.find(v);
  return it == replaced.end() ? v : it->second;
}

}  // namespace

bool eliminate_common_subexpressions(Function& f) {
  std::unordered_map<std::string, const Op*> first;   // key -> kept op
  std::unordered_map<const Value*, Value*> replaced;  // removed result -> kept result
  first.reserve(f.ops.size());
  std::vector<bool> keep(f.ops.size(), true);
  for (size_t i = 0; i < f.ops.size(); ++i) {
    Op& op = *f.ops[i];
    for (Value*& v : op.operands) v = resolve(replaced, v);
    if (op_info(op.code).has(kEffectful)) continue;  // each one has its own effect
    auto [it, inserted] = first.try_emplace(op_key(op), &op);
    if (inserted) continue;
    // Kept results are never replaced: no chains.
    for (size_t k = 0; k < op.results.size(); ++k) replaced[op.results[k]] = it->second->results[k];
    keep[i] = false;
  }
  if (replaced.empty()) return false;
  for (Value*& v : f.results) v = resolve(replaced, v);
  return erase_ops(f, keep);
}

Expected<bool> CsePass::run(Module& module) {
  return rewrite_each_function(module, eliminate_common_subexpressions);
}

}  // namespace mlc
