// The reference kernel table, built over ir/ops.def: a row without a
// kernel_<Enum> definition fails to link.
#include "ir/builder.h"
#include "runtime/kernels/kernels.h"

namespace mlc::rt {

const KernelFn kReferenceKernels[kNumOps] = {
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) &kernel_##Enum,
#include "ir/ops.def"
#undef OP
};

const KernelFn& reference_kernel(OpCode code) {
  return kReferenceKernels[static_cast<size_t>(code)];
}

Expected<Tensor> eval_op(OpCode code, std::span<const Tensor* const> operands, const Attrs& attrs,
                         const std::optional<TensorType>& declared) {
  Function f("eval_op");
  std::vector<Value*> args;
  for (size_t i = 0; i < operands.size(); ++i)
    args.push_back(f.add_arg("x" + std::to_string(i), operands[i]->type(), ArgKind::input));
  Builder b(f);
  MLC_TRY(Value * v, b.try_create(code, std::move(args), attrs, declared));
  Tensor result(v->type);
  MLC_CHECK_OK(reference_kernel(code)(*v->producer, operands, result));
  return result;
}

}  // namespace mlc::rt
