#include "passes/simplify.h"

#include <cmath>
#include <unordered_map>
#include <vector>

#include "passes/dce.h"
#include "passes/fold_constants.h"

namespace mlc {

namespace {

// Is `v` a splat whose element is `target` (for floats: with the sign of
// `target`, so that 0.0 and -0.0 differ)?
bool is_splat_of(const Value* v, double target) {
  auto s = splat_value(v);
  if (!s) return false;
  if (!is_float(s->dtype)) return static_cast<double>(s->i) == target;
  return s->f == target && std::signbit(s->f) == std::signbit(target);
}

// x + z == x for every x: z = -0.0 for floats, 0 for integers.
bool is_add_identity(const Value* v) { return is_splat_of(v, is_float(v->type.dtype) ? -0.0 : 0.0); }
// x - z == x for every x: z = +0.0 (or integer 0).
bool is_sub_identity(const Value* v) { return is_splat_of(v, 0.0); }
bool is_one(const Value* v) { return is_splat_of(v, 1.0); }

// `x` if it has the op's result type (so replacing the op by it is exact).
Value* if_same_type(const Op& op, Value* x) { return x->type == op.result()->type ? x : nullptr; }

const Op* producer_with(const Value* v, OpCode code) {
  return v->producer && v->producer->code == code ? v->producer : nullptr;
}

bool is_identity_perm(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

Value* simplify_arith(const Op& op) {
  Value* a = op.operands[0];
  Value* b = op.operands.size() > 1 ? op.operands[1] : nullptr;
  Value* r = nullptr;
  switch (op.code) {
    case OpCode::Add:
      if (is_add_identity(b)) r = if_same_type(op, a);
      if (!r && is_add_identity(a)) r = if_same_type(op, b);
      return r;
    case OpCode::Sub: return is_sub_identity(b) ? if_same_type(op, a) : nullptr;
    case OpCode::Mul:
      if (is_one(b)) r = if_same_type(op, a);
      if (!r && is_one(a)) r = if_same_type(op, b);
      return r;
    case OpCode::Div: return is_one(b) ? if_same_type(op, a) : nullptr;
    case OpCode::Neg: {
      const Op* inner = producer_with(a, OpCode::Neg);
      return inner ? inner->operands[0] : nullptr;
    }
    case OpCode::Select: {
      if (op.operands[1] == op.operands[2]) return if_same_type(op, op.operands[1]);
      auto pred = splat_value(a);
      return pred ? if_same_type(op, op.operands[pred->i != 0 ? 1 : 2]) : nullptr;
    }
    default: return nullptr;
  }
}

// reshape(reshape(x)) -> reshape(x), in place.
Value* simplify_reshape(Op& op, bool& modified) {
  if (const Op* inner = producer_with(op.operands[0], OpCode::Reshape)) {
    op.operands[0] = inner->operands[0];
    modified = true;
  }
  return if_same_type(op, op.operands[0]);
}

// transpose(transpose(x)) -> transpose(x) with the composed perm, in place.
Value* simplify_transpose(Op& op, bool& modified) {
  if (const Op* inner = producer_with(op.operands[0], OpCode::Transpose)) {
    const std::vector<int64_t>& outer_perm = op.attrs.get_ints("perm");
    const std::vector<int64_t>& inner_perm = inner->attrs.get_ints("perm");
    std::vector<int64_t> perm;  // result dim i = inner dim outer[i] = x dim inner[outer[i]]
    for (int64_t p : outer_perm) perm.push_back(inner_perm[p]);
    op.operands[0] = inner->operands[0];
    op.attrs.set("perm", std::move(perm));
    modified = true;
  }
  return is_identity_perm(op.attrs.get_ints("perm")) ? op.operands[0] : nullptr;
}

// The value that replaces op's result, or nullptr. May rewrite `op` in place
// (setting `modified`).
Value* simplify_op(Op& op, bool& modified) {
  switch (op.code) {
    case OpCode::Reshape: return simplify_reshape(op, modified);
    case OpCode::Transpose: return simplify_transpose(op, modified);
    case OpCode::Cast:
    case OpCode::Broadcast:
    case OpCode::Slice:
    case OpCode::Pad: return if_same_type(op, op.operands[0]);
    case OpCode::Concat: return op.operands.size() == 1 ? if_same_type(op, op.operands[0]) : nullptr;
    default: return op.operands.empty() ? nullptr : simplify_arith(op);
  }
}

Value* resolve(const std::unordered_map<const Value*, Value*>& replaced, Value* v) {
  auto it = replaced.find(v);
  return it == replaced.end() ? v : it->second;
}

}  // namespace

bool simplify(Function& f) {
  std::unordered_map<const Value*, Value*> replaced;  // removed result -> its replacement
  std::vector<bool> keep(f.ops.size(), true);
  bool changed = false;
  for (size_t i = 0; i < f.ops.size(); ++i) {
    Op& op = *f.ops[i];
    for (Value*& v : op.operands) v = resolve(replaced, v);
    bool modified = false;
    Value* r = simplify_op(op, modified);
    changed |= modified;
    if (!r) continue;
    // r is an operand (already resolved) of op or of a kept earlier op: never removed.
    replaced[op.result()] = r;
    keep[i] = false;
  }
  if (replaced.empty()) return changed;
  for (Value*& v : f.results) v = resolve(replaced, v);
  erase_ops(f, keep);
  return true;
}

Expected<bool> SimplifyPass::run(Module& module) {
  return rewrite_each_function(module, simplify);
}

}  // namespace mlc
