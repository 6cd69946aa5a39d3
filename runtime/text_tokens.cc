#include "runtime/text_tokens.h"

#include <cmath>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "support/quote.h"

namespace mlc::rt {

Expected<TokenizedText> tokenize_text(std::string_view text, TokenLevel level, const std::string& path) {
  TokenizedText out;
  out.level = level;
  out.ids.reserve(text.size());
  if (level == TokenLevel::byte) {
    for (char c : text) out.ids.push_back(static_cast<unsigned char>(c));
    return out;
  }
  // Each character's first offset, then ids by code point order.
  std::map<std::string, int64_t> ids;  // character -> id (std::string order of UTF-8 is code point order)
  std::vector<std::string_view> chars;
  chars.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = static_cast<unsigned char>(text[i]) < 0x80 ? 1 : utf8_char_length(text, i);
    if (n == 0)
      return make_error(path + ": error: byte " + std::to_string(i) + ": expected UTF-8 text (--level char), found " +
                        squote(text.substr(i, 1)) + ", which starts no character; --level byte reads any bytes");
    chars.push_back(text.substr(i, n));
    ids.emplace(std::string(text.substr(i, n)), 0);
    i += n;
  }
  for (auto& [c, id] : ids) {
    id = static_cast<int64_t>(out.vocab.size());
    out.vocab.push_back(c);
  }
  for (std::string_view c : chars) out.ids.push_back(ids.at(std::string(c)));
  return out;
}

Expected<TokenFile> token_file(const TokenizedText& text, int64_t seq, double eval_fraction, const std::string& path) {
  const int64_t n = static_cast<int64_t>(text.ids.size());
  const int64_t rows = seq > 0 && n > 0 ? (n - 1) / seq : 0;
  if (rows == 0)
    return make_error(path + ": error: expected at least " + std::to_string(seq + 1) + " tokens for one sequence of " +
                      "--seq " + std::to_string(seq) + " (and its next token), found " + std::to_string(n));
  const int64_t eval_rows = eval_fraction > 0 ? static_cast<int64_t>(std::ceil(static_cast<double>(rows) * eval_fraction)) : 0;
  if (eval_rows >= rows)
    return make_error(path + ": error: " + std::to_string(rows) + " sequence" + (rows == 1 ? "" : "s") +
                      " of --seq " + std::to_string(seq) + " leave none to train on after --eval-fraction takes " +
                      std::to_string(eval_rows));
  auto rows_tensor = [&](int64_t first, int64_t count) {
    Tensor t(DType::i64, {count, seq + 1});
    for (int64_t r = 0; r < count; ++r)
      for (int64_t j = 0; j <= seq; ++j) t.data<int64_t>()[r * (seq + 1) + j] = text.ids[(first + r) * seq + j];
    return t;
  };
  TokenFile out;
  out.tensors.push_back({"tokens", rows_tensor(0, rows - eval_rows)});
  if (eval_rows) out.tensors.push_back({"eval_tokens", rows_tensor(rows - eval_rows, eval_rows)});
  const bool chars = text.level == TokenLevel::character;
  out.metadata = {{"format", "mlc-tokens/1"}, {"level", chars ? "char" : "byte"}};
  if (chars) out.metadata.emplace_back("vocab", nlohmann::json(text.vocab).dump());
  out.metadata.emplace_back("vocab_size", std::to_string(chars ? text.vocab.size() : 256));
  out.metadata.emplace_back("seq", std::to_string(seq));
  out.metadata.emplace_back("source", std::filesystem::path(path).filename().string());
  return out;
}

}  // namespace mlc::rt
