// decompose: inlines every call op (ir/inline_calls.h: custom ops, whose
// declared gradients autodiff has used by now), then replaces every composite
// op (one whose op-table row has a decomposition) by its primitives
// (ir/decompose.h), in every function. The result contains only primitive ops
// and no calls. The replacement ops carry the composite's loc.
#pragma once

#include "passes/pass.h"

namespace mlc {

class DecomposePass : public Pass {
 public:
  std::string_view name() const override { return "decompose"; }
  Expected<bool> run(Module& module) override;
};

}  // namespace mlc
