// Input quoted in messages, bounded: the one way a diagnostic of any stage
// shows a piece of its input (a token, a literal, a name, a JSON value), so
// that no message grows with its input (docs/limits.md). ir/diagnostics.h
// makes it available to every stage with the rest of the diagnostics.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace mlc {

// The most bytes of one piece of input a message quotes.
inline constexpr size_t kMaxQuotedBytes = 60;

// Input for a message, in single quotes: control characters and bytes that
// are not well-formed UTF-8 are escaped as \xNN; input longer than
// kMaxQuotedBytes is cut there (on a character boundary), with "..." and its
// full length after the quotes:
//   squote("x")                   'x'
//   squote(15,000,000 digits)     '111111...' (15000000 bytes)
std::string squote(std::string_view s);
// The same without the quotes, for a literal shown as written:
//   "integer " + unquoted(s)      integer 111111... (15000000 bytes)
std::string unquoted(std::string_view s);

// Length of the well-formed UTF-8 character that starts at text[i] (a byte
// >= 0x80), or 0 if it is ill-formed (overlong, a surrogate, beyond U+10FFFF,
// truncated).
size_t utf8_char_length(std::string_view text, size_t i);

}  // namespace mlc
