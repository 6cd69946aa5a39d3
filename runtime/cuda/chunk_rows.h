// Chunk c of n equal chunks along dim d of a row-major tensor (the layout of
// runtime/tensor_chunks.h, placement S(d)) as strided rows, so that the
// device moves a chunk with one 2D copy (cuMemcpy2DAsync) instead of a
// kernel. Viewing the whole tensor as [rows][n][width bytes] (rows = the
// product of the dims before d; width = shape[d] / n times the dims after
// d, in bytes), chunk c is row r's c-th piece for every r: `rows` rows of
// `width` bytes, `pitch` = n * width apart, starting at byte c * width.
// Packed alone, a chunk is the same rows `width` apart. So:
//   extract chunk c: src = whole + c * width, srcPitch = pitch,
//                    dst = chunk,             dstPitch = width;
//   insert chunk c:  the same with source and destination swapped;
// each WidthInBytes = width, Height = rows. Where every dim before d is 1
// (rows == 1) the chunks are contiguous and a collective moves them in
// place, with no copy.
//
// Contract: shape[d] divides by n and 0 <= d < rank (the collective's
// sizes were checked, runtime/collective_run.h).
#pragma once

#include <cstdint>

#include "ir/types.h"

namespace mlc::rt::cuda {

struct ChunkRows {
  int64_t rows = 0;   // product of the dims before d
  int64_t width = 0;  // bytes of one row of a chunk
  int64_t pitch = 0;  // bytes of one row of the whole tensor: n * width
  // Where chunk c's first row starts in the whole tensor.
  int64_t offset(int64_t c) const { return c * width; }
  // Whether chunk c is the whole tensor's bytes [c * width, (c + 1) * width).
  bool contiguous() const { return rows <= 1; }
};

inline ChunkRows chunk_rows(const Shape& whole, int64_t element_bytes, int64_t d, int64_t n) {
  ChunkRows c;
  c.rows = 1;
  for (int64_t i = 0; i < d; ++i) c.rows *= whole[static_cast<size_t>(i)];
  int64_t inner = element_bytes;
  for (size_t i = static_cast<size_t>(d); i < whole.size(); ++i) inner *= whole[i];
  c.pitch = inner;
  c.width = inner / n;
  return c;
}

}  // namespace mlc::rt::cuda
