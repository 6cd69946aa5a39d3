// Draws of the keyed generator (ir/random.h's random_uniform, a pure function
// of seed, stream, step and element index) that the Dropout layer and the
// forward built-ins dropout, rand_like and randn_like share
// (docs/model-format.md, "Dropout" and "Randomness in forward").
//
// Contracts, for a tensor of n elements and element i at flat position i:
//  - uniform:  u_i = random_uniform(i, step) {seed, stream}, f32 in [0, 1);
//  - dropout:  x * select(u_i >= f32(p), f32(1 / f32(1 - p)), 0), in x's dtype;
//  - normal:   z_i = sqrt(-2 log(1 - u_i)) * cos(2 pi u_{n+i}), computed in f32
//              (Box-Muller on the draws of indices i and n + i).
// Every op is emitted at the builder's loc; ops take the step value given.
#pragma once

#include <cstdint>

#include "ir/builder.h"
#include "ir/expected.h"

namespace mlc {

struct RandomKey {
  uint64_t seed = 0;
  uint32_t stream = 0;
  Value* step = nullptr;  // i64[]
};

// The f32 draws u_{offset + i} for a tensor of `shape`.
Expected<Value*> emit_uniform_draws(Builder& b, const Shape& shape, const RandomKey& key, int64_t offset = 0);
Expected<Value*> emit_dropout(Builder& b, Value* x, double p, const RandomKey& key);
// Standard normal draws of `shape` in f32.
Expected<Value*> emit_normal_draws(Builder& b, const Shape& shape, const RandomKey& key);

}  // namespace mlc
