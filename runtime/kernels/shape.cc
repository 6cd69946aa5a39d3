// Data-movement kernels: broadcast, reshape, transpose, slice, concat, pad.
// They only move elements, so they dispatch on the element size, not the dtype
// (pad converts its fill value with the dtype).
#include <cstring>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

// dst (contiguous, shape `shape`) = src read with `src_strides` from `src_offset`.
Status gather_strided(const Tensor& src, int64_t src_offset, const std::vector<int64_t>& src_strides,
                      Tensor& dst) {
  return visit_bytes(dtype_size(dst.dtype()), [&](auto tag) -> Status {
    using U = typename decltype(tag)::type;
    strided_copy<U>(dst.shape(), dst.data<U>(), contiguous_strides(dst.shape()),
                    src.data<U>() + src_offset, src_strides);
    return {};
  });
}

template <class T>
void fill(Tensor& t, T value) {
  T* p = t.data<T>();
  for (int64_t i = 0, n = t.num_elements(); i < n; ++i) p[i] = value;
}

}  // namespace

Status kernel_Broadcast(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const auto& dims = op.attrs.get_ints("dims");
  const Tensor& x = *in[0];
  std::vector<int64_t> in_strides = contiguous_strides(x.shape());
  std::vector<int64_t> strides(out.rank(), 0);
  for (size_t i = 0; i < dims.size(); ++i)
    if (x.shape()[i] != 1) strides[dims[i]] = in_strides[i];
  return gather_strided(x, 0, strides, out);
}

Status kernel_Reshape(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  if (out.num_bytes()) std::memcpy(out.bytes(), in[0]->bytes(), out.num_bytes());
  return {};
}

Status kernel_Transpose(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const auto& perm = op.attrs.get_ints("perm");
  std::vector<int64_t> in_strides = contiguous_strides(in[0]->shape());
  std::vector<int64_t> strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) strides[i] = in_strides[perm[i]];
  return gather_strided(*in[0], 0, strides, out);
}

Status kernel_Slice(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const auto& start = op.attrs.get_ints("start");
  const auto& stride = op.attrs.get_ints("stride");
  std::vector<int64_t> in_strides = contiguous_strides(in[0]->shape());
  std::vector<int64_t> strides(in_strides.size());
  int64_t offset = 0;
  for (size_t i = 0; i < in_strides.size(); ++i) {
    offset += start[i] * in_strides[i];
    strides[i] = stride[i] * in_strides[i];
  }
  if (out.num_elements() == 0) return {};
  return gather_strided(*in[0], offset, strides, out);
}

Status kernel_Concat(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  int64_t axis = norm_axis(op.attrs.get_int("axis"), out.rank());
  const Shape& s = out.shape();
  int64_t outer = 1, inner = dtype_size(out.dtype());
  for (int64_t d = 0; d < axis; ++d) outer *= s[d];
  for (int64_t d = axis + 1; d < out.rank(); ++d) inner *= s[d];
  const int64_t out_row = s[axis] * inner;  // bytes per outer index in the result
  int64_t col = 0;                          // byte offset of the current operand in a row
  for (const Tensor* t : in) {
    int64_t row = t->shape()[axis] * inner;
    for (int64_t o = 0; o < outer && row > 0; ++o)
      std::memcpy(out.bytes() + o * out_row + col, t->bytes() + o * row, row);
    col += row;
  }
  return {};
}

Status kernel_Pad(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const auto& low = op.attrs.get_ints("low");
  double value = op.attrs.get_float("value");
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    fill<T>(out, convert<T>(value));
    return 0;
  });
  const Tensor& x = *in[0];
  if (x.num_elements() == 0) return {};
  std::vector<int64_t> out_strides = contiguous_strides(out.shape());
  int64_t offset = 0;
  for (size_t i = 0; i < low.size(); ++i) offset += low[i] * out_strides[i];
  return visit_bytes(dtype_size(out.dtype()), [&](auto tag) -> Status {
    using U = typename decltype(tag)::type;
    strided_copy<U>(x.shape(), out.data<U>() + offset, out_strides, x.data<U>(),
                    contiguous_strides(x.shape()));
    return {};
  });
}

}  // namespace mlc::rt
