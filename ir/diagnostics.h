// Diagnostic formatting shared by every stage:
//   "examples/digits_cnn.json:14:9: error: conv2d: input channels 3 do not match ..."
//
// Input a message quotes (a token, a literal, a name, a JSON value) goes
// through squote or unquoted (support/quote.h), so that no message grows with
// its input (docs/limits.md).
#pragma once

#include <string>
#include <string_view>

#include "ir/expected.h"
#include "ir/graph.h"
#include "support/quote.h"

namespace mlc {

// "file:line:col: error: message", or "file: error: message" when only the file
// is known, or "error: message" when nothing is.
std::string format_error(const Loc& loc, std::string_view message);
inline Error error_at(const Loc& loc, std::string_view message) {
  return Error{format_error(loc, message)};
}

// 1-based line and column of byte `offset` in `text` (column counts bytes).
Loc loc_of_offset(std::string_view file, std::string_view text, size_t offset);

}  // namespace mlc
