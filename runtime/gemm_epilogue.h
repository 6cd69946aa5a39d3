// GEMM epilogues on the host (runtime/executable.h GemmEpilogue), for the
// CPU's executor and so for the host-gpu target, whose GEMMs are the CPU's.
//
// apply_gemm_epilogue runs after the GEMM library has written the product P
// (rounded to f32), and computes each step as the reference kernel of the op
// it replaces does (ir/scalar_math.h, in f32), so that a run with epilogues
// gives the interpreter's values bit for bit wherever the product does
// (f32; bf16 and f16 below):
//  - bias: fl(P + bias[j]) on every row;
//  - relu: max(x, 0) as the max op (NaN propagates; max(-0, 0) is -0);
//  - gelu: the ops of the tanh GELU's decomposition in their order
//    (ir/op_rules_composite.cc decompose_gelu): h = x * 0.5, x3 = (x * x) * x,
//    t = tanh((x + x3 * 0.044715) * sqrt(2/pi)), h * (1 + t), each constant as
//    f32 holds it; the aux result is x (the pre-activation) itself;
//  - dgelu: the ops of kGeluGradSteps (below), the GELU's backward as
//    autodiff writes it, with g = P and x = the aux;
//  - the bias gradient: as reduce_sum's reference kernel computes it, a
//    double sum in index order, rounded once: bgradb's over k of op(a)'s
//    rows, dgelu_bgrad's over the rows of c (each column's).
// bf16 and f16 gemms compute as cuBLASLt does with CUBLAS_COMPUTE_32F: P is
// the f32 product (not rounded to the dtype), the bias and aux are read as
// floats, every step above is f32, and c, the aux and the bias gradient are
// rounded once to the dtype; dgelu_bgrad sums c's f32 values before that
// rounding. The interpreter rounds P, the bias add and the activation's
// result each (autocast), so results differ from its by a few units in the
// dtype's last place (tests/compiler/gemm_epilogue_test.cc bounds them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "ir/op_code.h"
#include "runtime/executable.h"

namespace mlc::rt {

// The tanh GELU of one f32 value, as above (the decomposition's roundings).
float gelu_tanh_f32(float x);

// The backward of the tanh GELU's decomposition as autodiff emits it
// (passes/autodiff.cc over decompose_gelu's ops, then canonicalize's CSE),
// op by op in program order: given the pre-activation x and the gradient g
// of the GELU's value, each step is an op over earlier steps (index >= 0) or
// a leaf (GeluGradLeaf); the last step is x's gradient,
//   (((du + dq s) + ds x) + ds x) + (g e) 0.5
// with s = x x, t = tanh(v), e = 1 + t, du = ((g (x 0.5)) (1 - t t)) r,
// dq = du k, ds = dq x (r = sqrt(2/pi), k = 0.044715). One table for both
// sides: the fusion pass forms dgelu where it finds these ops
// (compiler/gemm_epilogue_fusion.cc), and the host computes them
// (dgelu_tanh_f32), so that a change to autodiff's order breaks the test that
// compares the two (tests/compiler/gemm_epilogue_test.cc), not the numbers.
enum GeluGradLeaf : int8_t {
  kGeluX = -1, kGeluG = -2,  // the pre-activation and the incoming gradient
  kGeluHalf = -3, kGeluOne = -4, kGeluCubic = -5, kGeluSqrt2OverPi = -6  // 0.5, 1, 0.044715, sqrt(2/pi)
};
struct GeluGradStep {
  OpCode code;  // mul, add, sub or tanh (one operand: a)
  int8_t a, b;
};
inline constexpr std::array<GeluGradStep, 23> kGeluGradSteps = {{
    {OpCode::Mul, kGeluX, kGeluHalf},    //  0 h = x * 0.5       (the forward's chain, recomputed from x)
    {OpCode::Mul, kGeluX, kGeluX},       //  1 s = x * x
    {OpCode::Mul, 1, kGeluX},            //  2 q = s * x
    {OpCode::Mul, 2, kGeluCubic},        //  3 p = q * k
    {OpCode::Add, kGeluX, 3},            //  4 u = x + p
    {OpCode::Mul, 4, kGeluSqrt2OverPi},  //  5 v = u * r
    {OpCode::Tanh, 5, 0},                //  6 t = tanh(v)
    {OpCode::Add, kGeluOne, 6},          //  7 e = 1 + t
    {OpCode::Mul, kGeluG, 0},            //  8 g * h             (the backward)
    {OpCode::Mul, kGeluG, 7},            //  9 g * e
    {OpCode::Mul, 6, 6},                 // 10 t * t
    {OpCode::Sub, kGeluOne, 10},         // 11 1 - t * t
    {OpCode::Mul, 8, 11},                // 12 dv
    {OpCode::Mul, 12, kGeluSqrt2OverPi}, // 13 du
    {OpCode::Mul, 13, kGeluCubic},       // 14 dq
    {OpCode::Mul, 14, 1},                // 15 dq * s
    {OpCode::Mul, 14, kGeluX},           // 16 ds = dq * x
    {OpCode::Add, 13, 15},               // 17 du + dq * s
    {OpCode::Mul, 16, kGeluX},           // 18 ds * x
    {OpCode::Add, 17, 18},               // 19
    {OpCode::Add, 19, 18},               // 20
    {OpCode::Mul, 9, kGeluHalf},         // 21 (g * e) * 0.5
    {OpCode::Add, 20, 21},               // 22 dx
}};
// A constant leaf's value (kGeluHalf, ...), as the decomposition writes it.
double gelu_grad_constant(GeluGradLeaf leaf);

// kGeluGradSteps over f32 values, each op as its reference kernel computes it.
float dgelu_tanh_f32(float g, float x);

// g's epilogue over `product` ([batch * m, n] row-major f32: the product as
// the GEMM library wrote it, before any rounding to a bf16 or f16 g's dtype),
// which it overwrites, into c (of g's dtype; for f32, c may be `product`
// itself): `a` is operand a (bgradb sums it), `extra`
// the epilogue's operand (the bias, or dgelu's aux), `more` its result (the
// aux, or the bias gradient); null where the epilogue has none. Does nothing
// for GemmEpilogue::none.
void apply_gemm_epilogue(const GemmParams& g, const std::byte* a, const std::byte* extra, float* product,
                         std::byte* c, std::byte* more);

}  // namespace mlc::rt
