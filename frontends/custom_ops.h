// Custom ops of a model file ("custom_ops", docs/model-format.md): an op with
// a forward and a declared gradient, like torch.autograd.Function or JAX's
// custom_vjp, called in any container's forward like a built-in.
//
//   "custom_ops": {
//     "legendre3": {
//       "inputs": ["x"],
//       "forward": ["return 0.5 * (5 * x * x * x - 3 * x)"],
//       "backward": {"x": ["return grad * 1.5 * (5 * x * x - 1)"]}
//     }
//   }
//
// Contracts:
//  - parse_custom_ops validates the section statically: names are
//    identifiers, not a forward built-in and not a name the IR reserves
//    (loss, eval, ... and names ending in _vjp or _grad); inputs are distinct
//    identifiers other than `out` and `grad`; the forward and each gradient
//    are statement lists of the forward language (frontends/forward_expr.h)
//    over the inputs (a gradient also over `out`, the forward's result, and
//    `grad`, the gradient of the loss with respect to it); `backward` gives
//    exactly one gradient per input. Errors point at the field or into the
//    statement's string.
//  - CustomOpEmitter::call emits `call {callee = F}` (ir/ops.def) where @F
//    (and its gradient @F_vjp(inputs..., out, grad) -> (one gradient per
//    input)) is the op specialised for the call's argument types, added to
//    the module the first time those types occur: @name, then @name.1,
//    @name.2, ... Type errors of the statements, and a gradient whose type
//    differs from its input's, are errors at the statement.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frontends/forward_expr.h"
#include "frontends/json_doc.h"
#include "ir/graph.h"

namespace mlc {

struct CustomOp {
  std::string name;
  Loc loc;  // of its key
  std::vector<std::string> inputs;
  ForwardProgram forward;
  std::vector<ForwardProgram> backward;  // the gradient of each input, in input order
  // Ops one specialisation emits at most (forward and gradients), for the work budget.
  int64_t ops() const;
};

class CustomOps {
 public:
  const CustomOp* find(const std::string& name) const;
  const std::vector<CustomOp>& all() const { return ops_; }
  bool empty() const { return ops_.empty(); }

 private:
  friend Expected<CustomOps> parse_custom_ops(const JsonDoc& doc, const Node& section);
  std::vector<CustomOp> ops_;
  std::unordered_map<std::string, size_t> index_;
};

Expected<CustomOps> parse_custom_ops(const JsonDoc& doc, const Node& section);

class CustomOpEmitter {
 public:
  CustomOpEmitter(Module& module, const CustomOps& ops) : module_(module), ops_(ops) {}

  // The call of custom op `name` on `args`, at the builder's loc and scope.
  Expected<Value*> call(Builder& b, const std::string& name, const std::vector<Value*>& args);
  // The name of @F, `op` specialised for arguments of `types` (added to the
  // module with @F_vjp unless already there).
  Expected<std::string> specialize(const CustomOp& op, const std::vector<TensorType>& types);

 private:
  Module& module_;
  const CustomOps& ops_;
  std::map<std::string, std::string> functions_;  // op name + argument types -> function name
  std::unordered_map<std::string, int> count_;    // specialisations per op
};

}  // namespace mlc
