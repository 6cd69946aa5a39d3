// The layout of a sharded dim (placement S(d), ir/mesh.h): chunk c of n equal
// chunks along dim d of a row-major tensor, copied out to a contiguous tensor
// of the chunk's shape or back in. Used by the collectives
// (runtime/collective_run.h) and by whoever splits or assembles whole tensors.
// Contract: shape[d] divides by n, 0 <= c < n, buffers do not overlap.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ir/types.h"
#include "runtime/tensor.h"

namespace mlc::rt {

void extract_chunk(const Shape& full, int64_t element_bytes, int64_t d, int64_t n, int64_t c,
                   const std::byte* full_data, std::byte* chunk);
void insert_chunk(const Shape& full, int64_t element_bytes, int64_t d, int64_t n, int64_t c,
                  const std::byte* chunk, std::byte* full_data);
// Chunk c of n along dim d of `full`, as a tensor of its own.
Tensor chunk_of(const Tensor& full, int64_t d, int64_t n, int64_t c);

}  // namespace mlc::rt
