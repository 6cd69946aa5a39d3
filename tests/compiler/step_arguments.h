// Deterministic arguments for a train step of the examples (tests of the
// compiled step): small floats, valid class and token indices (< 10), step 1.
#pragma once

#include <vector>

#include "ir/graph.h"
#include "runtime/tensor.h"

namespace mlc::testing {

inline std::vector<rt::Tensor> step_arguments(const Function& f) {
  std::vector<rt::Tensor> args;
  for (size_t i = 0; i < f.args.size(); ++i) {
    rt::Tensor t(f.args[i]->type);
    for (int64_t k = 0; k < t.num_elements(); ++k) {
      if (t.dtype() == DType::f32) t.data<float>()[k] = static_cast<float>(((k * 37 + i * 11) % 23) - 11) / 64.0f;
      else if (t.dtype() == DType::i64) t.data<int64_t>()[k] = f.arg_kinds[i] == ArgKind::step ? 1 : (k * 7 + 3) % 10;
    }
    args.push_back(std::move(t));
  }
  return args;
}

}  // namespace mlc::testing
