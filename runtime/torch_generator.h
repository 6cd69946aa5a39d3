// PyTorch 1.13's CPU generator (torch.manual_seed(seed)), bit for bit, and the
// draws of its CPU kernels that parameter initialization uses: uniform_ and
// normal_ on f32 tensors.
//
// Contracts:
//  - The engine is mt19937 seeded with the seed's low 32 bits; random() is one
//    32-bit draw, random64() two (the first the high half).
//  - uniform(from, to) is at::uniform_real_distribution<float>: 24 random bits
//    as a fraction in [0, 1), times (to - from) plus from, computed in double
//    from the float bounds and rounded to float.
//  - normal_(out, mean, stddev) is at::native normal_kernel for a contiguous
//    f32 tensor on a CPU with AVX2 (torch dispatches every x86-64 CPU since
//    Haswell there): with >= 16 elements, one float uniform per element, then
//    Box-Muller over blocks of 16 (element j and j + 8 from the pair j, j + 8;
//    an incomplete tail block redraws the last 16 elements) with the
//    polynomial log, sin and cos of ATen's avx_mathfun.h, evaluated in float
//    with the multiply-adds GCC fuses in torch's AVX2 build; with fewer, the
//    serial double Box-Muller of at::normal_distribution<double>, whose second
//    value (r sin theta) the generator caches for the next scalar draw, as
//    torch's next_double_normal_sample does.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>

namespace mlc::rt {

class TorchGenerator {
 public:
  explicit TorchGenerator(uint64_t seed) : engine_(static_cast<std::mt19937::result_type>(seed)) {}
  uint32_t random() { return engine_(); }
  uint64_t random64();
  float uniform(float from, float to);
  // at::uniform_real_distribution<double>(0, 1): 53 bits of random64().
  double uniform_double();
  // at::normal_distribution<double>(mean, stddev) with the cached second value.
  double normal_double(double mean, double stddev);
  // tensor.uniform_(from, to): the bounds rounded to float first.
  void uniform_(std::span<float> out, double from, double to);
  // tensor.normal_(mean, stddev) on a contiguous f32 tensor.
  void normal_(std::span<float> out, double mean, double stddev);

 private:
  std::mt19937 engine_;
  std::optional<double> next_normal_;
};

}  // namespace mlc::rt
