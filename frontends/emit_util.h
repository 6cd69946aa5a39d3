// Checked op emission for the frontend: every op a model file can influence
// goes through Builder::try_create, so that an unforeseen combination becomes a
// located error instead of an abort.
#pragma once

#include <string>
#include <vector>

#include "ir/builder.h"

namespace mlc {

inline Expected<Value*> emit_op(Builder& b, OpCode code, std::vector<Value*> operands,
                                Attrs attrs = {}) {
  return b.try_create(code, std::move(operands), std::move(attrs));
}

inline Expected<Value*> emit_reshape(Builder& b, Value* x, Shape shape) {
  if (x->type.shape == shape) return x;
  return b.try_create(OpCode::Reshape, {x}, {}, TensorType{x->type.dtype, std::move(shape)});
}

inline Expected<Value*> emit_transpose(Builder& b, Value* x, std::vector<int64_t> perm) {
  return b.try_create(OpCode::Transpose, {x}, {{"perm", std::move(perm)}});
}

inline Expected<Value*> emit_cast(Builder& b, Value* x, DType to) {
  if (x->type.dtype == to) return x;
  return b.try_create(OpCode::Cast, {x}, {}, TensorType{to, x->type.shape});
}

inline Expected<Value*> emit_scalar(Builder& b, double value, DType dtype) {
  Attrs attrs;
  if (is_float(dtype))
    attrs.set("value", value);
  else
    attrs.set("value", static_cast<int64_t>(value));  // callers keep |value| < 2^53
  return b.try_create(OpCode::Constant, {}, std::move(attrs), TensorType{dtype, {}});
}

inline Expected<Value*> emit_iota(Builder& b, TensorType type, int64_t dim) {
  return b.try_create(OpCode::Iota, {}, {{"dim", dim}}, std::move(type));
}

}  // namespace mlc
