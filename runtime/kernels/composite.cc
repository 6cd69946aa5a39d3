// Kernels of the composite ops: each runs the op's decomposition (its
// meaning, ir/op_rules_composite.cc) on a scratch function through the
// Interpreter. Errors are those of the failing primitive ("gather: ...").
// The Interpreter itself never calls these: it decomposes composites up front.
#include <cstring>

#include "ir/op_table.h"
#include "runtime/interpreter.h"
#include "runtime/kernels/kernels.h"

namespace mlc::rt {

namespace {

Status run_decomposed(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  Function f(std::string(op_name(op.code)));
  std::vector<Value*> args;
  for (size_t i = 0; i < in.size(); ++i)
    args.push_back(f.add_arg("x" + std::to_string(i), in[i]->type(), ArgKind::input));
  Op* composite = f.insert_op(0, op.code, std::move(args), op.attrs, out.type(), op.loc);
  f.results.push_back(composite->result);
  MLC_TRY(Interpreter interp, Interpreter::create(f));
  MLC_TRY(std::vector<Tensor> results, detail::run_unlocated(interp, in));
  if (out.num_bytes()) std::memcpy(out.bytes(), results[0].bytes(), out.num_bytes());
  return {};
}

}  // namespace

#define MLC_COMPOSITE_KERNEL(Enum)                                                          \
  Status kernel_##Enum(const Op& op, std::span<const Tensor* const> in, Tensor& out) {      \
    return run_decomposed(op, in, out);                                                     \
  }
MLC_COMPOSITE_KERNEL(Relu)
MLC_COMPOSITE_KERNEL(Silu)
MLC_COMPOSITE_KERNEL(Gelu)
MLC_COMPOSITE_KERNEL(Softmax)
MLC_COMPOSITE_KERNEL(LogSoftmax)
MLC_COMPOSITE_KERNEL(LayerNorm)
MLC_COMPOSITE_KERNEL(RmsNorm)
MLC_COMPOSITE_KERNEL(CrossEntropy)
MLC_COMPOSITE_KERNEL(Mse)
#undef MLC_COMPOSITE_KERNEL

}  // namespace mlc::rt
