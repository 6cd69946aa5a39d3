// The reference kernel table, built over ir/ops.def: a primitive row (its
// decompose column is nullptr) without a kernel_<Enum> definition fails to
// link; a composite row gets nullptr, and its kernel_<Enum> is never named
// outside a discarded branch, so it needs no definition.
#include <string_view>

#include "ir/builder.h"
#include "ir/op_table.h"
#include "runtime/kernels/kernels.h"

namespace mlc::rt {

const KernelFn kReferenceKernels[kNumOps] = {
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) \
  []() -> KernelFn {                                                  \
    if constexpr (std::string_view(#decompose) == "nullptr")          \
      return &kernel_##Enum;                                          \
    else                                                              \
      return nullptr;                                                 \
  }(),
#include "ir/ops.def"
#undef OP
};

namespace {

// What reference_kernel gives for a composite: an internal error, not a call
// through nullptr.
Status no_kernel_for_composite(const Op& op, std::span<const Tensor* const>, Tensor&) {
  return make_error("mlc internal error: " + std::string(op_name(op.code)) +
                    " is a composite op and has no reference kernel (decompose it first)");
}

}  // namespace

// A call has no kernel: its meaning is its callee, which the op does not hold.
// Calls are inlined (ir/inline_calls.h) before anything runs.
Status kernel_Call(const Op& op, std::span<const Tensor* const>, Tensor&) {
  return make_error("call of @" + op.attrs.get_string("callee") +
                    ": calls run only once inlined (the decompose pass, or inline_calls)");
}

KernelFn reference_kernel(OpCode code) {
  KernelFn k = kReferenceKernels[static_cast<size_t>(code)];
  return k ? k : &no_kernel_for_composite;
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
