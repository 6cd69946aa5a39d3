#include "support/quote.h"

#include <algorithm>

namespace mlc {

size_t utf8_char_length(std::string_view text, size_t i) {
  auto b = static_cast<unsigned char>(text[i]);
  size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
  auto b1 = static_cast<unsigned char>(text[i + 1]);
  if ((b == 0xE0 && b1 < 0xA0) || (b == 0xED && b1 >= 0xA0) || (b == 0xF0 && b1 < 0x90) ||
      (b == 0xF4 && b1 >= 0x90))
    return 0;  // overlong, surrogate or beyond U+10FFFF
  return n;
}

namespace {

std::string bounded(std::string_view s, std::string_view quote) {
  static const char* hex = "0123456789abcdef";
  std::string out(quote);
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t n = c >= 0x80 ? utf8_char_length(s, i) : 1;
    if (i + std::max<size_t>(n, 1) > kMaxQuotedBytes) break;
    if (n == 0 || c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (i == s.size()) return out.append(quote);
  return out.append("...").append(quote) + " (" + std::to_string(s.size()) + " bytes)";
}

}  // namespace

std::string squote(std::string_view s) { return bounded(s, "'"); }
std::string unquoted(std::string_view s) { return bounded(s, ""); }

}  // namespace mlc
