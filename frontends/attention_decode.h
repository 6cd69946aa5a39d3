// CausalSelfAttention over a key/value cache (frontends/decode_state.h).
#pragma once

#include "frontends/layers.h"

namespace mlc {

// What the attention reads when decoding: keys and values [B, heads, T, hd]
// over the cache, and the scores to mask (bool, broadcasting against the
// scores [B, heads, L, T]; true: -inf).
struct CachedAttention {
  Value* k = nullptr;
  Value* v = nullptr;
  Value* masked = nullptr;
};

// `k` and `v` are this call's keys and values [B, heads, L, hd]: prefill
// (L = T) writes them as the caches and masks as the causal mask does; step
// (L = 1) writes them into row `position` of the caches and masks the rows
// after it. `path` names the caches.
Expected<CachedAttention> attend_cached(LayerContext& ctx, Value* k, Value* v);

}  // namespace mlc
