#include "frontends/form_words.h"

#include <utility>

#include "frontends/dsl_parse.h"

namespace mlc {

std::string in_the_words_of(std::string_view path, std::string_view message) {
  std::string out(message);
  if (!is_model_language_path(path)) return out;
  static constexpr std::pair<std::string_view, std::string_view> kWords[] = {
      {"a JSON object", "a block"}, {"an object", "a block"}, {"an array", "a list"}, {"found null", "found None"}};
  for (const auto& [json_word, word] : kWords)
    for (size_t at = out.find(json_word); at != std::string::npos; at = out.find(json_word, at + word.size()))
      out.replace(at, json_word.size(), word);
  return out;
}

std::string spelled_field(std::string_view path, std::string_view section, std::string_view field) {
  const std::string s(section), f(field);
  return is_model_language_path(path) ? s + ": " + f + " = ..." : "\"" + s + "\": {\"" + f + "\": ...}";
}

}  // namespace mlc
