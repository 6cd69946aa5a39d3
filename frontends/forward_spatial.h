// Spatial built-ins of forward statements, torch.nn.functional's:
// interpolate, pad, pixel_shuffle, pixel_unshuffle, adaptive_avg_pool2d,
// adaptive_max_pool2d and group_norm, emitted by frontends/spatial_ops.h.
//
// Contract: as forward_functional.h: every mismatch is reported before an op
// is emitted, at the callee or the offending argument; nothing aborts.
#pragma once

#include <optional>
#include <vector>

#include "frontends/forward_builtins.h"

namespace mlc {

// The largest output size per dim of a functional adaptive pool whose windows
// differ in size (its op count grows with it; equal windows are one op).
inline constexpr int64_t kFunctionalAdaptiveMax = 64;

// The built-in's result if `spec` is one of these, nullopt otherwise.
std::optional<Expected<Val>> emit_spatial_builtin(Builder& b, const BuiltinSpec& spec, const std::vector<Val>& args,
                                                  const Loc& at);

}  // namespace mlc
