// Source positions for JSON values. nlohmann::json keeps no positions, so these
// scanners walk the raw text themselves.
//
// Contracts:
//  - `precheck_numbers` runs BEFORE the JSON parser on arbitrary bytes: it
//    rejects number literals out of the double range (which the parser reports
//    without a position). It never recurses and never reads past the text.
//  - `JsonLocations::scan` runs on text that json::parse has already accepted,
//    beside the DOM it built (members in text order, duplicates kept). It maps
//    every value of that DOM, by address, to the byte offsets of the value and
//    of its key, and reports a duplicated key at the second occurrence. Linear
//    in the text; iterative; memory O(number of values), independent of key
//    lengths and depth.
//  - Offsets convert to 1-based line:col (col counts bytes) via `loc`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/diagnostics.h"  // squote, for the messages of every frontend
#include "ir/expected.h"
#include "ir/graph.h"
#include "support/json_parse.h"

namespace mlc {

// Errors: "FILE:L:C: error: invalid JSON: number 1e999 is out of range".
Status precheck_numbers(std::string_view text, const std::string& path);

class JsonLocations;

// Positions inside one string value: decoded byte offset -> Loc, with escape
// sequences mapped back to their raw position. Built once per string (linear in
// its raw length); each lookup is logarithmic.
class StringLocator {
 public:
  Loc at(size_t decoded_offset) const;

 private:
  friend class JsonLocations;
  const JsonLocations* locs_ = nullptr;
  bool known_ = false;    // the value is a string of the scanned text
  size_t raw_begin_ = 0;  // first byte after the opening quote
  size_t raw_end_ = 0;    // the closing quote
  // Escapes, by decoded offset: {decoded offset of the escape, raw offset of the '\\',
  // decoded length, raw length}.
  struct Escape {
    size_t decoded, raw, decoded_len, raw_len;
  };
  std::vector<Escape> escapes_;
};

class JsonLocations {
 public:
  // `root` is the DOM json::parse built from `text`.
  static Expected<JsonLocations> scan(std::string_view text, const std::string& path,
                                      const json::Json& root);
  // Positions recorded by another producer of a DOM from `text` (the model
  // language's parser, frontends/dsl_parse.h), one `add` per value.
  static JsonLocations for_source(std::string_view text, const std::string& path);
  // `value` starts at byte `value_offset` (a string written in double quotes:
  // its opening quote, JSON escapes); its key at `key_offset` (npos: none).
  // A string written without quotes is the raw bytes [value_offset, bare_end).
  void add(const json::Json* value, size_t value_offset, size_t key_offset = std::string::npos,
           size_t bare_end = std::string::npos);

  // Loc of a value of the DOM (its first byte); values not in the DOM give the
  // file-only Loc. key_loc: the key's opening quote, or value_loc for array
  // elements and the root.
  Loc value_loc(const json::Json* value) const;
  Loc key_loc(const json::Json* value) const;
  // For a string value: where each of its decoded bytes came from.
  StringLocator string_locator(const json::Json* value) const;
  Loc string_loc(const json::Json* value, size_t decoded_offset) const {
    return string_locator(value).at(decoded_offset);
  }
  // Loc of a raw byte offset.
  Loc loc(size_t offset) const;
  const std::string& path() const { return path_; }

 private:
  struct Entry {
    size_t value = 0;
    size_t key = std::string::npos;
    size_t bare_end = std::string::npos;  // a string without quotes ends here
  };
  std::string path_;
  std::string text_;
  std::vector<size_t> line_starts_;
  std::unordered_map<const json::Json*, Entry> entries_;

  friend class JsonScanner;
};

}  // namespace mlc
