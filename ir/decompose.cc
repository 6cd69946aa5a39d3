#include "ir/decompose.h"

#include "ir/builder.h"
#include "ir/op_table.h"

namespace mlc {

bool decompose_composites(Function& f, bool (*keep)(const Op&)) {
  bool changed = false;
  for (size_t i = 0; i < f.ops.size();) {
    Op* op = f.ops[i].get();
    const OpInfo& info = op_info(op->code);
    if (!info.is_composite() || (keep && keep(*op))) {
      ++i;
      continue;
    }
    Builder b(f, i);
    b.set_loc(op->loc);
    b.set_scope(op->meta.scope);
    std::vector<Value*> replacements = info.decompose(b, *op);
    for (size_t k = 0; k < op->results.size(); ++k) f.replace_all_uses(op->results[k], replacements[k]);
    size_t op_index = b.position();  // the composite now sits after its expansion
    f.ops.erase(f.ops.begin() + static_cast<std::ptrdiff_t>(op_index));
    changed = true;
    // Re-scan from the first emitted op: decompositions may emit composites.
  }
  if (changed) f.erase_dead_values();
  return changed;
}

}  // namespace mlc
