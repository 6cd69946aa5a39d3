#include "runtime/tensor_chunks.h"

#include <cstring>

namespace mlc::rt {

namespace {

// The tensor seen as [outer, shape[d], inner bytes]; a chunk is `rows` runs of
// `row` bytes, run o starting at `full_offset(o)` in the whole tensor.
struct ChunkRows {
  int64_t outer = 1, mid = 1, inner = 1, row = 0;
  ChunkRows(const Shape& shape, int64_t element_bytes, int64_t d, int64_t n) : inner(element_bytes) {
    for (int64_t i = 0; i < static_cast<int64_t>(shape.size()); ++i) {
      if (i < d) outer *= shape[i];
      if (i == d) mid = shape[i];
      if (i > d) inner *= shape[i];
    }
    row = mid / n * inner;
  }
  int64_t full_offset(int64_t o, int64_t c) const { return o * mid * inner + c * row; }
};

}  // namespace

void extract_chunk(const Shape& full, int64_t element_bytes, int64_t d, int64_t n, int64_t c,
                   const std::byte* full_data, std::byte* chunk) {
  ChunkRows r(full, element_bytes, d, n);
  for (int64_t o = 0; o < r.outer; ++o)
    std::memcpy(chunk + o * r.row, full_data + r.full_offset(o, c), static_cast<size_t>(r.row));
}

void insert_chunk(const Shape& full, int64_t element_bytes, int64_t d, int64_t n, int64_t c,
                  const std::byte* chunk, std::byte* full_data) {
  ChunkRows r(full, element_bytes, d, n);
  for (int64_t o = 0; o < r.outer; ++o)
    std::memcpy(full_data + r.full_offset(o, c), chunk + o * r.row, static_cast<size_t>(r.row));
}

Tensor chunk_of(const Tensor& full, int64_t d, int64_t n, int64_t c) {
  Shape shape = full.shape();
  shape[d] /= n;
  Tensor out(TensorType{full.dtype(), shape});
  extract_chunk(full.shape(), dtype_size(full.dtype()), d, n, c, full.bytes(), out.bytes());
  return out;
}

}  // namespace mlc::rt
