// Model parameters as named host tensors: created by PyTorch's default
// initializations (seeded), or loaded from a safetensors file by name with every
// missing, extra or mis-shaped tensor reported.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "ir/model_config.h"
#include "runtime/tensor.h"

namespace mlc::rt {

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

// Draws every parameter from its ParamInit with a generator seeded by `seed`
// (same seed, same values; not PyTorch's bit stream: load PyTorch's weights
// with `load_parameters` for bit-identical starts).
std::vector<NamedTensor> init_parameters(const std::vector<ParamInfo>& params, uint64_t seed);

// Loads `params` by name from a safetensors file. The file must hold exactly
// these tensors with these types: the error lists every missing, extra and
// mis-shaped tensor (up to 10 of each).
Expected<std::vector<NamedTensor>> load_parameters(const std::vector<ParamInfo>& params,
                                                   const std::string& path);

}  // namespace mlc::rt
