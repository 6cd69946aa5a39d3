// OpCode: one enumerator per row of ir/ops.def.
#pragma once

#include <cstdint>

namespace mlc {

enum class OpCode : uint16_t {
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) Enum,
#include "ir/ops.def"
#undef OP
};

inline constexpr int kNumOps = 0
#define OP(Enum, text, arity, traits, attrs, infer, cost, decompose) +1
#include "ir/ops.def"
#undef OP
    ;

}  // namespace mlc
