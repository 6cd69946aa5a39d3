// Spatial operations shared by the layers of layers_spatial.cc and the
// functional forms of forward_spatial.cc, with PyTorch 1.13's semantics, each
// emitted as a composition of existing IR ops (no op of its own):
//  - interpolate: nearest and bilinear resizing of [N,C,H,W] by gathers of
//    constant source indices (and, for bilinear, constant weights), the
//    indices and weights computed in f32 by PyTorch's CPU formulas;
//  - pad_mode: F.pad's constant / reflect / replicate padding of the last dims;
//  - pixel_shuffle / pixel_unshuffle: reshape, transpose, reshape;
//  - adaptive_pool2d: AdaptiveAvgPool2d / AdaptiveMaxPool2d windows
//    [floor(i*in/out), ceil((i+1)*in/out)) (one pooling op when the sizes divide);
//  - group_norm: GroupNorm / InstanceNorm statistics per (sample, group).
//
// Contract: every function checks its input and reports a mismatch as
// "<what>: <message>" at `at` before emitting anything; nothing aborts.
// Gradients come from the ops' VJPs (gather -> scatter_add, slice -> pad, ...).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "ir/builder.h"

namespace mlc {

// The largest dim a gather of constant indices makes (interpolate's output
// sizes, a reflect or replicate padded dim): the indices are a constant of
// that many elements in the IR.
inline constexpr int64_t kMaxGatheredDim = int64_t{1} << 20;

struct InterpolateArgs {
  std::array<int64_t, 2> size{};                      // the output's [H, W]
  std::optional<std::array<double, 2>> scale_factor;  // given (and not recomputed): the kernel's scale is 1/it
  bool bilinear = false;
  bool align_corners = false;
};

// The output size F.interpolate gives a size and scale factor: `size`, or
// floor(in * scale_factor) per dim (at most kMaxGatheredDim + 1: larger
// sizes are refused by emit_interpolate).
std::array<int64_t, 2> interpolate_size(const Shape& in, std::optional<std::array<int64_t, 2>> size,
                                        std::optional<std::array<double, 2>> scale_factor);

// y [N,C,OH,OW] from x [N,C,H,W] (float).
Expected<Value*> emit_interpolate(Builder& b, Value* x, const InterpolateArgs& args, const std::string& what,
                                  const Loc& at);
inline constexpr int64_t kInterpolateMaxOps = 20;

// F.pad(x, pad, mode, value): `pad` pairs (before, after) from the last dim
// backwards (PyTorch's order), all >= 0; mode "constant", "reflect" (each pad
// smaller than its dim) or "replicate".
Expected<Value*> emit_pad_mode(Builder& b, Value* x, const std::vector<int64_t>& pad, const std::string& mode,
                               double value, const std::string& what, const Loc& at);
inline constexpr int64_t kPadMaxOps = 2 * 8 + 1;  // a constant and a gather per padded dim

// pixel_shuffle(x [*, C*r*r, H, W]) -> [*, C, H*r, W*r]; pixel_unshuffle is its inverse.
Expected<Value*> emit_pixel_shuffle(Builder& b, Value* x, int64_t factor, bool unshuffle, const std::string& what,
                                    const Loc& at);
inline constexpr int64_t kPixelShuffleMaxOps = 3;

// adaptive_{avg,max}_pool2d(x [N,C,H,W] or [C,H,W], output_size) -> [.., OH, OW].
Expected<Value*> emit_adaptive_pool2d(Builder& b, Value* x, std::array<int64_t, 2> out, bool max,
                                      const std::string& what, const Loc& at);
// An upper bound on the ops emit_adaptive_pool2d emits for `out`.
int64_t adaptive_pool2d_max_ops(std::array<int64_t, 2> out);

// GroupNorm's normalization of x [N,C,*] over (C/groups channels, *) per sample
// and group, biased variance: (x - mean) * rsqrt(var + eps), then * weight +
// bias along dim 1 where given ([C] each, either may be null).
Expected<Value*> emit_group_norm(Builder& b, Value* x, int64_t groups, double eps, Value* weight, Value* bias,
                                 const std::string& what, const Loc& at);
inline constexpr int64_t kGroupNormMaxOps = 20;

}  // namespace mlc
