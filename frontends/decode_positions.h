// `arange(n)` in a forward built for incremental decoding
// (frontends/decode_state.h): the positions of the tokens being computed.
#pragma once

#include <vector>

#include "frontends/decode_state.h"
#include "frontends/forward_builtins.h"

namespace mlc {

// prefill: arange(n) as always. step: arange(T) or arange(1) (T the window,
// 1 what tokens.size(1) is when one token is decoded) is [position]; any other
// n is an error, since the forward would then not be a function of positions.
Expected<Val> decode_positions(Builder& b, const DecodeState& decode, const std::vector<Val>& args, const Loc& at);

}  // namespace mlc
