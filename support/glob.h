// Glob patterns over state_dict names (optimizer param_groups, a model file's
// "init" rules): '*' any characters, dots included; '?' one character.
#pragma once

#include <string_view>

namespace mlc {

bool glob_match(std::string_view pattern, std::string_view name);

}  // namespace mlc
