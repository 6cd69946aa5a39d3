// Reduction kernels: reduce_sum, reduce_max, reduce_min, argmax.
//
// Accumulation: reduce_sum of float dtypes (f32, f64, bf16, f16) accumulates in
// double and rounds once to the result dtype (more accurate than PyTorch's
// float accumulation, so results agree with PyTorch to within f32 rounding);
// integer sums accumulate in i64 and wrap to the result dtype. The sum over zero
// elements is 0. reduce_max/min and argmax propagate NaN (a NaN is the maximum
// and the minimum; argmax returns the first NaN's index); argmax returns the
// first maximal index otherwise.
#include <cmath>
#include <limits>

#include "runtime/kernels/kernel_util.h"

namespace mlc::rt {

namespace {
using namespace kern;

// Which input dims the op reduces.
std::vector<bool> reduced_dims(const Op& op, int64_t rank) {
  std::vector<bool> reduced(rank, false);
  for (int64_t d : op.attrs.get_ints("dims")) reduced[norm_axis(d, rank)] = true;
  return reduced;
}

// Strides, over the input's dims, of the result element each input element
// folds into: 0 along reduced dims.
std::vector<int64_t> fold_strides(const Shape& in, const std::vector<bool>& reduced) {
  Shape kept;
  for (size_t d = 0; d < in.size(); ++d)
    if (!reduced[d]) kept.push_back(in[d]);
  std::vector<int64_t> kept_strides = contiguous_strides(kept), s(in.size(), 0);
  for (size_t d = 0, k = 0; d < in.size(); ++d)
    if (!reduced[d]) s[d] = kept_strides[k++];
  return s;
}

// acc[j] = f(acc[j], x) for every input element x folding into result j.
template <class T, class Acc, class F>
void fold(const Tensor& x, const std::vector<bool>& reduced, Acc* acc, F f) {
  const T* px = x.data<T>();
  for_each_row<2>(x.shape(), {contiguous_strides(x.shape()), fold_strides(x.shape(), reduced)},
                  [&](const std::array<int64_t, 2>& off, int64_t n, const std::array<int64_t, 2>& st) {
                    const T* p = px + off[0];
                    Acc* a = acc + off[1];
                    if (st[1] == 0) {
                      Acc v = *a;
                      for (int64_t i = 0; i < n; ++i) v = f(v, p[i * st[0]]);
                      *a = v;
                    } else {
                      for (int64_t i = 0; i < n; ++i) a[i * st[1]] = f(a[i * st[1]], p[i * st[0]]);
                    }
                  });
}

template <class T>
using SumAcc = std::conditional_t<kIsFloat<T>, double, int64_t>;

template <bool kMax>
struct Extremum {
  template <class C> C operator()(C acc, C x) const {
    if constexpr (std::is_floating_point_v<C>)
      if (std::isnan(x)) return x;  // once acc is NaN, no comparison replaces it
    if constexpr (kMax) return x > acc ? x : acc;
    else return x < acc ? x : acc;
  }
};

template <bool kMax>
Status reduce_extremum(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return unsupported_dtype(op, out.dtype());
    } else {
      using C = Compute<T>;
      constexpr C init = std::numeric_limits<C>::has_infinity
                             ? (kMax ? -std::numeric_limits<C>::infinity()
                                     : std::numeric_limits<C>::infinity())
                             : (kMax ? std::numeric_limits<C>::lowest() : std::numeric_limits<C>::max());
      std::vector<C> acc(out.num_elements(), init);
      Extremum<kMax> ext;
      fold<T, C>(*in[0], reduced_dims(op, in[0]->rank()), acc.data(),
                 [ext](C a, T x) { return ext(a, load(x)); });
      T* y = out.data<T>();
      for (size_t i = 0; i < acc.size(); ++i) y[i] = store<T>(acc[i]);
      return {};
    }
  });
}

template <class C>
bool beats(C v, C best) {
  if constexpr (std::is_floating_point_v<C>)
    if (std::isnan(v)) return !std::isnan(best);
  return v > best;
}

// x viewed as [outer, n, inner] -> idx [outer, inner].
template <class T>
void argmax_impl(const T* x, int64_t outer, int64_t n, int64_t inner, int64_t* idx) {
  using C = Compute<T>;
  std::vector<C> best(inner);
  for (int64_t o = 0; o < outer; ++o, x += n * inner, idx += inner) {
    for (int64_t j = 0; j < inner; ++j) best[j] = load(x[j]), idx[j] = 0;
    for (int64_t k = 1; k < n; ++k)
      for (int64_t j = 0; j < inner; ++j) {
        C v = load(x[k * inner + j]);
        if (beats(v, best[j])) best[j] = v, idx[j] = k;
      }
  }
}

}  // namespace

Status kernel_ReduceSum(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  return visit_dtype(out.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return unsupported_dtype(op, out.dtype());
    } else {
      using Acc = SumAcc<T>;
      std::vector<Acc> acc(out.num_elements(), Acc(0));
      fold<T, Acc>(*in[0], reduced_dims(op, in[0]->rank()), acc.data(), [](Acc a, T x) {
        if constexpr (kIsFloat<T>) return a + static_cast<double>(load(x));
        else return static_cast<Acc>(static_cast<uint64_t>(a) + static_cast<uint64_t>(x));
      });
      T* y = out.data<T>();
      for (size_t i = 0; i < acc.size(); ++i) y[i] = convert<T>(acc[i]);
      return {};
    }
  });
}

Status kernel_ReduceMax(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  return reduce_extremum<true>(op, in, out);
}
Status kernel_ReduceMin(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  return reduce_extremum<false>(op, in, out);
}

Status kernel_Argmax(const Op& op, std::span<const Tensor* const> in, Tensor& out) {
  const Tensor& x = *in[0];
  int64_t axis = norm_axis(op.attrs.get_int("axis"), x.rank());
  int64_t outer = 1, inner = 1, n = x.shape()[axis];
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < x.rank(); ++d) inner *= x.shape()[d];
  return visit_dtype(x.dtype(), [&](auto tag) -> Status {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      return unsupported_dtype(op, x.dtype());
    } else {
      argmax_impl<T>(x.data<T>(), outer, n, inner, out.data<int64_t>());
      return {};
    }
  });
}

}  // namespace mlc::rt
