#include "runtime/dataset.h"

#include <algorithm>
#include <cstring>

#include "ir/diagnostics.h"

namespace mlc::rt {

namespace {
// Resolves a Python slice bound against `size` (clamped like Python).
int64_t resolve(std::optional<int64_t> bound, int64_t size, int64_t fallback) {
  if (!bound) return fallback;
  int64_t b = *bound < 0 ? *bound + size : *bound;
  return std::clamp<int64_t>(b, 0, size);
}

void copy_slice(const std::byte* src, std::byte* dst, const Shape& src_shape,
                const std::vector<int64_t>& start, const Shape& dst_shape, int64_t elem, size_t dim,
                int64_t src_off, int64_t& dst_off) {
  int64_t inner = elem;
  for (size_t d = dim + 1; d < src_shape.size(); ++d) inner *= src_shape[d];
  if (dim + 1 == src_shape.size() || dst_shape.empty()) {
    int64_t n = dst_shape.empty() ? elem : dst_shape[dim] * elem;
    std::memcpy(dst + dst_off, src + src_off + (dst_shape.empty() ? 0 : start[dim] * elem), n);
    dst_off += n;
    return;
  }
  for (int64_t i = 0; i < dst_shape[dim]; ++i)
    copy_slice(src, dst, src_shape, start, dst_shape, elem, dim + 1,
               src_off + (start[dim] + i) * inner, dst_off);
}
}  // namespace

Expected<Tensor> slice_tensor(const Tensor& t, const std::vector<SliceRange>& slices) {
  if (slices.empty()) return t;
  if (static_cast<int64_t>(slices.size()) > t.rank())
    return make_error(std::to_string(slices.size()) + " slices for a tensor of rank " +
                      std::to_string(t.rank()));
  std::vector<int64_t> start(t.rank(), 0);
  Shape shape = t.shape();
  for (size_t d = 0; d < slices.size(); ++d) {
    start[d] = resolve(slices[d].start, t.shape()[d], 0);
    int64_t stop = resolve(slices[d].stop, t.shape()[d], t.shape()[d]);
    shape[d] = std::max<int64_t>(0, stop - start[d]);
  }
  Tensor out(t.dtype(), shape);
  if (out.num_elements() == 0) return out;
  int64_t dst_off = 0;
  copy_slice(t.bytes(), out.bytes(), t.shape(), start, shape, dtype_size(t.dtype()), 0, 0, dst_off);
  return out;
}

Expected<Split> Split::load(const SafetensorsFile& file, const std::vector<InputMapping>& mapping,
                            const std::vector<InputInfo>& inputs, const std::string& split_name) {
  Split split;
  std::string first_name;
  for (const InputInfo& input : inputs) {
    const InputMapping* m = nullptr;
    for (const InputMapping& candidate : mapping)
      if (candidate.input == input.name) m = &candidate;
    if (!m)
      return make_error("error: data split '" + split_name + "' does not map model input '" +
                        input.name + "'");
    auto where = [&](const std::string& what) {
      return error_at(m->loc, file.path + ": " + what);
    };
    auto tensor = file.get(m->tensor);
    if (!tensor)
      return make_error(tensor.error().message + " (mapped to input '" + input.name + "'" +
                        (m->loc.str().empty() ? "" : " at " + m->loc.str()) + ")");
    auto sliced = slice_tensor(**tensor, m->slices);
    if (!sliced) return where("tensor '" + m->tensor + "': " + sliced.error().message);
    Tensor t = std::move(sliced).value();
    Shape per_example = input.shape;
    if (input.batched) per_example.erase(per_example.begin() + input.batch_dim);
    Shape got(t.shape().begin() + (t.rank() ? 1 : 0), t.shape().end());
    if (t.dtype() != input.dtype || t.rank() == 0 || got != per_example)
      return where("tensor '" + m->tensor + "' gives " + t.type().str() + " but input '" +
                   input.name + "' needs " + std::string(dtype_name(input.dtype)) + "[N" +
                   (per_example.empty() ? "" : ",") + shape_to_string(per_example).substr(1));
    if (split.tensors_.empty()) {
      split.num_examples_ = t.shape()[0];
      first_name = m->tensor;
    } else if (t.shape()[0] != split.num_examples_) {
      return where("tensor '" + m->tensor + "' has " + std::to_string(t.shape()[0]) +
                   " examples but '" + first_name + "' has " + std::to_string(split.num_examples_));
    }
    split.tensors_.push_back(std::move(t));
  }
  return split;
}

std::vector<Tensor> Split::rows(int64_t begin, int64_t end) const {
  std::vector<Tensor> out;
  for (const Tensor& t : tensors_) {
    Shape shape = t.shape();
    shape[0] = end - begin;
    Tensor batch(t.dtype(), shape);
    int64_t row_bytes = t.shape()[0] ? t.num_bytes() / t.shape()[0] : 0;
    if (batch.num_bytes()) std::memcpy(batch.bytes(), t.bytes() + begin * row_bytes, batch.num_bytes());
    out.push_back(std::move(batch));
  }
  return out;
}

std::vector<Tensor> Split::gather(const std::vector<int64_t>& indices) const {
  std::vector<Tensor> out;
  gather_into(indices, out);
  return out;
}

void Split::gather_into(std::span<const int64_t> indices, std::vector<Tensor>& out) const {
  out.resize(tensors_.size());
  const int64_t n = static_cast<int64_t>(indices.size());
  for (size_t j = 0; j < tensors_.size(); ++j) {
    const Tensor& t = tensors_[j];
    Tensor& batch = out[j];
    bool fits = batch.dtype() == t.dtype() && batch.shape().size() == t.shape().size() && batch.shape()[0] == n;
    for (size_t d = 1; fits && d < t.shape().size(); ++d) fits = batch.shape()[d] == t.shape()[d];
    if (!fits) {
      Shape shape = t.shape();
      shape[0] = n;
      batch = Tensor(t.dtype(), shape);
    }
    int64_t row_bytes = t.shape()[0] ? t.num_bytes() / t.shape()[0] : 0;
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(batch.bytes() + i * row_bytes, t.bytes() + indices[i] * row_bytes, row_bytes);
  }
}

}  // namespace mlc::rt
