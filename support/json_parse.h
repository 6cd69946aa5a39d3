// Bounded JSON parsing: the one way mlc turns JSON text into a DOM (model
// files, safetensors headers, checkpoint metadata; later artifact manifests).
//
// Contracts:
//  - parse_json builds an nlohmann::ordered_json DOM through nlohmann's SAX
//    interface and stops at the FIRST violation of `limits`, before building
//    anything beyond it: nesting deeper than max_depth, or more than max_values
//    values (every scalar, array, object and object key counts one). Memory is
//    therefore O(text size + max_values) whatever the input.
//  - Work is linear in the text: object members are appended in text order
//    without a lookup (nlohmann's own ordered_json parser searches each object
//    for every key, which is quadratic in the number of keys). Duplicate keys
//    are kept, in order, for callers that report them with positions; with
//    reject_duplicate_keys the second occurrence is a failure instead.
//  - Never throws (std::bad_alloc included: it becomes a failure) and never
//    recurses deeper than max_depth.
//  - Failure offsets are byte offsets into `text`: the bracket that opened one
//    level too many, the value that was one too many, the byte where the syntax
//    error was found (nlohmann's), the end of a duplicated key.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace mlc::json {

using Json = nlohmann::ordered_json;

struct Limits {
  int max_depth = 64;
  int64_t max_values = int64_t{1} << 22;
  bool reject_duplicate_keys = false;
};

struct Failure {
  enum class Kind { syntax, too_deep, too_many_values, duplicate_key, out_of_memory } kind;
  size_t offset = 0;
  // syntax: nlohmann's message (its what()), the token it quotes cut by
  // squote (support/quote.h); duplicate_key: the key, whole (callers quote it).
  std::string detail;
  // duplicate_key: containers open around the key (1 for keys of the root
  // object) and the key under which the key's object sits ("" at the root).
  int depth = 0;
  std::string parent_key;
};

// Parses all of `text` into `out`; returns the failure if there is one (`out`
// is then unspecified).
std::optional<Failure> parse(std::string_view text, const Limits& limits, Json& out);

// nlohmann's parse error message (what()) with the token it quotes ("; last
// read: '...'", which may be the rest of the text) cut by squote
// (support/quote.h).
std::string bounded_message(std::string what);

// "nesting deeper than 64 levels", "more than 4194304 values", ... (no location);
// any input it quotes is bounded (support/quote.h).
std::string describe(const Failure& f, const Limits& limits);

}  // namespace mlc::json
