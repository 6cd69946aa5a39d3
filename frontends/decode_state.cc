#include "frontends/decode_state.h"

#include <algorithm>

namespace mlc {

Value* DecodeState::cache_arg(const std::string& path, const std::string& kind, const TensorType& type) {
  const std::string base = path + "." + kind + "_cache";
  auto taken = [&](const std::string& name) {
    return std::any_of(function->args.begin(), function->args.end(),
                       [&](const Value* a) { return a->name == name; });
  };
  std::string name = base;
  for (int call = 1; taken(name); ++call) name = base + "." + std::to_string(call);
  return function->add_arg(name, type, ArgKind::state);
}

void DecodeState::update(Value* arg, Value* updated) { updates.push_back({arg, updated}); }

}  // namespace mlc
