#include "frontends/random_ops.h"

#include <numbers>

#include "frontends/emit_util.h"

namespace mlc {

Expected<Value*> emit_uniform_draws(Builder& b, const Shape& shape, const RandomKey& key, int64_t offset) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  MLC_TRY(Value* flat, emit_iota(b, TensorType{DType::i64, {n}}, 0));
  if (offset != 0) {
    MLC_TRY(Value* shift, emit_scalar(b, static_cast<double>(offset), DType::i64));
    MLC_TRY(flat, emit_op(b, OpCode::Add, {flat, shift}));
  }
  MLC_TRY(Value* index, emit_reshape(b, flat, shape));
  return emit_op(b, OpCode::RandomUniform, {index, key.step},
                 {{"seed", static_cast<int64_t>(key.seed)}, {"stream", static_cast<int64_t>(key.stream)}});
}

Expected<Value*> emit_dropout(Builder& b, Value* x, double p, const RandomKey& key) {
  MLC_TRY(Value* u, emit_uniform_draws(b, x->type.shape, key));
  MLC_TRY(Value* threshold, emit_scalar(b, static_cast<double>(static_cast<float>(p)), DType::f32));
  MLC_TRY(Value* keep, emit_op(b, OpCode::Compare, {u, threshold}, {{"direction", std::string("ge")}}));
  // torch: noise.div_(1 - p), a float tensor divided by a Python float.
  const double scale = static_cast<double>(1.0f / static_cast<float>(1 - p));
  MLC_TRY(Value* kept, emit_scalar(b, scale, x->type.dtype));
  MLC_TRY(Value* dropped, emit_scalar(b, 0, x->type.dtype));
  MLC_TRY(Value* mask, emit_op(b, OpCode::Select, {keep, kept, dropped}));
  return emit_op(b, OpCode::Mul, {x, mask});
}

Expected<Value*> emit_normal_draws(Builder& b, const Shape& shape, const RandomKey& key) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  MLC_TRY(Value* u1, emit_uniform_draws(b, shape, key));
  MLC_TRY(Value* u2, emit_uniform_draws(b, shape, key, n));
  MLC_TRY(Value* one, emit_scalar(b, 1, DType::f32));
  MLC_TRY(Value* minus_two, emit_scalar(b, -2, DType::f32));
  MLC_TRY(Value* two_pi, emit_scalar(b, static_cast<double>(static_cast<float>(2 * std::numbers::pi)), DType::f32));
  MLC_TRY(Value* complement, emit_op(b, OpCode::Sub, {one, u1}));
  MLC_TRY(Value* log, emit_op(b, OpCode::Log, {complement}));
  MLC_TRY(Value* scaled, emit_op(b, OpCode::Mul, {minus_two, log}));
  MLC_TRY(Value* radius, emit_op(b, OpCode::Sqrt, {scaled}));
  MLC_TRY(Value* theta, emit_op(b, OpCode::Mul, {two_pi, u2}));
  MLC_TRY(Value* cos, emit_op(b, OpCode::Cos, {theta}));
  return emit_op(b, OpCode::Mul, {radius, cos});
}

}  // namespace mlc
