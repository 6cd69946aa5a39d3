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

Tensor grid_chunk(const Tensor& full, const std::vector<int64_t>& grid, const std::vector<int64_t>& index) {
  Tensor t = full;
  for (size_t d = 0; d < grid.size(); ++d)
    if (grid[d] > 1) t = chunk_of(t, static_cast<int64_t>(d), grid[d], index[d]);
  return t;
}

namespace {

// The chunk of `grid` whose index starts with `prefix` along the dims before
// prefix.size() and spans the later dims whole: the chunks of the next dim
// inserted into it, each assembled the same way.
Tensor assemble_from(const TensorType& whole, const std::vector<int64_t>& grid, std::vector<int64_t>& prefix,
                     const std::function<const Tensor&(const std::vector<int64_t>&)>& chunk) {
  const size_t d = prefix.size();
  if (d == grid.size()) return chunk(prefix);
  if (grid[d] == 1) {  // one chunk: nothing to insert
    prefix.push_back(0);
    Tensor t = assemble_from(whole, grid, prefix, chunk);
    prefix.pop_back();
    return t;
  }
  Shape shape = whole.shape;
  for (size_t k = 0; k < d; ++k) shape[k] /= grid[k];
  Tensor out = Tensor::uninitialized(TensorType{whole.dtype, shape});
  for (int64_t c = 0; c < grid[d]; ++c) {
    prefix.push_back(c);
    const Tensor part = assemble_from(whole, grid, prefix, chunk);
    prefix.pop_back();
    insert_chunk(shape, dtype_size(whole.dtype), static_cast<int64_t>(d), grid[d], c, part.bytes(), out.bytes());
  }
  return out;
}

}  // namespace

Tensor assemble_grid(const TensorType& whole, const std::vector<int64_t>& grid,
                     const std::function<const Tensor&(const std::vector<int64_t>& index)>& chunk) {
  std::vector<int64_t> prefix;
  return assemble_from(whole, grid, prefix, chunk);
}

}  // namespace mlc::rt
