// A token file's vocabulary (runtime/text_tokens.h: the metadata `mlc data
// text` writes), to turn text into token ids and back (`mlc generate`).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/expected.h"
#include "runtime/text_tokens.h"

namespace mlc::rt {

struct Vocabulary {
  TokenLevel level = TokenLevel::character;
  std::vector<std::string> chars;  // character level: the characters (UTF-8), id order
  int64_t size() const { return level == TokenLevel::byte ? 256 : static_cast<int64_t>(chars.size()); }
};

// The vocabulary of a token file's metadata (format "mlc-tokens/1"); an error
// naming `path` when the metadata holds none or a malformed one.
Expected<Vocabulary> vocabulary_of(const std::vector<std::pair<std::string, std::string>>& metadata,
                                   const std::string& path);

// `text`'s token ids; a character not in the vocabulary is an error naming it
// and its byte offset in `what` ("--prompt").
Expected<std::vector<int64_t>> encode(const Vocabulary& vocab, std::string_view text, const std::string& what);

// The text of one token id ("" for an id outside the vocabulary).
std::string decode(const Vocabulary& vocab, int64_t id);

}  // namespace mlc::rt
