#include "frontends/decode_positions.h"

#include "frontends/emit_util.h"

namespace mlc {

Expected<Val> decode_positions(Builder& b, const DecodeState& decode, const std::vector<Val>& args, const Loc& at) {
  if (args.size() != 1 || !args[0].is_number() || !args[0].integral || args[0].num < 1 || args[0].num > 1e12)
    return fwd_error(at, "arange(n) needs a positive integer n");
  const auto n = static_cast<int64_t>(args[0].num);
  if (decode.mode == DecodeState::Mode::prefill) {
    MLC_TRY(Value* y, emit_iota(b, TensorType{DType::i64, {n}}, 0));
    return Val::tensor(y, at);
  }
  if (n != 1 && n != decode.context)
    return fwd_error(at, "arange(" + std::to_string(n) + "): decoding one token at a time reads arange(n) as the "
                         "tokens' positions, so n must be the window " + std::to_string(decode.context) +
                         " or tokens.size(1)");
  MLC_TRY(Value* y, emit_reshape(b, decode.position, {1}));
  return Val::tensor(y, at);
}

}  // namespace mlc
