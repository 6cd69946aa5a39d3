// Indexing kernels: gather (numpy take along an axis) and scatter_add (its
// transpose). Indices are i32 or i64 and must lie in [0, size of the axis);
// any other index (negative ones included) is an error naming the first bad
// index, before anything is written.
//
// scatter_add adds updates in row-major order of `updates`; repeated indices
// accumulate. bf16/f16 accumulate in float and round once per element.
#include <cstring>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

// The indices as i64, or an error for the first one outside [0, n).
Expected<std::vector<int64_t>> read_indices(const Op& op, const Tensor& idx, int64_t n,
                                            int64_t axis) {
  std::vector<int64_t> out(idx.num_elements());
  visit_dtype(idx.dtype(), [&](auto tag) {
    using I = typename decltype(tag)::type;
    if constexpr (kIsInt<I>) {
      const I* p = idx.data<I>();
      for (size_t i = 0; i < out.size(); ++i) out[i] = p[i];
    }
    return 0;
  });
  for (int64_t v : out)
    if (v < 0 || v >= n)
      return kernel_error(op, "index " + std::to_string(v) + " out of range [0, " +
                                  std::to_string(n) + ") along axis " + std::to_string(axis));
  return out;
}

// table viewed as [pre, n, post] along `axis`.
struct AxisView {
  int64_t pre = 1, n = 0, post = 1, axis = 0;
};

AxisView axis_view(const Op& op, const Shape& s) {
  AxisView v;
  v.axis = norm_axis(op.attrs.get_int("axis"), static_cast<int64_t>(s.size()));
  v.n = s[v.axis];
  for (int64_t d = 0; d < v.axis; ++d) v.pre *= s[d];
  for (size_t d = v.axis + 1; d < s.size(); ++d) v.post *= s[d];
  return v;
}

template <class T>
void scatter_add_impl(const AxisView& v, const std::vector<int64_t>& idx, const T* upd, T* out) {
  const int64_t ni = static_cast<int64_t>(idx.size());
  if constexpr (kIsHalf<T>) {
    // Accumulate in float, round once.
    int64_t total = v.pre * v.n * v.post;
    std::vector<float> acc(total);
    for (int64_t i = 0; i < total; ++i) acc[i] = out[i].to_float();
    for (int64_t p = 0; p < v.pre; ++p)
      for (int64_t j = 0; j < ni; ++j) {
        float* dst = acc.data() + (p * v.n + idx[j]) * v.post;
        const T* src = upd + (p * ni + j) * v.post;
        for (int64_t q = 0; q < v.post; ++q) dst[q] += src[q].to_float();
      }
    for (int64_t i = 0; i < total; ++i) out[i] = T::from_float(acc[i]);
  } else {
    for (int64_t p = 0; p < v.pre; ++p)
      for (int64_t j = 0; j < ni; ++j) {
        T* dst = out + (p * v.n + idx[j]) * v.post;
        const T* src = upd + (p * ni + j) * v.post;
        for (int64_t q = 0; q < v.post; ++q) {
          if constexpr (kIsInt<T>) dst[q] = wrap_add(dst[q], src[q]);
          else dst[q] += src[q];
        }
      }
  }
}

}  // namespace

Status kernel_Gather(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const Tensor& table = *in[0];
  AxisView v = axis_view(op, table.shape());
  MLC_TRY(std::vector<int64_t> idx, read_indices(op, *in[1], v.n, v.axis));
  const int64_t ni = static_cast<int64_t>(idx.size());
  const int64_t row = v.post * dtype_size(table.dtype());  // bytes per index
  if (row == 0) return {};
  for (int64_t p = 0; p < v.pre; ++p)
    for (int64_t j = 0; j < ni; ++j)
      std::memcpy(out.bytes() + (p * ni + j) * row, table.bytes() + (p * v.n + idx[j]) * row, row);
  return {};
}

Status kernel_ScatterAdd(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const Tensor& operand = *in[0];
  AxisView v = axis_view(op, operand.shape());
  MLC_TRY(std::vector<int64_t> idx, read_indices(op, *in[1], v.n, v.axis));
  if (out.num_bytes()) std::memcpy(out.bytes(), operand.bytes(), out.num_bytes());
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return unsupported_dtype(op, out.dtype());
    } else {
      scatter_add_impl<T>(v, idx, in[2]->data<T>(), out.data<T>());
      return {};
    }
  });
}

}  // namespace mlc::rt
