#include "frontends/activations.h"

#include "frontends/emit_util.h"
#include "ir/diagnostics.h"

namespace mlc {

Expected<Value*> emit_prelu(Builder& b, Value* x, Value* w, const std::string& what, const Loc& at) {
  if (!is_float(x->type.dtype) || x->type.dtype != w->type.dtype)
    return error_at(at, what + ": expected a float input of the weight's dtype " +
                            std::string(dtype_name(w->type.dtype)) + ", found " + x->type.str());
  if (w->type.rank() != 1)
    return error_at(at, what + ": the weight must be 1-D (one per channel), found " + w->type.str());
  const int64_t channels = w->type.shape[0];
  const int64_t rank = x->type.rank();
  Shape along{};  // the weight laid along x's dim 1
  if (channels != 1) {
    if (rank < 2 || x->type.shape[1] != channels)
      return error_at(at, what + ": " + std::to_string(channels) + " weights (num_parameters) need an input with " +
                              std::to_string(channels) + " channels in dim 1, found " + x->type.str());
    along.push_back(channels);
    along.resize(static_cast<size_t>(rank - 1), 1);
  }
  MLC_TRY(Value* weight, emit_reshape(b, w, along));
  MLC_TRY(Value* zero, emit_scalar(b, 0, x->type.dtype));
  MLC_TRY(Value* positive, emit_op(b, OpCode::Compare, {x, zero}, {{"direction", std::string("gt")}}));
  MLC_TRY(Value* scaled, emit_op(b, OpCode::Mul, {weight, x}));
  return emit_op(b, OpCode::Select, {positive, x, scaled});
}

Expected<Value*> emit_softmax(Builder& b, Value* x, int64_t dim, bool log, const std::string& what,
                              const Loc& at) {
  if (!is_float(x->type.dtype) || x->type.rank() == 0)
    return error_at(at, what + ": expected a float tensor of rank >= 1, found " + x->type.str());
  if (dim < -x->type.rank() || dim >= x->type.rank())
    return error_at(at, what + ": dim " + std::to_string(dim) + " is out of range for " + x->type.str());
  return emit_op(b, log ? OpCode::LogSoftmax : OpCode::Softmax, {x}, {{"axis", dim}});
}

}  // namespace mlc
