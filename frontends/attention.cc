#include "frontends/attention.h"

#include <limits>

#include "frontends/emit_util.h"

namespace mlc {

Expected<Value*> optional_tensor(const Val& v, const std::string& what, const Loc& at) {
  if (v.kind == Val::Kind::absent || v.kind == Val::Kind::none) return nullptr;
  return tensor_arg(v, what, at);
}

Expected<Value*> additive_mask(Builder& b, Value* mask, bool masked_when, DType dtype) {
  if (mask->type.dtype != DType::boolean) return mask;
  const double inf = std::numeric_limits<double>::infinity();
  MLC_TRY(Value* blocked, emit_scalar(b, -inf, dtype));
  MLC_TRY(Value* open, emit_scalar(b, 0, dtype));
  return masked_when ? emit_op(b, OpCode::Select, {mask, blocked, open})
                     : emit_op(b, OpCode::Select, {mask, open, blocked});
}

Expected<Value*> causal_mask(Builder& b, int64_t L, int64_t S, DType dtype) {
  MLC_TRY(Value* row, emit_iota(b, TensorType{DType::i64, {L, S}}, 0));
  MLC_TRY(Value* col, emit_iota(b, TensorType{DType::i64, {L, S}}, 1));
  MLC_TRY(Value* above, emit_op(b, OpCode::Compare, {col, row}, {{"direction", std::string("gt")}}));
  return additive_mask(b, above, true, dtype);
}

Expected<Value*> add_masks(Builder& b, Value* a, Value* c) {
  if (!a) return c;
  if (!c) return a;
  return emit_op(b, OpCode::Add, {a, c});
}

Expected<Attention> emit_attention(Builder& b, Value* q, Value* k, Value* v, Value* mask, double scale,
                                   const std::function<Expected<Value*>(Value*)>& dropout) {
  MLC_TRY(Value* factor, emit_scalar(b, scale, q->type.dtype));
  MLC_TRY(Value* scaled, emit_op(b, OpCode::Mul, {q, factor}));
  MLC_TRY(Value* scores, emit_op(b, OpCode::Dot, {scaled, k}, {{"transpose_b", true}}));
  if (mask) {
    MLC_TRY(scores, emit_op(b, OpCode::Add, {scores, mask}));
  }
  Attention a;
  MLC_TRY(a.weights, emit_op(b, OpCode::Softmax, {scores}, {{"axis", int64_t{-1}}}));
  if (dropout) {
    MLC_TRY(a.weights, dropout(a.weights));
  }
  MLC_TRY(a.out, emit_op(b, OpCode::Dot, {a.weights, v}));
  return a;
}

}  // namespace mlc
