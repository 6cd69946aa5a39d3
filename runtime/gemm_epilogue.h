// GEMM epilogues on the host (runtime/executable.h GemmEpilogue), for the
// CPU's executor and so for the host-gpu target, whose GEMMs are the CPU's.
//
// apply_gemm_epilogue runs after the GEMM library has written the product P
// (rounded to f32) into c, and computes each step as the reference kernel of
// the op it replaces does (ir/scalar_math.h, in f32), so that a run with
// epilogues gives the interpreter's values bit for bit wherever the product
// does:
//  - bias: fl(P + bias[j]) on every row;
//  - relu: max(x, 0) as the max op (NaN propagates; max(-0, 0) is -0);
//  - gelu: the ops of the tanh GELU's decomposition in their order
//    (ir/op_rules_composite.cc decompose_gelu): h = x * 0.5, x3 = (x * x) * x,
//    t = tanh((x + x3 * 0.044715) * sqrt(2/pi)), h * (1 + t), each constant as
//    f32 holds it; the aux result is x (the pre-activation) itself;
//  - dgelu: P * gelu'(aux), gelu' the derivative of that formula in f32 (no
//    op sequence to reproduce: the fusion pass does not form it);
//  - bgradb: the bias gradient as reduce_sum's reference kernel computes it,
//    a double sum over k in index order, rounded once.
#pragma once

#include <cstddef>

#include "runtime/executable.h"

namespace mlc::rt {

// The tanh GELU of one f32 value, as above (the decomposition's roundings).
float gelu_tanh_f32(float x);
// Its derivative at x (for dgelu).
float gelu_tanh_grad_f32(float x);

// g's epilogue over c (the product, [batch * m, n] row-major f32): `a` is
// operand a (bgradb sums it), `extra` the epilogue's operand (the bias, or
// dgelu's aux), `more` its result (the aux, or the bias gradient); null where
// the epilogue has none. Does nothing for GemmEpilogue::none.
void apply_gemm_epilogue(const GemmParams& g, const std::byte* a, const std::byte* extra, std::byte* c,
                         std::byte* more);

}  // namespace mlc::rt
