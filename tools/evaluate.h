// Evaluation of a model over a data split with given parameters: mean loss over
// every position and, for classifiers, accuracy computed from counts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "frontends/model_file.h"
#include "runtime/dataset.h"
#include "runtime/parameters.h"

namespace mlc {

struct EvalResult {
  double loss = 0;                  // mean over all positions
  std::optional<double> accuracy;   // classifiers only
  int64_t correct = 0;
  int64_t positions = 0;
  int64_t examples = 0;
};

// Runs @eval over `split` in batches of `batch` examples (the last batch may be
// smaller). `params` are in model-config order.
Expected<EvalResult> evaluate(const ModelFile& model, const rt::Split& split,
                              const std::vector<rt::NamedTensor>& params, int64_t batch);

// Runs @loss on one batch (the first `batch` examples of `split` from `begin`).
Expected<double> batch_loss(const ModelFile& model, const rt::Split& split,
                            const std::vector<rt::NamedTensor>& params, int64_t begin, int64_t batch);

}  // namespace mlc
