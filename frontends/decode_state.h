// Incremental decoding (`mlc generate`, docs/generation.md): what the frontend
// needs to build a model's forward over a key/value cache.
//
// Two builds of the forward, both in evaluation mode, at batch 1:
//  - prefill: the token input is the model file's whole window [1, T]. Every
//    CausalSelfAttention computes as in @eval and also writes its keys and
//    values ([1, heads, T, head_dim]) into its cache.
//  - step: the token input is one token [1, 1] at `position` (i64[], 0 <=
//    position < T). Each CausalSelfAttention writes the token's key and value
//    into row `position` of its cache and attends over the cache's rows
//    0..position (later rows are masked out, as the causal mask does in the
//    whole-window forward); `arange(T)` and `arange(tokens.size(1))` in a
//    forward denote positions, so they become [position].
// The caches are {state} arguments the function updates in place (results
// with `updates`), one key and one value cache per attention call, in call
// order. Attention written by hand in a forward reads no cache: such a model
// builds but computes another function, which is why `mlc generate` checks
// the step against the whole-window forward before using it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace mlc {

struct DecodeState {
  enum class Mode { prefill, step };
  Mode mode = Mode::prefill;
  Function* function = nullptr;  // the function being built (caches are its arguments)
  int64_t context = 0;           // T: the token input's length in the model file
  Value* position = nullptr;     // step: i64[], the position of the token decoded

  // Adds the {state} argument of a cache for layer `path` (`kind` "k" or "v"),
  // named "<path>.<kind>_cache" (".1", ".2", ... for later calls of the layer).
  Value* cache_arg(const std::string& path, const std::string& kind, const TensorType& type);
  // Records `updated` as the new value of cache argument `arg`.
  void update(Value* arg, Value* updated);

  struct Update {
    Value* arg;
    Value* value;
  };
  std::vector<Update> updates;  // in the order the caches were made
};

}  // namespace mlc
