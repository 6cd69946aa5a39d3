// A parsed JSON file with source positions, and typed, located access to its
// fields. Everything a model file reader needs to turn a JSON mistake into
// "FILE:LINE:COL: error: WHAT".
//
// Contracts:
//  - JsonDoc::parse never throws and never recurses on user-controlled depth:
//    it parses with json::parse under kModelJsonLimits (depth <= 64, at most
//    2^20 values), stopping at the first violation; syntax errors become
//    "invalid JSON: <reason>" at the byte where the parser stopped; duplicate
//    keys are errors (at the second key). Time and memory are linear in the text.
//  - Field access reports: wrong type at the value ("'x': expected an integer,
//    found a string"), a missing required field at the enclosing object, an
//    unknown field at its key. The string "batch" where an integer is expected
//    gets its own message (the symbol is only valid as an input's dim).
//  - Sizes (`positive`) are 1 .. 2^40; larger values are errors, so products of
//    a few sizes cannot overflow int64 before checked_num_elements sees them.
#pragma once

#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontends/json_locations.h"
#include "ir/expected.h"

namespace mlc {

using Json = json::Json;

inline constexpr int kMaxJsonDepth = 64;
inline constexpr int64_t kMaxJsonValues = int64_t{1} << 20;
inline constexpr json::Limits kModelJsonLimits{kMaxJsonDepth, kMaxJsonValues, false};

// A value inside a document, and the name messages call it by.
struct Node {
  const Json* json = nullptr;
  // The key of an object member; for array elements "<array's name>[i]" (the
  // array's name cut to 64 bytes); "" for the root.
  std::string key;

  // Preconditions: json is an object holding `name` / an array longer than i.
  // child(name) searches the object; in loops over members use member(it).
  Node child(std::string_view name) const;
  Node member(Json::const_iterator it) const;
  Node element(size_t i) const;
};

class JsonDoc {
 public:
  static Expected<JsonDoc> parse(std::string_view text, const std::string& path);
  // A DOM built by another reader (the model language) with its positions.
  static JsonDoc from_parts(std::shared_ptr<const Json> root,
                            std::shared_ptr<const JsonLocations> locs);

  Node root() const { return Node{root_.get(), ""}; }
  const JsonLocations& locs() const { return *locs_; }
  const std::string& path() const { return locs_->path(); }

  Loc loc(const Node& n) const { return locs_->value_loc(n.json); }
  Loc key_loc(const Node& n) const { return locs_->key_loc(n.json); }
  StringLocator string_locator(const Node& n) const { return locs_->string_locator(n.json); }
  Error error(const Node& n, std::string_view message) const;      // at the value
  Error key_error(const Node& n, std::string_view message) const;  // at the key

  // Typed reads of one value; `n.key` names it in messages.
  Expected<int64_t> as_int(const Node& n) const;
  Expected<int64_t> as_positive(const Node& n) const;  // 1 .. 2^40
  Expected<double> as_number(const Node& n) const;     // finite
  Expected<bool> as_bool(const Node& n) const;
  Expected<std::string> as_string(const Node& n) const;
  Status expect_object(const Node& n) const;
  Status expect_array(const Node& n) const;

 private:
  std::shared_ptr<const Json> root_;
  std::shared_ptr<const JsonLocations> locs_;
};

// "a string", "an integer", "a number", "a boolean", "an array", "an object", "null".
std::string json_kind(const Json& j);
// "'key': " (or "" for the root) — the prefix of value messages.
std::string field_prefix(const Node& n);

// The fields of one object. `what` names the object in messages: "layer 'fc1'
// (Linear)", "the top level", "'train'".
class Fields {
 public:
  Fields(const JsonDoc& doc, Node object, std::string what)
      : doc_(&doc), obj_(std::move(object)), what_(std::move(what)) {}
  // Precondition-free constructor: checks that `object` is an object.
  static Expected<Fields> of(const JsonDoc& doc, const Node& object, std::string what);

  const Node& node() const { return obj_; }
  const JsonDoc& doc() const { return *doc_; }
  const std::string& what() const { return what_; }
  Loc loc() const { return doc_->loc(obj_); }

  // Unknown field -> error at its key, listing the allowed names.
  Status allow(std::initializer_list<std::string_view> names) const;
  Status allow(const std::vector<std::string>& names) const;
  bool has(std::string_view key) const;
  std::optional<Node> get(std::string_view key) const;
  Expected<Node> require(std::string_view key) const;
  Error missing(std::string_view key) const;

  Expected<int64_t> positive(std::string_view key) const;
  Expected<int64_t> positive(std::string_view key, int64_t dflt) const;
  Expected<int64_t> integer(std::string_view key, int64_t dflt) const;
  Expected<double> number(std::string_view key) const;
  Expected<double> number(std::string_view key, double dflt) const;
  Expected<bool> boolean(std::string_view key, bool dflt) const;
  Expected<std::string> string(std::string_view key) const;
  // A string among `options` (default `dflt` when absent).
  Expected<std::string> choice(std::string_view key, std::string_view dflt,
                               std::initializer_list<std::string_view> options) const;

 private:
  const JsonDoc* doc_;
  Node obj_;
  std::string what_;
};

}  // namespace mlc
