// Spatial operations as compositions of IR ops (frontends/spatial_ops.h).
#include "frontends/spatial_ops.h"

#include <algorithm>
#include <cmath>

#include "frontends/emit_util.h"
#include "ir/diagnostics.h"

namespace mlc {

namespace {

Error fail(const std::string& what, const Loc& at, const std::string& message) {
  return error_at(at, what + ": " + message);
}

std::string str(int64_t v) { return std::to_string(v); }

// A constant vector of `values` of `dtype` and `shape` (a splat when it has one element).
Expected<Value*> emit_constant(Builder& b, const std::vector<double>& values, DType dtype, Shape shape) {
  AttrValue v;
  if (is_float(dtype)) {
    v = values.size() == 1 ? AttrValue{values[0]} : AttrValue{values};
  } else {
    std::vector<int64_t> ints(values.begin(), values.end());
    v = ints.size() == 1 ? AttrValue{ints[0]} : AttrValue{std::move(ints)};
  }
  return b.try_create(OpCode::Constant, {}, {{"value", std::move(v)}}, TensorType{dtype, std::move(shape)});
}

// x with dim `axis` replaced by x[..., indices[j], ...] for each j.
Expected<Value*> gather_along(Builder& b, Value* x, int64_t axis, const std::vector<int64_t>& indices) {
  MLC_TRY(Value* idx, emit_constant(b, std::vector<double>(indices.begin(), indices.end()), DType::i64,
                                    {static_cast<int64_t>(indices.size())}));
  return emit_op(b, OpCode::Gather, {x, idx}, {{"axis", axis}});
}

// Weights along `axis` of a rank-`rank` tensor: shape [n, 1, ..., 1].
Expected<Value*> weights_along(Builder& b, const std::vector<double>& w, DType dtype, int64_t axis, int64_t rank) {
  Shape shape{static_cast<int64_t>(w.size())};
  shape.resize(static_cast<size_t>(rank - axis), 1);
  return emit_constant(b, w, dtype, shape);
}

// PyTorch's compute_scales_value: 1/scale where given, else in/out, in T.
template <typename T>
T source_scale(int64_t in, int64_t out, std::optional<double> scale) {
  return scale && *scale > 0 ? static_cast<T>(1.0 / *scale) : static_cast<T>(in) / static_cast<T>(out);
}

// upsample_nearest's nearest_idx.
std::vector<int64_t> nearest_indices(int64_t in, int64_t out, std::optional<double> scale) {
  std::vector<int64_t> idx(static_cast<size_t>(out));
  const float s = source_scale<float>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) {
    if (out == in) idx[o] = o;
    else if (out == 2 * in) idx[o] = o >> 1;
    else idx[o] = std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
  }
  return idx;
}

struct LinearTaps {
  std::vector<int64_t> i0, i1;
  std::vector<double> l0, l1;
};

// upsample_bilinear's area_pixel_compute_scale and compute_source_index_and_lambda, in T.
template <typename T>
LinearTaps linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  LinearTaps t;
  const T ratio = align_corners ? (out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0))
                                : source_scale<T>(in, out, scale);
  for (int64_t o = 0; o < out; ++o) {
    T real = align_corners ? ratio * static_cast<T>(o)
                           : std::max(ratio * (static_cast<T>(o) + T(0.5)) - T(0.5), T(0));
    int64_t i0 = static_cast<int64_t>(real);
    T lambda1 = std::min(std::max(real - static_cast<T>(i0), T(0)), T(1));
    t.i0.push_back(i0);
    t.i1.push_back(i0 + (i0 < in - 1 ? 1 : 0));
    t.l1.push_back(static_cast<double>(lambda1));
    t.l0.push_back(static_cast<double>(T(1) - lambda1));
  }
  return t;
}

// One dim of a bilinear resize: x[i0] * l0 + x[i1] * l1 along `axis`.
Expected<Value*> linear_along(Builder& b, Value* x, int64_t axis, int64_t out, const InterpolateArgs& a, int d) {
  const int64_t in = x->type.shape[axis];
  std::optional<double> scale;
  if (a.scale_factor) scale = (*a.scale_factor)[d];
  LinearTaps t = x->type.dtype == DType::f64 ? linear_taps<double>(in, out, a.align_corners, scale)
                                             : linear_taps<float>(in, out, a.align_corners, scale);
  MLC_TRY(Value* g0, gather_along(b, x, axis, t.i0));
  MLC_TRY(Value* g1, gather_along(b, x, axis, t.i1));
  MLC_TRY(Value* w0, weights_along(b, t.l0, x->type.dtype, axis, x->type.rank()));
  MLC_TRY(Value* w1, weights_along(b, t.l1, x->type.dtype, axis, x->type.rank()));
  MLC_TRY(g0, emit_op(b, OpCode::Mul, {w0, g0}));
  MLC_TRY(g1, emit_op(b, OpCode::Mul, {w1, g1}));
  return emit_op(b, OpCode::Add, {g0, g1});
}

Expected<Value*> pool_slice(Builder& b, Value* x, int64_t axis, int64_t start, int64_t limit) {
  const int64_t rank = x->type.rank();
  std::vector<int64_t> lo(static_cast<size_t>(rank), 0), hi(x->type.shape), stride(static_cast<size_t>(rank), 1);
  lo[axis] = start;
  hi[axis] = limit;
  return emit_op(b, OpCode::Slice, {x}, {{"start", lo}, {"limit", hi}, {"stride", stride}});
}

// One dim of an adaptive pool of x [N,C,H,W]: the windows [floor(i*in/out),
// ceil((i+1)*in/out)) along `axis`. A max window is a max_pool2d spanning it
// (1 wide in the other dim), whose gradient goes to the first maximal element
// as PyTorch's does (reduce_max would share it among ties).
Expected<Value*> adaptive_along(Builder& b, Value* x, int64_t axis, int64_t out, bool max) {
  const int64_t in = x->type.shape[axis];
  if (in == out) return x;
  std::vector<Value*> pieces;
  std::vector<double> counts;
  for (int64_t i = 0; i < out; ++i) {
    const int64_t start = i * in / out, end = ((i + 1) * in + out - 1) / out;
    Value* window = x;
    if (end - start != in) {
      MLC_TRY(window, pool_slice(b, x, axis, start, end));
    }
    Value* r = nullptr;
    if (max) {
      std::vector<int64_t> kernel{1, 1};
      kernel[axis - 2] = end - start;
      MLC_TRY(r, emit_op(b, OpCode::MaxPool2d, {window},
                         {{"kernel", kernel}, {"stride", kernel}, {"padding", std::vector<int64_t>{0, 0}}}));
    } else {
      MLC_TRY(r, emit_op(b, OpCode::ReduceSum, {window}, {{"dims", std::vector<int64_t>{axis}}, {"keepdim", true}}));
    }
    pieces.push_back(r);
    counts.push_back(static_cast<double>(end - start));
  }
  Value* y = pieces[0];
  if (pieces.size() > 1) {
    MLC_TRY(y, emit_op(b, OpCode::Concat, pieces, {{"axis", axis}}));
  }
  if (max) return y;
  MLC_TRY(Value* n, weights_along(b, counts, x->type.dtype, axis, x->type.rank()));
  return emit_op(b, OpCode::Div, {y, n});
}

}  // namespace

std::array<int64_t, 2> interpolate_size(const Shape& in, std::optional<std::array<int64_t, 2>> size,
                                        std::optional<std::array<double, 2>> scale_factor) {
  if (size) return *size;
  std::array<int64_t, 2> out{};
  for (int d = 0; d < 2; ++d)
    out[d] = static_cast<int64_t>(std::min(std::floor(static_cast<double>(in[in.size() - 2 + d]) * (*scale_factor)[d]),
                                           static_cast<double>(kMaxGatheredDim + 1)));
  return out;
}

Expected<Value*> emit_interpolate(Builder& b, Value* x, const InterpolateArgs& a, const std::string& what,
                                  const Loc& at) {
  if (!is_float(x->type.dtype) || x->type.rank() != 4)
    return fail(what, at, "expected a float input [N,C,H,W], found " + x->type.str());
  for (int d = 0; d < 2; ++d) {
    if (a.size[d] < 1)
      return fail(what, at, "the output size " + str(a.size[0]) + "x" + str(a.size[1]) + " of input " +
                                x->type.str() + " is empty");
    if (a.size[d] > kMaxGatheredDim)
      return fail(what, at, "output sizes above " + str(kMaxGatheredDim) + " per dim are not supported, found " +
                                str(a.size[0]) + "x" + str(a.size[1]));
  }
  Value* y = x;
  // W first, then H: PyTorch's h0l * (w0l * x00 + w1l * x01) + h1l * (...), in its order.
  for (int d = 1; d >= 0; --d) {
    const int64_t axis = 2 + d, in = y->type.shape[axis], out = a.size[d];
    if (in == out) continue;
    if (a.bilinear) {
      MLC_TRY(y, linear_along(b, y, axis, out, a, d));
    } else {
      std::optional<double> scale;
      if (a.scale_factor) scale = (*a.scale_factor)[d];
      MLC_TRY(y, gather_along(b, y, axis, nearest_indices(in, out, scale)));
    }
  }
  return y;
}

Expected<Value*> emit_pad_mode(Builder& b, Value* x, const std::vector<int64_t>& pad, const std::string& mode,
                               double value, const std::string& what, const Loc& at) {
  const int64_t rank = x->type.rank(), dims = static_cast<int64_t>(pad.size()) / 2;
  if (pad.size() % 2 != 0) return fail(what, at, "the padding needs an even length, found " + str(pad.size()));
  if (dims > rank)
    return fail(what, at, "a padding of " + str(pad.size()) + " values pads " + str(dims) + " dims but input " +
                              x->type.str() + " has " + str(rank));
  for (int64_t p : pad)
    if (p < 0) return fail(what, at, "negative padding " + str(p) + " is not supported");
  if (mode == "constant") {
    std::vector<int64_t> low(static_cast<size_t>(rank), 0), high(static_cast<size_t>(rank), 0);
    for (int64_t k = 0; k < dims; ++k) {
      low[rank - 1 - k] = pad[2 * k];
      high[rank - 1 - k] = pad[2 * k + 1];
    }
    return emit_op(b, OpCode::Pad, {x}, {{"low", low}, {"high", high}, {"value", value}});
  }
  if (dims > 3 || rank < dims + 1 || rank > dims + 2)
    return fail(what, at, mode + " padding of " + str(dims) + " dims takes a " + str(dims + 1) + "-d or " +
                              str(dims + 2) + "-d input, found " + x->type.str());
  Value* y = x;
  for (int64_t k = 0; k < dims; ++k) {
    const int64_t axis = rank - 1 - k, n = x->type.shape[axis], lo = pad[2 * k], hi = pad[2 * k + 1];
    if (lo == 0 && hi == 0) continue;
    if (mode == "reflect" && (lo >= n || hi >= n))
      return fail(what, at, "reflect padding (" + str(lo) + ", " + str(hi) + ") must be smaller than dim " +
                                str(axis) + " of input " + x->type.str());
    if (n + lo + hi > kMaxGatheredDim)
      return fail(what, at, mode + " padding to a dim above " + str(kMaxGatheredDim) + " is not supported, found " +
                                str(n + lo + hi));
    std::vector<int64_t> idx;
    for (int64_t j = -lo; j < n + hi; ++j) {
      int64_t s = j;
      if (mode == "reflect") s = j < 0 ? -j : (j >= n ? 2 * (n - 1) - j : j);
      else s = std::clamp<int64_t>(j, 0, n - 1);
      idx.push_back(s);
    }
    MLC_TRY(y, gather_along(b, y, axis, idx));
  }
  return y;
}

Expected<Value*> emit_pixel_shuffle(Builder& b, Value* x, int64_t r, bool unshuffle, const std::string& what,
                                    const Loc& at) {
  const int64_t rank = x->type.rank();
  if (rank < 3) return fail(what, at, "expected an input [*, C, H, W], found " + x->type.str());
  const Shape& s = x->type.shape;
  int64_t batch = 1;
  for (int64_t d = 0; d + 3 < rank; ++d) batch *= s[d];
  const int64_t c = s[rank - 3], h = s[rank - 2], w = s[rank - 1];
  Shape out(s.begin(), s.end() - 3);
  Value* y = nullptr;
  if (!unshuffle) {
    if (c % (r * r) != 0)
      return fail(what, at, "input has " + str(c) + " channels, which is not divisible by upscale_factor^2 = " +
                                str(r * r));
    MLC_TRY(y, emit_reshape(b, x, {batch, c / (r * r), r, r, h, w}));
    MLC_TRY(y, emit_transpose(b, y, {0, 1, 4, 2, 5, 3}));
    out.insert(out.end(), {c / (r * r), h * r, w * r});
  } else {
    if (h % r != 0 || w % r != 0)
      return fail(what, at, "input " + x->type.str() + " has a height or width not divisible by downscale_factor " +
                                str(r));
    MLC_TRY(y, emit_reshape(b, x, {batch, c, h / r, r, w / r, r}));
    MLC_TRY(y, emit_transpose(b, y, {0, 1, 3, 5, 2, 4}));
    out.insert(out.end(), {c * r * r, h / r, w / r});
  }
  return emit_reshape(b, y, out);
}

int64_t adaptive_pool2d_max_ops(std::array<int64_t, 2> out) { return 2 * (out[0] + out[1]) + 10; }

Expected<Value*> emit_adaptive_pool2d(Builder& b, Value* x, std::array<int64_t, 2> out, bool max,
                                      const std::string& what, const Loc& at) {
  const int64_t rank = x->type.rank();
  if (!is_float(x->type.dtype) || (rank != 3 && rank != 4))
    return fail(what, at, "expected a float input [N,C,H,W] or [C,H,W], found " + x->type.str());
  Value* x4 = x;
  if (rank == 3) {
    MLC_TRY(x4, emit_reshape(b, x, {1, x->type.shape[0], x->type.shape[1], x->type.shape[2]}));
  }
  const int64_t h = x4->type.shape[2], w = x4->type.shape[3];
  if (h == out[0] && w == out[1]) return x;  // windows of one element
  Value* y = nullptr;
  if (h % out[0] == 0 && w % out[1] == 0) {
    // Equal windows: one pooling op (the same windows, sums and choices).
    std::vector<int64_t> kernel{h / out[0], w / out[1]};
    Attrs attrs{{"kernel", kernel}, {"stride", kernel}, {"padding", std::vector<int64_t>{0, 0}}};
    MLC_TRY(y, emit_op(b, max ? OpCode::MaxPool2d : OpCode::AvgPool2d, {x4}, std::move(attrs)));
  } else {
    // W first: a max then takes the first maximal element in row-major order.
    MLC_TRY(y, adaptive_along(b, x4, 3, out[1], max));
    MLC_TRY(y, adaptive_along(b, y, 2, out[0], max));
  }
  if (rank == 4) return y;
  return emit_reshape(b, y, {x->type.shape[0], out[0], out[1]});
}

Expected<Value*> emit_group_norm(Builder& b, Value* x, int64_t groups, double eps, Value* weight, Value* bias,
                                 const std::string& what, const Loc& at) {
  const int64_t rank = x->type.rank();
  if (!is_float(x->type.dtype) || rank < 2)
    return fail(what, at, "expected a float input [N, C, *], found " + x->type.str());
  const Shape& s = x->type.shape;
  const int64_t c = s[1];
  if (c % groups != 0)
    return fail(what, at, "input has " + str(c) + " channels, which is not divisible by num_groups " + str(groups));
  const int64_t m = x->type.num_elements() / std::max<int64_t>(s[0] * groups, 1);
  const DType t = x->type.dtype;
  const std::vector<int64_t> last{2};
  MLC_TRY(Value* xr, emit_reshape(b, x, {s[0], groups, m}));
  MLC_TRY(Value* count, emit_scalar(b, static_cast<double>(m), t));
  MLC_TRY(Value* sum, emit_op(b, OpCode::ReduceSum, {xr}, {{"dims", last}, {"keepdim", true}}));
  MLC_TRY(Value* mean, emit_op(b, OpCode::Div, {sum, count}));
  MLC_TRY(Value* centered, emit_op(b, OpCode::Sub, {xr, mean}));
  MLC_TRY(Value* sq, emit_op(b, OpCode::Mul, {centered, centered}));
  MLC_TRY(Value* sq_sum, emit_op(b, OpCode::ReduceSum, {sq}, {{"dims", last}, {"keepdim", true}}));
  MLC_TRY(Value* var, emit_op(b, OpCode::Div, {sq_sum, count}));
  MLC_TRY(Value* eps_c, emit_scalar(b, eps, t));
  MLC_TRY(Value* shifted, emit_op(b, OpCode::Add, {var, eps_c}));
  MLC_TRY(Value* inv, emit_op(b, OpCode::Rsqrt, {shifted}));
  MLC_TRY(Value* y, emit_op(b, OpCode::Mul, {centered, inv}));
  MLC_TRY(y, emit_reshape(b, y, s));
  Shape along{c};  // [C, 1, ...]: dim 1 of x
  along.resize(static_cast<size_t>(rank - 1), 1);
  for (auto [v, code] : {std::pair{weight, OpCode::Mul}, std::pair{bias, OpCode::Add}}) {
    if (!v) continue;
    MLC_TRY(Value* a, emit_reshape(b, v, along));
    MLC_TRY(y, emit_op(b, code, {y, a}));
  }
  return y;
}

}  // namespace mlc
