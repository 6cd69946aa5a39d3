// Verifying kernel IR (compiler/kernel_ir.h) that comes from outside the
// compiler: an artifact's, for `mlc run --verify-code` (driver/verify_code.h).
// A kernel that passes both checks below is one that code generation
// (compiler/cpu/llvm_jit.h) compiles without failing an assertion, and whose code
// reads and writes only inside the buffers it is run on.
//
// verify_kernel(k): the contracts of kernel_ir.h that code generation relies on.
//  - At most kMaxExprs expressions; every operand an earlier expression (the
//    operands a kind does not use are -1); chains of operands at most
//    kMaxDepth long (code generation recurses along them).
//  - Dtypes are f32, f64, bf16, f16, i32, i64 or bool (half precision
//    computes in float and rounds per expression: compiler/cpu/llvm_half.h).
//  - Kinds: index expressions (var, iconst, iadd, imul, idiv, irem, imin,
//    imax) are i64 over index expressions, ilt is bool over two of them; a
//    load reads an input (not an output) in its dtype at an index expression;
//    unary and binary ops are ir/scalar_math.h's (exp, log, sqrt, rsqrt, tanh,
//    erf, sin, cos, sigmoid and pow on floats only), on numbers, with operands
//    of their dtype; cmp is bool over two operands of one dtype; select is
//    bool ? x : y in x's and y's dtype; cast is never float to integer (never
//    fused); index_value converts an index expression; checked_index (i64,
//    an index expression in [0, i)) checks an i32 or i64 value, not an index
//    expression, against its bound i >= 1: the only data-dependent index,
//    behind the kernel's own range check; random is f32 of two i64 values
//    and a stream f in [0, 2^32); a reduce is
//    reduce_sum, reduce_max or reduce_min in its operand's dtype or argmax
//    (i64) of a number, its mask (if any) bool.
//  - Variables: the domain's dims are 0..rank-1; each reduction binds
//    [var0, var0 + extents.size()), after them and disjoint from every other
//    reduction's; num_vars counts them all. Every variable an output's value
//    depends on is bound where it is evaluated: a domain variable, or one of a
//    reduction whose operand contains it.
//  - Extents: the domain has at most 2^40 elements, a reduction's extents at
//    most 2^40 each and 2^62 together.
//  - Index arithmetic never divides by zero and never leaves i64: the
//    intervals below.
//  - A scatter (Kernel::Scatter) binds its own variables after the domain's;
//    its value has the output's dtype, a number; its row and at are index
//    expressions; all three depend on its variables only and hold no
//    reduction; at lies within the output (verify_kernel_buffers).
//  - Outputs: root and more_roots have their params' dtypes; an output
//    written into an input (output_alias, more_alias) is written into an
//    elementwise input of its dtype.
// verify_kernel_buffers(k, buffers): k (which passed verify_kernel) run on
// `buffers` (rt::KernelInfo::types: the inputs, then the outputs): one buffer
// per param, of its dtype; every output of shape `domain`; an input that an
// output is written into holds as many elements as the output; and every
// load's index lies in [0, elements of its input) for every value of the
// variables: an interval analysis over the index expressions, each variable
// in [0, its extent).
//
// Errors name the expression ("e12 (load): ...") or the field, what was
// expected and what was found.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/kernel_ir.h"
#include "ir/expected.h"
#include "ir/types.h"

namespace mlc::kir {

inline constexpr int64_t kMaxExprs = int64_t{1} << 16;
inline constexpr int kMaxDepth = 2048;

Status verify_kernel(const Kernel& k);
Status verify_kernel_buffers(const Kernel& k, const std::vector<TensorType>& buffers);

}  // namespace mlc::kir
