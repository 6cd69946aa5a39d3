// Text as token ids for language models: what `mlc data text` writes
// (README.md, `mlc data`), laid out as examples/tiny_gpt's data is.
//
// Levels:
//  - char: every Unicode character (a code point of the UTF-8 text) is a
//    token; the vocabulary is the text's distinct characters in code point
//    order, and a character's id is its place in it. Text that is not
//    well-formed UTF-8 is an error naming the byte offset (--level byte
//    reads any bytes).
//  - byte: every byte is a token whose id is its value (a vocabulary of 256).
//
// The file (token_file): the ids cut into sequences of `seq` + 1 tokens, each
// starting where the previous one's last token is (row r holds the tokens
// r*seq ... r*seq + seq), so that a model file maps inputs "tokens[:, :-1]"
// and targets "tokens[:, 1:]" (the next token of every position); the tokens
// after the last whole sequence are left out. Tensors: "tokens", i64 [rows,
// seq + 1]; with `eval_fraction` > 0 the last ceil(rows * fraction) rows are
// "eval_tokens" instead (a held-out split, mapped by the model file's
// data.eval). Metadata (strings, as safetensors metadata is):
//    "format"      "mlc-tokens/1"
//    "level"       "char" or "byte"
//    "vocab"       char: a JSON list of the characters, id order (a later
//                  `mlc generate` turns ids back into text with it);
//                  byte: absent (the id is the byte)
//    "vocab_size"  the number of ids (a model's num_embeddings at least)
//    "seq"         `seq`
//    "source"      the text file's name
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/expected.h"
#include "runtime/parameters.h"

namespace mlc::rt {

enum class TokenLevel { character, byte };

struct TokenizedText {
  TokenLevel level = TokenLevel::character;
  std::vector<int64_t> ids;         // one per token, in text order
  std::vector<std::string> vocab;   // char level: the characters (UTF-8), id order; byte level: empty
};

// The text's tokens at `level`; `path` is only used in messages.
Expected<TokenizedText> tokenize_text(std::string_view text, TokenLevel level, const std::string& path);

struct TokenFile {
  std::vector<NamedTensor> tensors;                           // tokens[, eval_tokens]
  std::vector<std::pair<std::string, std::string>> metadata;  // as above
};

// The safetensors contents above; errors (too little text for one sequence,
// or for an eval split) name `path`.
Expected<TokenFile> token_file(const TokenizedText& text, int64_t seq, double eval_fraction, const std::string& path);

}  // namespace mlc::rt
