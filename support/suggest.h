// "Did you mean ...?" for a name that is not one of a known list: the one
// way any stage suggests a correction for a misspelled name (layer types,
// dtypes, ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mlc {

// The known name closest to `word`, if it is close enough to be a slip:
// the same name but for case (Conv2D, conv2d for Conv2d), else one at most
// max(1, length / 4) edits away (insertions, deletions, substitutions and
// swaps of neighbours: Lienar for Linear), the first of the closest in
// `known`'s order; "" when none is that close.
std::string closest_name(std::string_view word, const std::vector<std::string>& known);

// "; did you mean 'NAME'?" for closest_name's answer, or "" without one.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& known);

}  // namespace mlc
