// torch.nn.functional's spatial built-ins (forward_spatial.h).
#include "frontends/forward_spatial.h"

#include "frontends/spatial_ops.h"

namespace mlc {

namespace {

bool given(const Val& v) { return v.kind != Val::Kind::absent && v.kind != Val::Kind::none; }
const Loc& where(const Val& v, const Loc& at) { return v.loc.line ? v.loc : at; }

// An int or a pair of ints, each >= 1.
Expected<std::array<int64_t, 2>> size_pair(const Val& v, const std::string& what, const Loc& at) {
  MLC_TRY(std::vector<int64_t> p, int_list(v, what, at));
  if (p.size() == 1) p.push_back(p[0]);
  if (p.size() != 2 || p[0] < 1 || p[1] < 1 || p[0] > 65536 || p[1] > 65536)
    return fwd_error(where(v, at), what + " must be a positive integer or a pair of them (at most 65536), found " +
                                       v.describe());
  return std::array<int64_t, 2>{p[0], p[1]};
}

// A number or a pair of numbers, each > 0.
Expected<std::array<double, 2>> scale_pair(const Val& v, const std::string& what, const Loc& at) {
  std::vector<Val> items = v.kind == Val::Kind::list ? v.items : std::vector<Val>{v, v};
  if (items.size() != 2)
    return fwd_error(where(v, at), what + " must be a number or a pair of numbers, found " + v.describe());
  std::array<double, 2> s{};
  for (int d = 0; d < 2; ++d) {
    if (!items[d].is_number() || !(items[d].num > 0) || items[d].num > 65536)
      return fwd_error(where(items[d], at), what + " must be > 0, found " + items[d].describe());
    s[d] = items[d].num;
  }
  return s;
}

Expected<Val> interpolate(Builder& b, const std::vector<Val>& args, const Loc& at) {
  const std::string n = "interpolate";
  MLC_TRY(Value* x, tensor_arg(args[0], "interpolate", at));
  if (given(args[1]) == given(args[2]))
    return fwd_error(at, given(args[1]) ? n + ": only one of size or scale_factor should be defined"
                                        : n + ": either size or scale_factor should be defined");
  MLC_TRY(std::string mode, string_arg(args[3], "nearest", "interpolate's mode", at));
  if (mode != "nearest" && mode != "bilinear")
    return fwd_error(where(args[3], at), n + ": mode must be 'nearest' or 'bilinear', found '" + mode + "'");
  InterpolateArgs a;
  a.bilinear = mode == "bilinear";
  if (given(args[4])) {
    if (!a.bilinear)
      return fwd_error(where(args[4], at),
                       n + ": align_corners option can only be set with the interpolating modes: bilinear");
    MLC_TRY(a.align_corners, bool_arg(args[4], false, "interpolate's align_corners", at));
  }
  MLC_TRY(bool recompute, given(args[5]) ? bool_arg(args[5], false, "interpolate's recompute_scale_factor", at)
                                         : Expected<bool>(false));
  MLC_TRY(bool antialias, bool_arg(args[6], false, "interpolate's antialias", at));
  if (antialias) return fwd_error(where(args[6], at), n + ": antialias=True is not supported");
  if (x->type.rank() != 4) return fwd_error(at, n + ": expected a float input [N,C,H,W], found " + x->type.str());
  std::optional<std::array<int64_t, 2>> size;
  std::optional<std::array<double, 2>> scale;
  if (given(args[1])) {
    MLC_TRY(size, size_pair(args[1], "interpolate's size", at));
  } else {
    MLC_TRY(scale, scale_pair(args[2], "interpolate's scale_factor", at));
  }
  a.size = interpolate_size(x->type.shape, size, scale);
  if (!recompute) a.scale_factor = scale;
  MLC_TRY(Value* y, emit_interpolate(b, x, a, "forward: " + n, at));
  return Val::tensor(y, at);
}

Expected<Val> pad(Builder& b, const std::vector<Val>& args, const Loc& at) {
  const std::string n = "pad";
  MLC_TRY(Value* x, tensor_arg(args[0], "pad", at));
  MLC_TRY(std::vector<int64_t> p, int_list(args[1], "pad's pad", at));
  MLC_TRY(std::string mode, string_arg(args[2], "constant", "pad's mode", at));
  if (mode != "constant" && mode != "reflect" && mode != "replicate")
    return fwd_error(where(args[2], at), n + ": mode must be 'constant', 'reflect' or 'replicate', found '" + mode + "'");
  MLC_TRY(double value, number_arg(args[3], 0, "pad's value", at));
  if (mode != "constant" && given(args[3]) && value != 0)
    return fwd_error(where(args[3], at), n + ": padding mode \"" + mode + "\" doesn't take in value argument");
  MLC_TRY(Value* y, emit_pad_mode(b, x, p, mode, value, "forward: " + n, at));
  return Val::tensor(y, at);
}

}  // namespace

std::optional<Expected<Val>> emit_spatial_builtin(Builder& b, const BuiltinSpec& spec, const std::vector<Val>& args,
                                                  const Loc& at) {
  const std::string n(spec.name);
  if (n == "interpolate") return interpolate(b, args, at);
  if (n == "pad") return pad(b, args, at);
  auto body = [&]() -> Expected<Val> {
    MLC_TRY(Value* x, tensor_arg(args[0], n, at));
    Value* y = nullptr;
    if (n == "pixel_shuffle" || n == "pixel_unshuffle") {
      MLC_TRY(int64_t r, int_arg(args[1], n + "'s " + std::string(spec.params[1]), at));
      if (r < 1 || r > 65536)
        return fwd_error(where(args[1], at), n + ": the factor must be in 1 .. 65536, found " +
                                                 std::to_string(r));
      MLC_TRY(y, emit_pixel_shuffle(b, x, r, n == "pixel_unshuffle", "forward: " + n, at));
    } else if (n == "adaptive_avg_pool2d" || n == "adaptive_max_pool2d") {
      MLC_TRY(auto out, size_pair(args[1], n + "'s output_size", at));
      if (n == "adaptive_max_pool2d") {
        MLC_TRY(bool indices, bool_arg(args[2], false, n + "'s return_indices", at));
        if (indices) return fwd_error(where(args[2], at), n + ": return_indices=True is not supported");
      }
      const Shape& s = x->type.shape;
      if (x->type.rank() >= 3 && (s[s.size() - 2] % out[0] != 0 || s[s.size() - 1] % out[1] != 0) &&
          (out[0] > kFunctionalAdaptiveMax || out[1] > kFunctionalAdaptiveMax))
        return fwd_error(where(args[1], at), n + ": an output_size above " +
                                                 std::to_string(kFunctionalAdaptiveMax) +
                                                 " needs windows of equal size (input sizes divisible by it); "
                                                 "use the Adaptive*Pool2d layer");
      MLC_TRY(y, emit_adaptive_pool2d(b, x, out, n == "adaptive_max_pool2d", "forward: " + n, at));
    } else if (n == "group_norm") {
      MLC_TRY(int64_t groups, int_arg(args[1], "group_norm's num_groups", at));
      if (groups < 1) return fwd_error(where(args[1], at), "group_norm: num_groups must be >= 1");
      Value* affine[2] = {nullptr, nullptr};
      for (int i = 0; i < 2; ++i) {
        if (!given(args[2 + i])) continue;
        MLC_TRY(affine[i], tensor_arg(args[2 + i], "group_norm's " + std::string(spec.params[2 + i]), at));
        const Shape want{x->type.rank() >= 2 ? x->type.shape[1] : 0};
        if (affine[i]->type.shape != want || affine[i]->type.dtype != x->type.dtype)
          return fwd_error(where(args[2 + i], at), "group_norm: " + std::string(spec.params[2 + i]) +
                                                       " must be " + TensorType{x->type.dtype, want}.str() +
                                                       " (one per channel of " + x->type.str() + "), found " +
                                                       affine[i]->type.str());
      }
      MLC_TRY(double eps, number_arg(args[4], 1e-5, "group_norm's eps", at));
      MLC_TRY(y, emit_group_norm(b, x, groups, eps, affine[0], affine[1], "forward: group_norm", at));
    } else {
      return fwd_error(at, "internal: " + n + " is not a spatial built-in");
    }
    return Val::tensor(y, at);
  };
  if (n == "pixel_shuffle" || n == "pixel_unshuffle" || n == "adaptive_avg_pool2d" || n == "adaptive_max_pool2d" ||
      n == "group_norm")
    return body();
  return std::nullopt;
}

}  // namespace mlc
