// Checking a model file's custom ops (frontends/custom_ops.h): the declared
// backward against central finite differences of the forward, in f64, at the
// argument shapes of the ops' call sites in the model's trial build. What
// `mlc check-grad` prints.
//
// Contract, per custom op and call-site signature (f32[2000,1] -> f64[2000,1]):
//  - the inputs are uniform in [-1, 1] from a generator seeded with `seed`
//    (std::mt19937_64), then `cotangents` random cotangents u of the output
//    from the same generator;
//  - for each input element e (all of them up to kMaxCheckedElements, else
//    that many chosen at random) the numerical gradient of L = <u, f(x)> is
//    sum_k u_k (f(x + h e)_k - f(x - h e)_k) / 2h with h = 1e-5 * max(1, |x_e|)
//    (differences of equal elements are exactly 0, so only the changed
//    outputs round);
//  - it passes when every |analytic - numerical| <= kGradTolerance * max(1,
//    |numerical|). In f64 the central difference's truncation error is about
//    h^2 |f'''| / 6 ~ 2e-11 |f'''| and its rounding about eps |f| / h ~ 2e-11
//    |f|, so 1e-6 leaves four to five orders of magnitude for ops whose
//    derivatives are of order one on [-1, 1], while a wrong backward (a
//    coefficient off by a few per cent) fails by four orders of magnitude.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "frontends/model_file.h"

namespace mlc {

inline constexpr double kGradTolerance = 1e-6;
inline constexpr int64_t kMaxCheckedElements = 4096;

struct GradCheckOptions {
  uint64_t seed = 0;
  int cotangents = 3;
};

// One input of one custom op at one call-site signature.
struct InputGradCheck {
  std::string op;         // the custom op
  std::string signature;  // "legendre3(f32[2000,1])", as called in the model
  std::string input;
  int64_t elements = 0, checked = 0;  // of the input; compared (x cotangents)
  double max_abs_error = 0, max_rel_error = 0;  // rel: |a - n| / max(|n|, 1e-300)
  bool pass = true;
};

// Every input of every custom op the trial build calls, in the order of the
// "custom_ops" section; an op without call sites is not checked.
Expected<std::vector<InputGradCheck>> check_custom_op_gradients(const ModelFile& model,
                                                                const GradCheckOptions& options);

}  // namespace mlc
