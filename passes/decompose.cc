#include "passes/decompose.h"

#include "ir/decompose.h"
#include "ir/inline_calls.h"

namespace mlc {

Expected<bool> DecomposePass::run(Module& module) {
  const bool inlined = inline_calls(module);
  const bool decomposed = rewrite_each_function(module, [](Function& f) { return decompose_composites(f); });
  return inlined || decomposed;
}

}  // namespace mlc
