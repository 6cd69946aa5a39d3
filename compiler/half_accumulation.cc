#include "compiler/half_accumulation.h"

#include "ir/builder.h"

namespace mlc {

namespace {

bool half_scatter_add(const Op& op) {
  const DType t = op.result()->type.dtype;
  return op.code == OpCode::ScatterAdd && (t == DType::bf16 || t == DType::f16);
}

}  // namespace

bool half_scatter_adds_in_f32(Function& f) {
  bool changed = false;
  for (size_t i = 0; i < f.ops.size(); ++i) {
    Op* op = f.ops[i].get();
    if (!half_scatter_add(*op)) continue;
    Builder b(f, i);
    b.set_loc(op->loc);
    b.set_scope(op->meta.scope);
    const DType t = op->result()->type.dtype;
    Value* sum = b.create(OpCode::ScatterAdd,
                          {b.cast(op->operands[0], DType::f32), op->operands[1], b.cast(op->operands[2], DType::f32)},
                          op->attrs);
    f.replace_all_uses(op->result(), b.cast(sum, t));
    i = b.position();  // the original op, now after its replacement
    f.ops.erase(f.ops.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
    changed = true;
  }
  if (changed) f.erase_dead_values();
  return changed;
}

}  // namespace mlc
