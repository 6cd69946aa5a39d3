#include "ir/diagnostics.h"

namespace mlc {

std::string format_error(const Loc& loc, std::string_view message) {
  std::string s;
  if (loc.known())
    s = loc.str() + ": ";
  else if (!loc.file.empty())
    s = loc.file + ": ";
  return s + "error: " + std::string(message);
}

Loc loc_of_offset(std::string_view file, std::string_view text, size_t offset) {
  Loc loc{std::string(file), 1, 1};
  if (offset > text.size()) offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.col = 1;
    } else {
      ++loc.col;
    }
  }
  return loc;
}

}  // namespace mlc
