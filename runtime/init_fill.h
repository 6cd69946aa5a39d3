// One parameter's initialization (a ParamInit) drawn from PyTorch's CPU
// generator, as torch.nn.init's function or the layer's reset_parameters
// draws it in PyTorch 1.13 (docs/model-format.md, "init").
//
// Contracts: every kind but orthogonal is bit for bit torch's on an x86-64
// CPU with AVX2 (runtime/torch_generator.h; trunc_normal's erfinv as ATen's
// calc_erfinv with the multiply-adds torch's AVX2 build fuses). orthogonal
// draws torch's normals exactly, then takes the QR factorization with a
// positive diagonal (unique for a full-rank matrix) in double and rounds
// once: within f32 rounding of torch's LAPACK result, not bit for bit.
#pragma once

#include <span>

#include "ir/model_config.h"
#include "runtime/torch_generator.h"

namespace mlc::rt {

// Fills `out` (f32, of `shape`) by `init`, advancing `gen` as torch does.
void fill_init(std::span<float> out, const Shape& shape, const ParamInit& init, TorchGenerator& gen);

}  // namespace mlc::rt
