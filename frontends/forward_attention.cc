// F.scaled_dot_product_attention in forward statements (forward_functional.h).
#include <cmath>

#include "frontends/attention.h"
#include "frontends/emit_util.h"
#include "frontends/forward_functional.h"

namespace mlc {

namespace {

Shape leading(const TensorType& t) { return Shape(t.shape.begin(), t.shape.end() - 2); }

}  // namespace

Expected<Val> emit_sdpa(Builder& b, const std::vector<Val>& args, const Loc& at) {
  const std::string fn = "scaled_dot_product_attention";
  Value* qkv[3];
  const char* names[3] = {"query", "key", "value"};
  for (int i = 0; i < 3; ++i) {
    MLC_TRY(qkv[i], tensor_arg(args[i], fn + "'s " + names[i], at));
    const TensorType& t = qkv[i]->type;
    if (!is_float(t.dtype) || t.rank() < 2)
      return fwd_error(at, fn + ": " + names[i] + " must be a float tensor [..., L, E], found " + t.str());
  }
  Value *q = qkv[0], *k = qkv[1], *v = qkv[2];
  const std::string found = ", found query " + q->type.str() + ", key " + k->type.str() + ", value " + v->type.str();
  if (k->type.dtype != q->type.dtype || v->type.dtype != q->type.dtype)
    return fwd_error(at, fn + ": query, key and value must have one dtype" + found);
  if (leading(k->type) != leading(q->type) || leading(v->type) != leading(q->type))
    return fwd_error(at, fn + ": query, key and value must have the same leading dims (no broadcasting here)" + found);
  const int64_t L = q->type.shape[q->type.rank() - 2], E = q->type.shape.back();
  const int64_t S = k->type.shape[k->type.rank() - 2];
  if (k->type.shape.back() != E)
    return fwd_error(at, fn + ": key's last dim must be query's (" + std::to_string(E) + ")" + found);
  if (v->type.shape[v->type.rank() - 2] != S)
    return fwd_error(at, fn + ": value must have as many rows as key (" + std::to_string(S) + ")" + found);
  MLC_TRY(Value* mask, optional_tensor(args[3], fn + "'s attn_mask", at));
  MLC_TRY(double dropout_p, number_arg(args[4], 0.0, fn + "'s dropout_p", at));
  if (dropout_p != 0)
    return fwd_error(args[4].loc.line ? args[4].loc : at,
                     fn + ": dropout_p must be 0 in forward statements (PyTorch drops whatever the "
                          "mode; use a Dropout layer or nn.MultiheadAttention's dropout), found " +
                         number_text(dropout_p, false));
  MLC_TRY(bool is_causal, bool_arg(args[5], false, fn + "'s is_causal", at));
  double scale = 1.0 / std::sqrt(static_cast<double>(E));
  if (args[6].kind != Val::Kind::absent && args[6].kind != Val::Kind::none) {
    MLC_TRY(scale, number_arg(args[6], scale, fn + "'s scale", at));
  }
  if (mask) {
    if (is_causal)
      return fwd_error(at, fn + ": give attn_mask or is_causal=True, not both (as PyTorch)");
    if (mask->type.dtype != DType::boolean && mask->type.dtype != q->type.dtype)
      return fwd_error(at, fn + ": attn_mask must be bool (True: take part in attention) or " +
                               std::string(dtype_name(q->type.dtype)) + " (added to the scores), found " + mask->type.str());
    Shape scores = leading(q->type);
    scores.push_back(L);
    scores.push_back(S);
    auto joined = broadcast_shapes(mask->type.shape, scores);
    if (!joined || *joined != scores)
      return fwd_error(at, fn + ": attn_mask " + mask->type.str() + " does not broadcast to the scores' shape " +
                               shape_to_string(scores));
    MLC_TRY(mask, additive_mask(b, mask, false, q->type.dtype));
  } else if (is_causal) {
    MLC_TRY(mask, causal_mask(b, L, S, q->type.dtype));
  }
  MLC_TRY(Attention a, emit_attention(b, q, k, v, mask, scale, nullptr));
  return Val::tensor(a.out, at);
}

}  // namespace mlc
