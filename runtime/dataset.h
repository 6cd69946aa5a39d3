// A data split: the model inputs of every example, read from a safetensors
// file through the model file's mapping (`tokens[:, :-1]`), validated against
// the declared inputs, and cut into batches of rows.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/model_config.h"
#include "runtime/safetensors.h"
#include "runtime/tensor.h"

namespace mlc::rt {

class Split {
 public:
  // Materializes `mapping` (one entry per model input it feeds) from `file`.
  // Every input of `inputs` that the split needs must be mapped; each mapped
  // tensor, after slicing, must have the input's dtype and per-example shape,
  // and all of them the same number of examples. Errors name the data file,
  // the tensor and the model file location of the mapping.
  static Expected<Split> load(const SafetensorsFile& file, const std::vector<InputMapping>& mapping,
                              const std::vector<InputInfo>& inputs, const std::string& split_name);

  int64_t num_examples() const { return num_examples_; }
  // Rows [begin, end) of every input, in `inputs` order.
  std::vector<Tensor> rows(int64_t begin, int64_t end) const;
  // The rows `indices` (each in [0, num_examples)), in that order.
  std::vector<Tensor> gather(const std::vector<int64_t>& indices) const;
  // The same rows into `out` (one tensor per model input): tensors of the
  // right dtype and shape are reused, so a training loop refilling one batch
  // buffer allocates nothing; others are replaced.
  void gather_into(std::span<const int64_t> indices, std::vector<Tensor>& out) const;

 private:
  std::vector<Tensor> tensors_;  // one per model input, example dim first
  int64_t num_examples_ = 0;
};

// Applies Python-style slices (dims 0, 1, ... in order) to a tensor.
Expected<Tensor> slice_tensor(const Tensor& t, const std::vector<SliceRange>& slices);

}  // namespace mlc::rt
