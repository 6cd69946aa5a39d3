#include "compiler/fusion.h"

#include <algorithm>
#include <unordered_set>

#include "ir/op_table.h"

namespace mlc {

namespace {

bool loop_dtype(DType t) { return t == DType::f32 || t == DType::f64 || t == DType::i32 || t == DType::i64 || t == DType::boolean; }

// Arithmetic worth recomputing rather than storing.
bool is_cheap(const Op& op) {
  const OpInfo& info = op_info(op.code);
  if (info.has(kMovement) || info.has(kSource)) return true;
  switch (op.code) {
    case OpCode::Neg: case OpCode::Abs: case OpCode::Add: case OpCode::Sub: case OpCode::Mul:
    case OpCode::Max: case OpCode::Min: case OpCode::Compare: case OpCode::Select: case OpCode::Cast:
      return true;
    default: return false;
  }
}

// Does `user` read each element of `v` at most once per element of its result
// (so `v` is evaluated once per element when `user` is)?
bool reads_once(const Op& user, const Value* v) {
  const OpInfo& info = op_info(user.code);
  if (user.code == OpCode::Reshape || user.code == OpCode::Transpose || user.code == OpCode::Slice ||
      user.code == OpCode::Concat || user.code == OpCode::Pad)
    return true;
  if (info.has(kElementwise)) return v->type.shape == user.result()->type.shape;
  if (user.code == OpCode::MaxPool2d || user.code == OpCode::MaxPool2dIndices || user.code == OpCode::AvgPool2d) {
    // Each input element is in at most one window where windows do not overlap.
    const auto& k = user.attrs.get_ints("kernel");
    const auto& s = user.attrs.get_ints("stride");
    return s[0] >= k[0] && s[1] >= k[1];
  }
  if (info.has(kWindow)) return false;    // gradients read each element for several windows
  if (info.has(kReduction)) return true;  // each input element folds into one result element
  return false;
}

}  // namespace

bool is_loop_op(const Op& op) {
  if (!loop_dtype(op.result()->type.dtype)) return false;
  for (const Value* v : op.operands)
    if (!loop_dtype(v->type.dtype)) return false;
  const OpInfo& info = op_info(op.code);
  if (info.is_composite()) return false;
  switch (op.code) {
    case OpCode::Div: return is_float(op.result()->type.dtype);
    case OpCode::Cast: return !(is_float(op.operands[0]->type.dtype) && !is_float(op.result()->type.dtype) &&
                                op.result()->type.dtype != DType::boolean);
    case OpCode::ShardSlice:  // which chunk depends on the device
    case OpCode::Gather:  // data-dependent index: may fail
    case OpCode::ScatterAdd:
    case OpCode::RandomUniform:  // no kernel-IR scalar: runs its reference kernel (ir/random.h)
      return false;
    case OpCode::Constant: {
      const AttrValue* v = op.attrs.find("value");
      return v && (std::holds_alternative<double>(*v) || std::holds_alternative<int64_t>(*v));
    }
    default: break;
  }
  if (info.has(kContraction)) return false;
  return info.has(kElementwise) || info.has(kMovement) || info.has(kReduction) || info.has(kSource) ||
         info.has(kWindow);
}

FusionPlan plan_fusion(const Function& f) {
  std::unordered_map<const Value*, std::vector<const Op*>> users;
  for (const auto& op : f.ops)
    for (const Value* v : op->operands) users[v].push_back(op.get());
  std::unordered_set<const Value*> returned(f.results.begin(), f.results.end());

  FusionPlan plan;
  std::vector<int> group_of(f.ops.size(), -1);
  std::unordered_map<const Op*, size_t> index;
  for (size_t i = 0; i < f.ops.size(); ++i) index[f.ops[i].get()] = i;

  // Sources (splat constants, iota) are computed inside every loop kernel that
  // reads them; absorbed_by counts those users.
  std::unordered_map<const Op*, size_t> absorbed_by;
  auto is_shared_source = [](const Op& op) { return op.operands.empty() && is_loop_op(op); };

  std::vector<FusionGroup> reversed;
  for (size_t r = f.ops.size(); r-- > 0;) {
    if (group_of[r] >= 0) continue;
    const Op& root = *f.ops[r];
    if (is_shared_source(root) && !returned.count(root.result()) && absorbed_by[&root] == users[root.result()].size())
      continue;  // every user computes it
    const int g = static_cast<int>(reversed.size());
    FusionGroup group;
    group_of[r] = g;
    group.ops.push_back(&root);
    if (root.code == OpCode::Reshape) {
      group.kind = GroupKind::alias;
    } else if (is_loop_op(root)) {
      group.kind = GroupKind::loop;
      std::unordered_set<const Op*> once = {&root};  // evaluated once per element
      std::vector<const Op*> work = {&root};
      while (!work.empty()) {
        const Op* m = work.back();
        work.pop_back();
        for (const Value* v : m->operands) {
          const Op* p = v->producer;
          if (p && is_shared_source(*p) && group_of[index.at(p)] < 0) {
            if (std::find(group.ops.begin(), group.ops.end(), p) == group.ops.end()) group.ops.push_back(p);
            continue;
          }
          if (!p || group_of[index.at(p)] >= 0 || returned.count(v) || !is_loop_op(*p)) continue;
          const std::vector<const Op*>& us = users[v];
          bool inside = std::all_of(us.begin(), us.end(), [&](const Op* u) { return group_of[index.at(u)] == g; });
          if (!inside) continue;
          bool evaluated_once = us.size() == 1 && once.count(m) && reads_once(*m, v);
          if (!evaluated_once && !is_cheap(*p)) continue;
          if (evaluated_once) once.insert(p);
          group_of[index.at(p)] = g;
          group.ops.push_back(p);
          work.push_back(p);
        }
      }
      std::sort(group.ops.begin(), group.ops.end(), [&](const Op* a, const Op* b) { return index.at(a) < index.at(b); });
      // Every use of a source by a member of this group is computed here (an
      // op may read it twice, several members may read it).
      for (const Op* p : group.ops) {
        if (!is_shared_source(*p)) continue;
        const std::vector<const Op*>& us = users[p->result()];
        absorbed_by[p] += static_cast<size_t>(
            std::count_if(us.begin(), us.end(), [&](const Op* u) { return group_of[index.at(u)] == g; }));
      }
    }
    reversed.push_back(std::move(group));
  }
  // Number groups in schedule order.
  const int n = static_cast<int>(reversed.size());
  for (int g = n - 1; g >= 0; --g) {
    for (const Op* op : reversed[g].ops) plan.group_of[op] = n - 1 - g;
    plan.groups.push_back(std::move(reversed[g]));
  }
  return plan;
}

}  // namespace mlc
