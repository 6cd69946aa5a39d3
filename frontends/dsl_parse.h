// The model language (.mlc files; docs/model-language.md): the model file in a
// Python-like syntax. It reads into the same JSON DOM as the JSON form, each
// value located in the .mlc text, so everything after reading (fields, layers,
// forward statements, their checks and error messages) is shared, and both
// forms of a model build the same IR.
//
//   name = digits_mlp
//   inputs:
//       x: f32[batch, 1, 8, 8]
//       y: i64[batch]
//   model(x):
//       flatten = Flatten()
//       fc1 = Linear(64, 128)
//       forward:
//           return fc1(flatten(x))
//   loss = cross_entropy(targets=y)
//
// Contracts:
//  - parse_model_language never throws, is linear in the text and recurses at
//    most as deep as blocks and brackets nest (kMaxJsonDepth, as JSON); at most
//    kMaxJsonValues values (keys count, as JSON). It pulls tokens from the
//    lexer as it goes (one of lookahead) and stops at the first mistake, so
//    nothing after it is read; it never holds the file's tokens.
//  - Every mistake is "FILE:LINE:COL: error: WHAT" at the byte: syntax,
//    indentation, a duplicated key (at the second, naming the first), a
//    positional argument the call's type does not take.
//  - Values keep their positions: a call `Linear(...)` is an object located at
//    its type's name, `name = ...` locates the member's key at `name`, a
//    string written without quotes (a word, a forward statement, a data
//    slice) maps each byte back to the text.
#pragma once

#include <string>
#include <string_view>

#include "frontends/json_doc.h"
#include "ir/expected.h"

namespace mlc {

Expected<JsonDoc> parse_model_language(std::string_view text, const std::string& path);

// Whether `path` names a model-language file (it ends in ".mlc").
bool is_model_language_path(std::string_view path);

}  // namespace mlc
