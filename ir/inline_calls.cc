#include "ir/inline_calls.h"

#include <set>
#include <unordered_map>

#include "ir/builder.h"

namespace mlc {

namespace {

// Replaces f.ops[i], a call of `callee`, by a copy of the callee's ops.
void inline_one(Function& f, size_t i, const Function& callee) {
  Op* call = f.ops[i].get();
  Builder b(f, i);
  std::unordered_map<const Value*, Value*> map;
  for (size_t k = 0; k < callee.args.size(); ++k) map[callee.args[k]] = call->operands[k];
  b.set_scope(call->meta.scope);
  for (const auto& inner : callee.ops) {
    std::vector<Value*> operands;
    for (const Value* v : inner->operands) operands.push_back(map.at(v));
    b.set_loc(inner->loc.known() ? inner->loc : call->loc);
    std::vector<Value*> results =
        b.create_results(inner->code, std::move(operands), inner->attrs, result_types(*inner));
    for (size_t k = 0; k < results.size(); ++k) map[inner->results[k]] = results[k];
  }
  for (size_t k = 0; k < call->results.size(); ++k) f.replace_all_uses(call->results[k], map.at(callee.results[k]));
  f.ops.erase(f.ops.begin() + static_cast<std::ptrdiff_t>(b.position()));  // the call, after its copy
}

}  // namespace

bool inline_calls(Module& m) {
  std::set<std::string> called;
  for (const auto& f : m.functions)
    for (const auto& op : f->ops)
      if (op->code == OpCode::Call) called.insert(op->attrs.get_string("callee"));
  if (called.empty()) return false;
  for (auto& f : m.functions) {
    if (called.count(f->name)) continue;  // removed below
    bool changed = false;
    for (size_t i = 0; i < f->ops.size();) {
      if (f->ops[i]->code != OpCode::Call) {
        ++i;
        continue;
      }
      const Function* callee = m.find(f->ops[i]->attrs.get_string("callee"));
      inline_one(*f, i, *callee);
      i += callee->ops.size();  // past the copy (which holds no call)
      changed = true;
    }
    if (changed) f->erase_dead_values();
  }
  std::erase_if(m.functions, [&](const std::unique_ptr<Function>& f) {
    return called.count(f->name) ||
           (f->name.size() > 4 && f->name.ends_with("_vjp") && called.count(f->name.substr(0, f->name.size() - 4)));
  });
  return true;
}

}  // namespace mlc
