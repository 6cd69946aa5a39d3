// Scaled dot-product attention and its masks, shared by
// F.scaled_dot_product_attention in forward statements (forward_attention.cc),
// nn.MultiheadAttention and the Transformer layers (layers_multihead.cc,
// layers_transformer_block.cc). docs/model-format.md, "Attention".
//
// Contracts:
//  - Callers check shapes and dtypes and report them in their own words; these
//    functions only emit ops (their errors are internal).
//  - Masks are additive float tensors of the scores' dtype: 0 where a query
//    may attend to a key, -inf where it may not; masks combine by addition
//    (a bool mask's -inf stays -inf), as PyTorch merges them.
#pragma once

#include <functional>

#include "frontends/forward_builtins.h"
#include "ir/builder.h"

namespace mlc {

// A bool mask as an additive one of `dtype`: -inf where the mask equals
// `masked_when` (nn.MultiheadAttention: True; F.scaled_dot_product_attention:
// False), 0 elsewhere. A float mask is returned as it is.
Expected<Value*> additive_mask(Builder& b, Value* mask, bool masked_when, DType dtype);

// The causal mask [L, S] of `dtype`: -inf above the diagonal (key j > query i).
Expected<Value*> causal_mask(Builder& b, int64_t L, int64_t S, DType dtype);

// `a + c` where either may be null (a missing mask).
Expected<Value*> add_masks(Builder& b, Value* a, Value* c);

struct Attention {
  Value* out = nullptr;      // [..., L, Ev]
  Value* weights = nullptr;  // [..., L, S]: the softmax, after dropout
};

// softmax((q * scale) kᵀ + mask) v for q [..., L, E], k [..., S, E], v [..., S, Ev]
// with equal leading dims; `mask` (nullable) broadcasts to [..., L, S];
// `dropout` (nullable) is applied to the softmax's weights.
Expected<Attention> emit_attention(Builder& b, Value* q, Value* k, Value* v, Value* mask, double scale,
                                   const std::function<Expected<Value*>(Value*)>& dropout);

// A tensor argument that may be absent or None (then nullptr).
Expected<Value*> optional_tensor(const Val& v, const std::string& what, const Loc& at);

// Ops emit_attention emits at most, masks excluded.
inline constexpr int64_t kAttentionOps = 6;
// Ops of additive_mask, causal_mask, add_masks at most.
inline constexpr int64_t kMaskOps = 3, kCausalOps = 6;

}  // namespace mlc
