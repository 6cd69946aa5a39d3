// The fusion op the per-op suites (printer/parser, op table, folding,
// compiled, MLIR) build where they need one of every op: over (x [..., N],
// b [N]) of one float dtype, the body max(x + b, 0) * x, three exactly
// rounded ops, so compiled and interpreted results are bit-identical.
#pragma once

#include <cstdlib>
#include <memory>

#include "ir/builder.h"

namespace mlc::testing {

inline std::shared_ptr<const Function> sample_fusion_body(const TensorType& x, const TensorType& b) {
  auto body = std::make_shared<Function>("body");
  Value* in0 = body->add_arg("in0", x, ArgKind::input);
  Value* in1 = body->add_arg("in1", b, ArgKind::input);
  Builder bb(*body);
  Value* sum = bb.add(in0, bb.broadcast_to(in1, x.shape));
  body->results = {bb.mul(bb.max(sum, bb.scalar(0.0, x.dtype)), in0)};
  return body;
}

// The sample fusion op on (x, b) at `b`'s insertion point; aborts on error.
inline Value* sample_fusion(Builder& b, Value* x, Value* bias) {
  auto fused = b.try_create_fusion({x, bias}, sample_fusion_body(x->type, bias->type));
  if (!fused) std::abort();
  return fused->front();
}

}  // namespace mlc::testing
