// torch.optim.lbfgs._strong_wolfe (torch 1.13): the line search of LBFGS
// with line_search_fn "strong_wolfe" (c1 = 1e-4, c2 = 0.9, 25 evaluations at
// most), on the host. torch mixes Python floats (f64) and 0-dim f32 tensors
// in it, and which a value is decides its rounding: a TorchScalar carries
// the value and which it is, and combines as torch does (an op with a tensor
// is f32 arithmetic on both operands rounded to f32, a Python float divided
// by a tensor is the tensor's f32 reciprocal times it, comparisons with a
// tensor compare in f32, min and max return one of their operands as
// Python's do).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "ir/expected.h"

namespace mlc {

struct TorchScalar {
  double v = 0;
  bool tensor = false;  // an f32 tensor (v holds an f32 value), else a Python float
  static TorchScalar f32(float x) { return {static_cast<double>(x), true}; }
  static TorchScalar py(double x) { return {x, false}; }
};

TorchScalar operator+(TorchScalar a, TorchScalar b);
TorchScalar operator-(TorchScalar a, TorchScalar b);
TorchScalar operator*(TorchScalar a, TorchScalar b);
TorchScalar operator/(TorchScalar a, TorchScalar b);
bool operator<(TorchScalar a, TorchScalar b);
bool operator<=(TorchScalar a, TorchScalar b);
inline bool operator>(TorchScalar a, TorchScalar b) { return b < a; }
inline bool operator>=(TorchScalar a, TorchScalar b) { return b <= a; }
TorchScalar abs(TorchScalar a);

struct LineSearch {
  float loss = 0;             // at the step taken
  std::vector<float> grad;    // there
  TorchScalar t;              // the step
  int64_t evals = 0;          // closure calls
};

// The loss at x + t * d and its gradient (the parameters restored after).
using DirectionalEvaluate = std::function<Expected<float>(TorchScalar t, std::vector<float>& grad)>;

// From the loss `f`, gradient `g` and directional derivative `gtd` at x,
// along `d`, starting with step `t`.
Expected<LineSearch> strong_wolfe(const DirectionalEvaluate& obj, TorchScalar t, const std::vector<float>& d, float f,
                                  const std::vector<float>& g, TorchScalar gtd, double tolerance_change);

}  // namespace mlc
