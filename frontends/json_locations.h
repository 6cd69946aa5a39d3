// Source positions for JSON values. nlohmann::json keeps no positions, so these
// scanners walk the raw text themselves.
//
// Contracts:
//  - `precheck_json` runs BEFORE nlohmann on arbitrary bytes: it rejects nesting
//    deeper than kMaxJsonDepth (so nothing downstream recurses on user depth) and
//    number literals out of the double range (nlohmann reports those without a
//    position). It never recurses and never reads past the text.
//  - `JsonLocations::scan` runs on text that nlohmann has already accepted. It
//    maps every JSON pointer ("/model/layers/conv1/in_channels", "" for the root,
//    "/a/0" for array elements; keys escaped as RFC 6901: ~0, ~1) to the byte
//    offsets of its value and of its key, and reports a duplicated key (which
//    nlohmann would silently collapse) at the second occurrence. Iterative.
//  - Offsets convert to 1-based line:col (col counts bytes) via `loc`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/expected.h"
#include "ir/graph.h"

namespace mlc {

inline constexpr int kMaxJsonDepth = 64;

// Errors: "FILE:L:C: error: invalid JSON: nesting deeper than 64 levels",
// "FILE:L:C: error: invalid JSON: number 1e999 is out of range".
Status precheck_json(std::string_view text, const std::string& path);

// Appends `key` to a JSON pointer, escaping '~' and '/'.
std::string json_pointer_child(std::string_view parent, std::string_view key);
std::string json_pointer_child(std::string_view parent, size_t index);

// A user string for a message: 'text' in single quotes, control characters
// escaped as \xNN, cut at 60 bytes (on a UTF-8 boundary) with "...".
std::string squote(std::string_view s);

class JsonLocations {
 public:
  static Expected<JsonLocations> scan(std::string_view text, const std::string& path);

  // Loc of the value at `pointer` (its first byte); unknown pointers give the
  // file-only Loc. key_loc: the key's opening quote, or value_loc for array
  // elements and the root.
  Loc value_loc(std::string_view pointer) const;
  Loc key_loc(std::string_view pointer) const;
  // For a string value: the Loc of byte `decoded_offset` of its decoded content
  // (escape sequences are mapped back to their raw position).
  Loc string_loc(std::string_view pointer, size_t decoded_offset) const;
  // Loc of a raw byte offset.
  Loc loc(size_t offset) const;
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    size_t value = 0;
    size_t key = std::string::npos;
  };
  std::string path_;
  std::string text_;
  std::vector<size_t> line_starts_;
  std::unordered_map<std::string, Entry> entries_;

  friend class JsonScanner;
};

}  // namespace mlc
