// `mlc predict`: the model's outputs (passes/predict_function.h: a
// classifier's logits, a regression's values) for every example of a data
// split, in the data's order, computed in batches by the compiled @predict.
// The targets need not be in the data: only the inputs the forward reads are
// loaded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/program.h"
#include "runtime/parameters.h"
#include "runtime/tensor.h"

namespace mlc {

struct PredictOptions {
  std::string data_path;  // empty: the model file's data file
  std::string split = "eval";  // "eval" or "train": the model file's mapping of that split
  int64_t batch = 0;           // 0: train.eval_batch_size, else up to 1024
  std::string value;           // a module's state_dict path: its output (ModelFile::build_module_output)
};

struct Predictions {
  rt::Tensor outputs;  // [examples, ...]: each example's output, in the data's order
  int64_t examples = 0, batch = 0;
  std::string data_path;
};

// `params`: the model's parameters and buffers (runtime/parameters.h), in the
// model's order. Errors name the data file, the split or the model file.
Expected<Predictions> predict(const Program& program, const std::vector<rt::NamedTensor>& params,
                              const PredictOptions& options);

}  // namespace mlc
