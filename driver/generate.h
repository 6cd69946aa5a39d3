// `mlc generate`: autoregressive decoding of a causal language model
// (docs/generation.md).
//
// The model's window T is its token input's length. Two compiled functions
// (ModelFile::build_generation): @prefill runs the forward over a window
// [1, T] and fills the key/value caches of its CausalSelfAttention layers;
// @decode runs one token at a position, reading and extending the caches, so
// a token costs one position's work (linear layers on one row, attention over
// the cached rows) whatever the prefix length. The caches are this call's
// tensors, updated in place.
//
// Like nanoGPT's generate, the context is the last T tokens: a prompt longer
// than T is cut to its last T, and once the sequence fills the window every
// further token is predicted by @prefill over the last T tokens (the learned
// positions move, so the caches cannot be reused).
//
// Without caches (options.cache false, a model with no CausalSelfAttention, or
// one whose @decode does not reproduce @prefill: attention written by hand in
// a forward reads no cache), every token runs @prefill over the window, the
// prefix padded on the right with token 0 (a causal model's logits at a
// position do not read later ones). The first cached step is checked against
// @prefill's logits at its position before the caches are used; the note says
// why no cache was used.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "driver/program.h"
#include "driver/token_sampling.h"
#include "runtime/parameters.h"

namespace mlc {

struct GenerateOptions {
  std::vector<int64_t> prompt;  // token ids, at least one
  int64_t max_new_tokens = 0;
  SamplingOptions sampling;
  uint64_t seed = 0;  // the sampler's generator (std::mt19937_64)
  bool cache = true;
  std::function<void(int64_t token)> on_token;  // called as each new token is chosen
};

struct Generation {
  std::vector<int64_t> tokens;  // the new tokens
  int64_t window = 0;           // T
  int64_t vocabulary = 0;       // the logits' last dim
  bool cached = false;          // whether @decode produced any token
  std::string note;             // why the caches were not used (empty when they were, or were not asked for)
  // Per new token: the seconds of the call that computed its logits, and how
  // many tokens that call's context held (the prefix length).
  std::vector<double> seconds;
  std::vector<int64_t> prefix;
  std::vector<bool> by_decode;  // whether that call was @decode
};

// `params`: the model's parameters and buffers, in the model's order. Errors
// name the model file.
Expected<Generation> generate(const Program& program, const std::vector<rt::NamedTensor>& params,
                              const GenerateOptions& options);

}  // namespace mlc
