// Reference kernels: one per primitive row of ir/ops.def, in a table built
// from the same X-macro (runtime/kernels/kernel_table.cc), so a primitive
// without a kernel fails to link. Composite ops (rows with a decomposition)
// have no kernel: every consumer of IR that runs it (the interpreter,
// lowering) decomposes composites into primitives first.
//
// Kernel contract:
//  - `op` supplies the op code and its attributes (complete: defaults filled).
//    Kernels never read op.operands or op.result(); shapes come from the tensors.
//  - `operands` and the attributes are what the op's inference rule accepts,
//    and `result` is pre-allocated with the op's result type (the inferred one,
//    or the declared one for cast/reshape/broadcast/iota/constant). Kernels
//    overwrite every element of `result` and never reallocate it.
//  - Only data-dependent failures are reported (out-of-range gather/scatter
//    indices, integer division by zero, casts of NaN or out-of-range floats to
//    integers); the message starts with the op name ("gather: index 70 out of
//    range [0, 64) along axis 0"); callers add the location. A dtype that
//    inference rejects for the op has no loop and fails with "<op>: no kernel
//    for dtype bool" rather than crashing.
//  - Numerics: bf16/f16 compute in float and round once per result element;
//    reduce_sum of float dtypes accumulates in double; f32/f64 dot and conv2d
//    go through BLAS gemm (bf16/f16 through an f32 gemm, rounded once).
#pragma once

#include <optional>
#include <span>

#include "ir/expected.h"
#include "ir/graph.h"
#include "runtime/blas.h"
#include "runtime/tensor.h"

namespace mlc::rt {

using KernelFn = Status (*)(const Op& op, std::span<const Tensor* const> operands, Tensor& result);

// The reference kernel of every primitive op, indexed by OpCode; nullptr for
// the composites.
extern const KernelFn kReferenceKernels[kNumOps];

// The reference kernel of a primitive op. A composite has none: for one this
// returns a kernel that only fails, with "mlc internal error: relu is a
// composite op and has no reference kernel (decompose it first)", so a caller
// that forgot to decompose (or an op read from a file) reports it rather
// than calling through a null pointer.
KernelFn reference_kernel(OpCode code);

// Evaluates one primitive op on tensors: builds it through Builder on a
// scratch function (attribute defaults filled, inference checked; `declared`
// is the result type for ops that need one), then runs its reference kernel.
// Errors are the Builder's ("error: add: operand shapes ...") or the kernel's
// ("gather: ..."); a composite op is the internal error above (run composites
// through rt::Interpreter, which decomposes them).
Expected<Tensor> eval_op(OpCode code, std::span<const Tensor* const> operands,
                         const Attrs& attrs = {},
                         const std::optional<TensorType>& declared = std::nullopt);

// The matmul a `dot` op with these operand and result shapes performs.
blas::DotShape dot_shape(const Op& op, const Shape& a, const Shape& b, const Shape& out);

// One function per op: kernel_Neg, kernel_Add, ... Declared for every row of
// the table so that kernel_table.cc can name them, but defined for the
// primitives only: naming a composite's (kernel_Relu) fails to link.
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) \
  Status kernel_##Enum(const Op& op, std::span<const Tensor* const> operands, Tensor& result);
#include "ir/ops.def"
#undef OP

}  // namespace mlc::rt
