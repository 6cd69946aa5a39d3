// The layout of a sharded dim (placement S(d), ir/mesh.h): chunk c of n equal
// chunks along dim d of a row-major tensor, copied out to a contiguous tensor
// of the chunk's shape or back in. Used by the collectives
// (runtime/collective_run.h) and by whoever splits or assembles whole tensors.
// Contract: shape[d] divides by n, 0 <= c < n, buffers do not overlap.
//
// A grid cuts every dim d into grid[d] chunks at once (ir/mesh.h shard_grid):
// the chunk at index[] is chunk index[d] of grid[d] along each dim d, the
// same elements whichever order the dims are cut in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "ir/types.h"
#include "runtime/tensor.h"

namespace mlc::rt {

void extract_chunk(const Shape& full, int64_t element_bytes, int64_t d, int64_t n, int64_t c,
                   const std::byte* full_data, std::byte* chunk);
void insert_chunk(const Shape& full, int64_t element_bytes, int64_t d, int64_t n, int64_t c,
                  const std::byte* chunk, std::byte* full_data);
// Chunk c of n along dim d of `full`, as a tensor of its own.
Tensor chunk_of(const Tensor& full, int64_t d, int64_t n, int64_t c);
// The chunk at `index` of `grid` (one entry per dim of `full`).
Tensor grid_chunk(const Tensor& full, const std::vector<int64_t>& grid, const std::vector<int64_t>& index);
// The inverse: the tensor of type `whole` made of the chunks of `grid`, each
// given by `chunk(index)` with the chunk's type (a contract).
Tensor assemble_grid(const TensorType& whole, const std::vector<int64_t>& grid,
                     const std::function<const Tensor&(const std::vector<int64_t>& index)>& chunk);

}  // namespace mlc::rt
