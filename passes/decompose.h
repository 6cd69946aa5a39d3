// decompose: replaces every composite op (one whose op-table row has a
// decomposition) by its primitives, repeating until none is left. The result
// contains only primitive ops. The replacement ops carry the composite's loc.
#pragma once

#include "passes/pass.h"

namespace mlc {

// Decomposes composites in one function; returns whether anything changed.
// With `keep`, composites for which keep(op) is true stay as they are.
bool decompose_composites(Function& f, bool (*keep)(const Op&) = nullptr);

class DecomposePass : public Pass {
 public:
  std::string_view name() const override { return "decompose"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
