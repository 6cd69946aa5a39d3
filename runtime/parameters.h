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

// Draws every parameter from its ParamInit, in order, from one generator
// seeded by `seed`. Uniform draws reproduce PyTorch's CPU generator bit for
// bit (mt19937, 24-bit mantissas, torch's float arithmetic), so Linear and
// Conv2d layers declared in the order of a torch.nn.Module's constructor get
// exactly the weights torch.manual_seed(seed) gives them. Normal draws
// (Embedding) follow the same distribution but not torch's vectorized bit
// stream: load PyTorch's weights with `load_parameters` for those.
std::vector<NamedTensor> init_parameters(const std::vector<ParamInfo>& params, uint64_t seed);

// Loads `params` by name from a safetensors file. The file must hold exactly
// these tensors with these types: the error lists every missing, extra and
// mis-shaped tensor (up to 10 of each). When `state` is given (optimizer state
// with its names and types), the file may also hold all of those tensors
// (PyTorch names: `fc.weight.momentum_buffer`, ...), which then replace the
// values in `state`; holding only some of them is an error. It may also hold
// a parameter's aliases (ParamInfo::aliases: a tied weight under its user's
// name, as PyTorch's state_dict lists it) with values equal to the parameter's.
Expected<std::vector<NamedTensor>> load_parameters(const std::vector<ParamInfo>& params,
                                                   const std::string& path,
                                                   std::vector<NamedTensor>* state = nullptr);

}  // namespace mlc::rt
