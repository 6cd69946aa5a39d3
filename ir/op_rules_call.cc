// Rules of `call` (ir/ops.def): the op table sees operands and declared result
// types only; that they match the callee's signature is a module-level fact,
// checked by the verifier (ir/verifier.cc, verify_calls).
#include "ir/graph.h"
#include "ir/op_rules.h"

namespace mlc::rules {

namespace {
bool is_function_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
          c == '-'))
      return false;
  return true;
}
}  // namespace

const std::vector<AttrSpec>& attrs_call() {
  static const std::vector<AttrSpec> specs = {{"callee", AttrKind::String, std::nullopt}};
  return specs;
}

Expected<std::vector<TensorType>> infer_call(const InferContext& ctx) {
  const std::string& callee = ctx.attrs.get_string("callee");
  if (!is_function_name(callee))
    return infer_error(ctx, "callee '" + callee + "' is not a function name ([A-Za-z0-9_.-]+)");
  if (ctx.declared_all.empty()) return infer_error(ctx, "the result types must be declared");
  return std::vector<TensorType>(ctx.declared_all.begin(), ctx.declared_all.end());
}

Cost cost_call(const Op& op) {
  Cost c;
  for (const Value* v : op.operands) c.bytes += v->type.num_bytes();
  for (const Value* r : op.results) c.bytes += r->type.num_bytes();
  return c;
}

}  // namespace mlc::rules
