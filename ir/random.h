// The one definition of random_uniform's scalar (ir/ops.def): a counter-based
// generator, so a draw is a pure function of its coordinates and any element
// can be computed alone, in any order, on any device.
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
// SC'11; Random123's constants). For element `index` of a draw at optimizer
// step `step` on stream `stream` (a layer call) under seed `seed`:
//   counter = (lo32(index), hi32(index), lo32(step), stream)
//   key     = (lo32(seed), hi32(seed))
//   u       = (philox4x32_10(counter, key)[0] >> 8) * 2^-24     in [0, 1)
// Philox is a bijection of the counter for a fixed key, so distinct
// (index, step, stream) never share a draw within 2^32 steps.
#pragma once

#include <array>
#include <cstdint>

namespace mlc::random {

using Philox4x32 = std::array<uint32_t, 4>;

inline Philox4x32 philox4x32_10(Philox4x32 c, std::array<uint32_t, 2> k) {
  constexpr uint64_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k[0] += kW0;
      k[1] += kW1;
    }
    const uint64_t p0 = kM0 * c[0], p1 = kM1 * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

inline float uniform(uint64_t index, uint64_t step, uint64_t seed, uint32_t stream) {
  Philox4x32 r = philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                                static_cast<uint32_t>(step), stream},
                               {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
  return static_cast<float>(r[0] >> 8) * 0x1p-24f;
}

}  // namespace mlc::random
