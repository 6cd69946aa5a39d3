// The work budget of a model file (docs/limits.md): counted over the expanded
// model before anything is emitted. The defaults are the documented limits;
// fuzzers lower them so that one input stays quick under the sanitizers.
#pragma once

#include <cstdint>

namespace mlc {

struct ModelLimits {
  int64_t max_param_tensors = int64_t{1} << 20;
  int64_t max_repeat = int64_t{1} << 16;    // per repeat
  int64_t max_modules = int64_t{1} << 20;   // expanded layers, containers, repeats
  int64_t max_forward_ops = int64_t{1} << 16;  // ops of forward statements, expanded
  int64_t max_ir_ops = int64_t{1} << 18;       // IR ops of one function, expanded
};

}  // namespace mlc
