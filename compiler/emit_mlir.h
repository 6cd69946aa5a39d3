// Emitting an mlc module as MLIR text in upstream dialects only (func, arith,
// math, tensor, linalg), for `mlc ir --emit mlir`. `mlir-opt-19 FILE` parses
// and verifies the output with no flags and no mlc dialect.
//
// Contract:
//  - Every mlc function becomes a func.func of the same name on ranked
//    tensors (`f32[32,10]` -> `tensor<32x10xf32>`, `f32[]` -> `tensor<f32>`);
//    argument kinds become `{mlc.arg = "param"}`, results that update an
//    argument `{mlc.updates = "fc1.weight"}`, module attributes
//    `mlc.<name>` (all discardable attributes). mlc has no calls, so no
//    func.call appears. Each op's source location becomes its MLIR `loc(...)`.
//  - dtypes: f32 -> f32, f64 -> f64, bf16 -> bf16, f16 -> f16, i32 -> i32,
//    i64 -> i64, bool -> i1.
//  - Meaning: the same as the reference interpreter (runtime/kernels/),
//    rounding included, but for the order of the sums in contractions (which
//    BLAS picks in mlc) and i64 -> bf16/f16 casts above 2^53 (rounded once
//    here, through f64 in mlc). Elementwise bodies instantiate ir/scalar_math.h;
//    bf16/f16 arithmetic is done in f32 and rounded once per result;
//    float sums (reduce_sum, pooling sums and gradients, fold) accumulate in f64;
//    contractions accumulate in f32 (f64 for f64); integer add/sub/mul wrap;
//    x / -1 is -x; max/min/reductions propagate NaN and keep the first
//    operand at ties, exactly as mlc does (not arith.maximumf).
//  - Ops:
//      elementwise, compare, select, cast, broadcast, iota:
//                      linalg.generic (numpy broadcasting as affine maps with
//                      0 for stretched dims; iota through linalg.index)
//      reshape         tensor.collapse_shape / expand_shape, else tensor.reshape
//      transpose       linalg.transpose
//      slice, pad      tensor.extract_slice, tensor.pad
//      concat          tensor.insert_slice of each operand into tensor.empty
//      reduce_*, argmax     linalg.generic with reduction iterators
//      dot             linalg.matmul / batch_matmul (and their _transpose_a/_b
//                      forms), else linalg.generic
//      conv2d          linalg.conv_2d_nchw_fchw (groups: conv_2d_ngchw_gfchw)
//                      after tensor.pad
//      conv2d_weight_grad, avg_pool2d, unfold   linalg.generic over the padded input
//      conv2d_input_grad, max_pool2d(_grad, _indices, _scatter), avg_pool2d_grad,
//                      fold, gather:
//                      linalg.generic whose body reads with tensor.extract
//      scatter_add     linalg.generic over (operand, index) positions adding
//                      the updates whose index matches, in row-major order
//      constant        arith.constant dense<...>
//      composites      their decomposition (ir/decompose.h), as mlc runs them
//  - Not expressible in these dialects, so not checked: mlc's run-time errors
//    (integer division by zero, out-of-range gather/scatter indices, casts of
//    NaN/inf/out-of-range floats to ints) are left to arith's and tensor's
//    undefined behaviour; out-of-range scatter_add indices add nothing.
//  - The module must verify (ir/verifier.h); otherwise the verifier's error
//    is returned.
#pragma once

#include <string>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

Expected<std::string> emit_mlir(const Module& m);

// MLIR types: f32[2,3] -> "tensor<2x3xf32>", bool[] -> "tensor<i1>"; DType::f32 -> "f32".
std::string mlir_type(const TensorType& t);
std::string mlir_type(DType t);

}  // namespace mlc
