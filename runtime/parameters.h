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

// Draws every parameter from its ParamInit in draw order (ParamInfo::
// draw_index: torch's constructors'; zeroed after the draw where the init
// says), copies the ParamInit::same_as ones, then draws every explicit_init
// (a model file's "init" rule) in order, from one generator seeded by `seed`:
// PyTorch's CPU generator after torch.manual_seed(seed), bit for bit
// (runtime/torch_generator.h, runtime/init_fill.h: orthogonal_ within f32
// rounding), so layers declared in the order of a torch.nn.Module's
// constructor, then torch.nn.init's calls in state_dict order, get exactly
// torch's values.
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
