// The tolerance of a dot or convolution computed with its sums in another
// order than the reference kernel's: lowering runs conv2d and its gradients
// as unfold + one GEMM over the batch (compiler/conv_to_gemm.h), the executor
// runs f32 GEMMs on libxsmm or oneDNN by size (runtime/executor.cc) where the
// interpreter calls OpenBLAS, and each library blocks and orders each
// element's K product terms as it likes.
//
// Bound: a sum of K terms computed in floating point in any order (with or
// without FMA) is within gamma_K * S of the exact sum, where S is the sum of
// the terms' magnitudes and gamma_K = K*u / (1 - K*u), u the unit roundoff
// (eps/2) (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed.,
// section 3.1 and eq. 3.5). The reference and the compiled result are each
// within that of the exact value, so they differ by at most 2 * gamma_K * S.
// S per element is the same op run on the inputs' magnitudes (|x|, |w|), as
// the interpreter computes it (its own rounding of S, relative K*u, is far
// below the margin this leaves: S enters the bound multiplied by 2*gamma_K).
// fold's f64 sums of at most KH*KW GEMM results fit the same bound with K
// counting every product term of an input-gradient element.
// bf16 and f16 dots and convolutions accumulate in f32 on both sides and
// round once: the interpreter's reference kernels run the f32 path on f32
// copies (runtime/kernels/dot_conv.cc, conv_grad.cc), the compiled gemms
// accumulate in f32 (runtime/onednn_gemm.h, runtime/half_gemm.h) and a half
// input gradient runs its dot and fold in f32 (compiler/conv_to_gemm.h). So:
// the f32 bound, plus the two roundings to nearest, each within half the
// dtype's epsilon of the result's magnitude, so at most
// epsilon * max(|want|, |got|) together.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ir/graph.h"
#include "runtime/interpreter.h"
#include "runtime/tensor.h"
#include "tests/compiler/op_case_util.h"
#include "tests/runtime/kernel_test_util.h"

namespace mlc::testing {

// Product terms summed into one result element of an f32, bf16 or f16 dot (K;
// f64 dots run on OpenBLAS as in the interpreter, bit for bit, unless
// `f64_dots_reordered`: cuBLASLt's on a GPU), or of conv2d or one of its
// gradients (x [N,C,H,W], w [O,C/g,KH,KW], y [N,O,OH,OW]); 0 for other ops.
inline int64_t reordered_terms(const Op& op, bool f64_dots_reordered = false) {
  auto shape = [](const Value* v) -> const Shape& { return v->type.shape; };
  switch (op.code) {
    case OpCode::Dot: {
      if (op.result()->type.dtype == DType::f64 && !f64_dots_reordered) return 0;
      const Shape& a = shape(op.operands[0]);
      return a[a.size() - (op.attrs.get_bool("transpose_a") ? 2 : 1)];
    }
    case OpCode::Conv2d: {
      const Shape& w = shape(op.operands[1]);
      return w[1] * w[2] * w[3];
    }
    case OpCode::Conv2dInputGrad: {
      const Shape& w = shape(op.operands[1]);
      return w[0] / op.attrs.get_int("groups") * w[2] * w[3];
    }
    case OpCode::Conv2dWeightGrad: {
      const Shape& y = shape(op.operands[1]);
      return y[0] * y[2] * y[3];
    }
    default: return 0;
  }
}

// 2 * gamma_K for dtype t.
inline double reordered_sum_factor(DType t, int64_t terms) {
  const double u = epsilon(t) / 2, ku = static_cast<double>(terms) * u;
  return 2 * ku / (1 - ku);
}

// |got - want| <= factor * magnitude, element by element.
// rounding: plus rounding * max(|want|, |got|) (a final rounding on each side).
inline void expect_within_sum_bound(const rt::Tensor& want, const rt::Tensor& got, const rt::Tensor& magnitude,
                                    double factor, double rounding = 0) {
  ASSERT_EQ(want.type(), got.type());
  std::vector<double> w = rt::testing::to_doubles(want), g = rt::testing::to_doubles(got),
                      s = rt::testing::to_doubles(magnitude);
  int reported = 0;
  for (size_t i = 0; i < w.size() && reported < 5; ++i) {
    const double tol = factor * s[i] + rounding * std::max(std::fabs(w[i]), std::fabs(g[i]));
    if (w[i] == g[i] || std::fabs(w[i] - g[i]) <= tol) continue;  // equal: even where k*u >= 1 (half types)
    ++reported;
    ADD_FAILURE() << "element " << i << ": interpreter " << w[i] << ", compiled " << g[i] << " (bound " << tol << ")";
  }
}

// The tensors of magnitudes |t| of `ts`.
inline std::vector<rt::Tensor> magnitudes(const std::vector<rt::Tensor>& ts) {
  std::vector<rt::Tensor> out;
  for (const rt::Tensor& t : ts) {
    std::vector<double> v = rt::testing::to_doubles(t);
    for (double& x : v) x = std::fabs(x);
    if (v.empty()) v.push_back(0);
    out.push_back(rt::testing::make_tensor(t.dtype(), t.shape(), v));
  }
  return out;
}

// Expects `got`, the compiled result of the dot or convolution `op` (the op of the
// function `interp` runs) on `inputs`, within the bound of `want`, the
// interpreter's result; S comes from `interp` run on |inputs|.
inline void expect_within_reordered_bound(const rt::Interpreter& interp, const Op& op,
                                     const std::vector<rt::Tensor>& inputs, const rt::Tensor& want,
                                     const rt::Tensor& got, bool f64_dots_reordered = false) {
  auto s = interp.run(magnitudes(inputs));
  ASSERT_TRUE(s.ok()) << s.error().message;
  const DType t = want.dtype();
  if (is_half(t)) {
    expect_within_sum_bound(want, got, (*s)[0], reordered_sum_factor(DType::f32, reordered_terms(op, f64_dots_reordered)), epsilon(t));
    return;
  }
  expect_within_sum_bound(want, got, (*s)[0], reordered_sum_factor(t, reordered_terms(op, f64_dots_reordered)));
}

}  // namespace mlc::testing
