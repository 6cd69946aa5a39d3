#include "passes/decompose.h"

#include "ir/decompose.h"

namespace mlc {

Expected<bool> DecomposePass::run(Module& module) {
  return rewrite_each_function(module, [](Function& f) { return decompose_composites(f); });
}

}  // namespace mlc
