// The sharded checkpoint of fuzz_checkpoint's fixed model "fuzz" on mesh dp=2
// (fc.weight f32[2,3] and fc.weight.momentum_buffer f32[2,3] <S(0)>, fc.bias
// f32[2] <R>; step 7; values 0.25, 0.5, ...): the shards
// step_00000007.rank0000{0,1}.safetensors that every index input of the
// harness may name, and the index that names them. The harness writes them
// once into its temporary directory, tests/fuzz/make_seeds.cc to derive the
// index seeds: both must write the same bytes.
#pragma once

#include <string>
#include <vector>

#include "tests/runtime/sharded_checkpoint_fixture.h"

namespace mlc::fuzz {

// Writes the shards and the index into `dir`; returns the index's path, or "".
inline std::string write_checkpoint_shards(const std::string& dir) {
  std::vector<rt::NamedTensor> globals = {{"fc.weight", rt::Tensor(DType::f32, {2, 3})},
                                          {"fc.bias", rt::Tensor(DType::f32, {2})},
                                          {"fc.weight.momentum_buffer", rt::Tensor(DType::f32, {2, 3})}};
  float v = 0;
  for (rt::NamedTensor& t : globals)
    for (float& x : t.tensor.span<float>()) x = v += 0.25f;
  const std::vector<Placements> placements = {{Placement::S(0)}, {Placement::R()}, {Placement::S(0)}};
  return testing::write_sharded_fixture(dir, "fuzz", {7, 0, 4, 5, false}, 2, globals, placements);
}

}  // namespace mlc::fuzz
