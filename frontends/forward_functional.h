// Built-ins of forward statements from torch.nn.functional and torch (the
// table is forward_builtins.cc's): the activations (leaky_relu, elu, selu,
// softplus, hardswish, mish, prelu, log1p, log_softmax), the losses
// (frontends/losses.h, classes along dim 1 as F.cross_entropy takes them,
// reduction as a string: reduction='sum'), argmax, cumsum, gather, chunk,
// split (a list of tensors: `mu, logvar = h.chunk(2, dim=1)`), stack and
// einsum (forward_einsum.cc).
//
// Contract: as forward_shape_ops.h: every mismatch is reported before an op
// is emitted, at the callee or the offending argument; nothing aborts.
#pragma once

#include <optional>
#include <vector>

#include "frontends/forward_builtins.h"

namespace mlc {

// torch.einsum(equation, *operands) of one or two float operands: labels are
// letters, each once per operand (no diagonals, no '...'); "->" optional.
Expected<Val> emit_einsum(Builder& b, const std::vector<Val>& args, const Loc& at);

// F.scaled_dot_product_attention(query, key, value, attn_mask=None,
// dropout_p=0.0, is_causal=False, scale=None) (forward_attention.cc): query,
// key and value of one dtype with equal leading dims; a bool attn_mask keeps
// where True, a float one is added; dropout_p must be 0.
Expected<Val> emit_sdpa(Builder& b, const std::vector<Val>& args, const Loc& at);

// The built-in's result if `spec` is one of these, nullopt otherwise.
std::optional<Expected<Val>> emit_functional_builtin(Builder& b, const BuiltinSpec& spec,
                                                     const std::vector<Val>& args, const Loc& at);

}  // namespace mlc
