// Activations as PyTorch names them, shared by the layers (torch.nn.LeakyReLU,
// ...; frontends/layers_activation.cc) and the forward built-ins
// (F.leaky_relu, ...; frontends/forward_builtins.cc): each is one op of
// ir/ops.def with its attributes, except PReLU (a learnable weight per channel,
// emitted as select and mul).
//
// Contract: the emitters check the input (float, PReLU's channels) and report
// mistakes at `at` as "what: expected ..., found ..."; they never abort.
#pragma once

#include <optional>
#include <string_view>

#include "ir/builder.h"

namespace mlc {

// PyTorch's SELU constants (torch.nn.SELU): elu with these alpha and scale.
inline constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
inline constexpr double kSeluScale = 1.0507009873554804934193349852946;

// prelu(x, w) = x > 0 ? x : w * x, w [C] along x's dim 1 (C = 1: any x; x of
// rank < 2 has one channel).
Expected<Value*> emit_prelu(Builder& b, Value* x, Value* w, const std::string& what, const Loc& at);

// softmax / log_softmax over `dim` (negative counts from the end), checked.
Expected<Value*> emit_softmax(Builder& b, Value* x, int64_t dim, bool log, const std::string& what,
                              const Loc& at);

}  // namespace mlc
