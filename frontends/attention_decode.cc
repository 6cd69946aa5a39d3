#include "frontends/attention_decode.h"

#include "frontends/decode_state.h"
#include "frontends/emit_util.h"

namespace mlc {

namespace {

// i64 positions 0..n-1 along `dim` of a tensor of `rank` dims, 1 elsewhere.
Expected<Value*> positions(Builder& b, int64_t n, int64_t rank, int64_t dim) {
  Shape shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(dim)] = n;
  return emit_iota(b, TensorType{DType::i64, shape}, dim);
}

Expected<Value*> compare(Builder& b, Value* x, Value* y, const char* direction) {
  return emit_op(b, OpCode::Compare, {x, y}, {{"direction", std::string(direction)}});
}

}  // namespace

Expected<CachedAttention> attend_cached(LayerContext& ctx, Value* k, Value* v) {
  DecodeState& d = *ctx.decode;
  Builder& b = ctx.b;
  const int64_t T = d.context;
  const Shape& s = k->type.shape;  // [B, heads, L, hd]
  const TensorType cache_type{k->type.dtype, {s[0], s[1], T, s[3]}};
  Value* k_cache = d.cache_arg(ctx.path, "k", cache_type);
  Value* v_cache = d.cache_arg(ctx.path, "v", cache_type);
  CachedAttention out;
  if (d.mode == DecodeState::Mode::prefill) {
    if (s[2] != T)
      return make_error("internal: prefill of " + ctx.path + " with " + std::to_string(s[2]) + " positions, not " +
                        std::to_string(T));
    d.update(k_cache, k);
    d.update(v_cache, v);
    MLC_TRY(Value* row, positions(b, T, 2, 0));
    MLC_TRY(Value* col, positions(b, T, 2, 1));
    MLC_TRY(out.masked, compare(b, col, row, "gt"));
    out.k = k;
    out.v = v;
    return out;
  }
  if (s[2] != 1)
    return make_error("internal: a decoding step of " + ctx.path + " with " + std::to_string(s[2]) + " positions");
  // Row `position` of the caches takes this token's key and value.
  MLC_TRY(Value* rows, positions(b, T, 4, 2));
  MLC_TRY(Value* here, compare(b, rows, d.position, "eq"));
  MLC_TRY(out.k, emit_op(b, OpCode::Select, {here, k, k_cache}));
  MLC_TRY(out.v, emit_op(b, OpCode::Select, {here, v, v_cache}));
  d.update(k_cache, out.k);
  d.update(v_cache, out.v);
  // Scores [B, heads, 1, T]: the rows after `position` are not written yet.
  MLC_TRY(Value* cols, positions(b, T, 2, 1));
  MLC_TRY(out.masked, compare(b, cols, d.position, "gt"));
  return out;
}

}  // namespace mlc
