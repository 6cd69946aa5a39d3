#include "runtime/token_vocabulary.h"

#include <unordered_map>

#include <nlohmann/json.hpp>

#include "support/quote.h"

namespace mlc::rt {

namespace {

const std::string* find(const std::vector<std::pair<std::string, std::string>>& metadata, const std::string& key) {
  for (const auto& [k, v] : metadata)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace

Expected<Vocabulary> vocabulary_of(const std::vector<std::pair<std::string, std::string>>& metadata,
                                   const std::string& path) {
  const std::string* format = find(metadata, "format");
  const std::string* level = find(metadata, "level");
  if (!format || *format != "mlc-tokens/1" || !level)
    return make_error(path + ": error: the metadata holds no vocabulary (expected \"format\": \"mlc-tokens/1\" and "
                      "\"level\", as mlc data text writes them)");
  Vocabulary v;
  if (*level == "byte") {
    v.level = TokenLevel::byte;
    return v;
  }
  if (*level != "char")
    return make_error(path + ": error: metadata \"level\": expected char or byte, found " + squote(*level));
  const std::string* chars = find(metadata, "vocab");
  if (!chars) return make_error(path + ": error: metadata \"vocab\" is missing (level char)");
  const nlohmann::json list = nlohmann::json::parse(*chars, nullptr, /*allow_exceptions=*/false);
  if (!list.is_array() || list.empty())
    return make_error(path + ": error: metadata \"vocab\": expected a JSON list of characters");
  for (const nlohmann::json& c : list) {
    if (!c.is_string() || c.get_ref<const std::string&>().empty())
      return make_error(path + ": error: metadata \"vocab\": entry " + std::to_string(v.chars.size()) +
                        " is not a character");
    v.chars.push_back(c.get<std::string>());
  }
  return v;
}

Expected<std::vector<int64_t>> encode(const Vocabulary& vocab, std::string_view text, const std::string& what) {
  std::vector<int64_t> ids;
  if (vocab.level == TokenLevel::byte) {
    for (char c : text) ids.push_back(static_cast<unsigned char>(c));
    return ids;
  }
  std::unordered_map<std::string_view, int64_t> id_of;
  for (size_t i = 0; i < vocab.chars.size(); ++i) id_of.emplace(vocab.chars[i], static_cast<int64_t>(i));
  for (size_t i = 0; i < text.size();) {
    const size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_char_length(text, i);
    if (n == 0) return make_error(what + ": byte " + std::to_string(i) + " starts no UTF-8 character");
    auto it = id_of.find(text.substr(i, n));
    if (it == id_of.end())
      return make_error(what + ": character " + squote(text.substr(i, n)) + " at byte " + std::to_string(i) +
                        " is not in the vocabulary (" + std::to_string(vocab.chars.size()) + " characters)");
    ids.push_back(it->second);
    i += n;
  }
  return ids;
}

std::string decode(const Vocabulary& vocab, int64_t id) {
  if (vocab.level == TokenLevel::byte) return id >= 0 && id < 256 ? std::string(1, static_cast<char>(id)) : "";
  return id >= 0 && id < vocab.size() ? vocab.chars[static_cast<size_t>(id)] : "";
}

}  // namespace mlc::rt
