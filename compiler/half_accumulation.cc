#include "compiler/half_accumulation.h"

#include "ir/builder.h"

namespace mlc {

bool half_scatter_adds_in_f32(Function& f) {
  const bool changed = rewrite_ops(f, [](Builder& b, const Op& op) -> Value* {
    if (op.code != OpCode::ScatterAdd || !is_half(op.result()->type.dtype)) return nullptr;
    const DType t = op.result()->type.dtype;
    Value* sum = b.create(OpCode::ScatterAdd,
                          {b.cast(op.operands[0], DType::f32), op.operands[1], b.cast(op.operands[2], DType::f32)},
                          op.attrs);
    return b.cast(sum, t);
  });
  if (changed) f.erase_dead_values();
  return changed;
}

}  // namespace mlc
