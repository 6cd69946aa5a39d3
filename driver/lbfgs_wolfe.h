// torch.optim.lbfgs._strong_wolfe (torch 1.13): the line search of LBFGS
// with line_search_fn "strong_wolfe" (c1 = 1e-4, c2 = 0.9, 25 evaluations at
// most), on the host. torch mixes Python floats (f64) and 0-dim f32 tensors
// in it, and which a value is decides its rounding: a TorchScalar carries
// the value and which it is, and combines as torch does (an op with a tensor
// is f32 arithmetic on both operands rounded to f32, a Python float divided
// by a tensor is the tensor's f32 reciprocal times it, comparisons with a
// tensor compare in f32, min and max return one of their operands as
// Python's do). An f64 model's (model.double()) tensors are f64: the same
// rules with f64 arithmetic.
#pragma once

#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "ir/expected.h"

namespace mlc {

struct TorchScalar {
  double v = 0;
  bool tensor = false;  // a 0-dim tensor (v holds an f32 value unless `wide`), else a Python float
  bool wide = false;    // the tensor is f64
  static TorchScalar f32(float x) { return {static_cast<double>(x), true, false}; }
  static TorchScalar f64(double x) { return {x, true, true}; }
  static TorchScalar py(double x) { return {x, false, false}; }
  // A 0-dim tensor of T (float or double).
  template <typename T>
  static TorchScalar of(T x) {
    if constexpr (std::is_same_v<T, double>) return f64(x);
    else return f32(x);
  }
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

// T: the parameters' dtype, float or double.
template <typename T>
struct LineSearch {
  T loss = 0;             // at the step taken
  std::vector<T> grad;    // there
  TorchScalar t;          // the step
  int64_t evals = 0;      // closure calls
};

// The loss at x + t * d and its gradient (the parameters restored after).
template <typename T>
using DirectionalEvaluate = std::function<Expected<T>(TorchScalar t, std::vector<T>& grad)>;

// From the loss `f`, gradient `g` and directional derivative `gtd` at x,
// along `d`, starting with step `t`.
template <typename T>
Expected<LineSearch<T>> strong_wolfe(const DirectionalEvaluate<T>& obj, TorchScalar t, const std::vector<T>& d, T f,
                                     const std::vector<T>& g, TorchScalar gtd, double tolerance_change);

}  // namespace mlc
