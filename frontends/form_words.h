// Messages about a model file in the words of its form: JSON's (docs/model-format.md)
// or the model language's (docs/model-language.md), which has blocks, lists
// and None where JSON has objects, arrays and null, and spells a field
// `train: optimizer = ...` where JSON spells `"train": {"optimizer": ...}`.
// The form is the path's: a ".mlc" path is the model language.
#pragma once

#include <string>
#include <string_view>

namespace mlc {

// `message` as is for a JSON file; for a model-language file with JSON's
// words for kinds of values replaced: "a JSON object" and "an object" ->
// "a block", "an array" -> "a list", "found null" -> "found None".
std::string in_the_words_of(std::string_view path, std::string_view message);

// A section's field as the file at `path` spells it, for messages that say
// what to add: `"data": {"file": ...}` in JSON, `data: file = ...` in the
// model language.
std::string spelled_field(std::string_view path, std::string_view section, std::string_view field);

}  // namespace mlc
