// Convolutions as unfold + one GEMM over the whole batch: the form in which
// lowering (compiler/lower.h) runs conv2d, conv2d_input_grad and
// conv2d_weight_grad. The interpreter keeps running them by their reference
// kernels, so it stays the oracle of this rewrite.
//
// With g groups, K = C/g*KH*KW, L = OH*OW and "arranged" meaning the batch
// folded into the columns:
//   cols = unfold(x) [N, C*KH*KW, L] arranged [g, K, N*L]   (one loop kernel)
//   dy_a = dy [N, O, OH, OW] arranged [g, O/g, N*L]          (one loop kernel)
//   w_a  = w [O, C/g, KH, KW] as [g, O/g, K]                  (a view)
//   conv2d             y  = dot(w_a, cols) [g, O/g, N*L] as [O, N, OH, OW],
//                           transposed to [N, O, OH, OW] (fused into its consumer)
//   conv2d_weight_grad dw = dot(dy_a, cols, transpose_b) [g, O/g, K] as [O, C/g, KH, KW]
//   conv2d_input_grad  dx = fold(dot(w_a, dy_a, transpose_a) [g, K, N*L] arranged
//                           [N, C*KH*KW, L])                 (the transpose fused into fold)
// With one group the g dim is dropped (plain rank-2 dots). Each dot lowers to
// one gemm instruction, so the GEMM library choice stays with `dot`.
//
// The arranged columns of x and the arranged dy are built for each op that
// reads them, then merged by common-subexpression elimination
// (passes/cse.h), so one of each is shared by every such op: conv2d and
// conv2d_weight_grad of the same x (forward and backward of a train step)
// share one unfold kernel, keeping the columns alive in the arena in between;
// the two gradients of one dy share its arrangement.
//
// Float ops (f32, f64, bf16, f16) with no empty operand or result are
// rewritten; the others keep their reference kernels. The reference kernels
// of bf16 and f16 convolutions convert the operands to f32, run the f32 path
// and round each result element once (runtime/kernels/dot_conv.cc,
// conv_grad.cc); the rewrite keeps that one rounding:
//  - conv2d and conv2d_weight_grad: the unfold and the arrangements stay in
//    the half dtype (copies: exact) and the dot is a half dot, whose gemm
//    accumulates in f32 and rounds each element once (runtime/onednn_gemm.h,
//    or the f32 fallback of runtime/half_gemm.h).
//  - conv2d_input_grad: fold sums the dot's results again, so a half dot
//    would round twice; instead dy and w are cast to f32, the dot and the fold
//    run in f32, and fold's result is cast to the half dtype once (the casts
//    are loop ops: they fuse into the kernels around them).
// Only the order of the sums differs from the interpreter's, as for f32.
// The rewritten values have the original's types, locations and scopes.
#pragma once

#include "ir/graph.h"

namespace mlc {

// Rewrites the convolutions of `f` as above; returns whether anything changed.
bool convolutions_to_gemm(Function& f);

}  // namespace mlc
