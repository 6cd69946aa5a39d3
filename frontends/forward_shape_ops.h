// Shape built-ins of forward statements (forward_builtins.h's table): matmul,
// subscripts, reshape/view, transpose/permute/.T/.mT, (un)squeeze, flatten,
// size, cat, sum/mean/max/min and the 2-D pools.
//
// Contracts: shapes are static, so every mismatch is reported before an op is
// emitted, at the callee (or the offending argument), saying what was expected
// and what was found. Nothing here aborts on user input.
#pragma once

#include <optional>
#include <vector>

#include "frontends/forward_builtins.h"

namespace mlc {

// The built-in's result if `spec` is a shape built-in, nullopt otherwise.
std::optional<Expected<Val>> emit_shape_builtin(Builder& b, const BuiltinSpec& spec,
                                                const std::vector<Val>& args, const Loc& at);

// torch.matmul (also `@`): 1-D operands, batch dims broadcast.
Expected<Value*> emit_matmul(Builder& b, Value* a, Value* c, const Loc& at);

// One item of x[...]: an integer (drops its dim), a slice start:stop:step
// (absent parts default as in Python; steps > 0), `...` or None.
struct SubscriptItem {
  enum class Kind { index, slice, ellipsis, newaxis } kind = Kind::index;
  Val start, stop, step;
  Loc loc;
};
Expected<Value*> emit_subscript(Builder& b, Value* x, const std::vector<SubscriptItem>& items,
                                const Loc& at);

}  // namespace mlc
