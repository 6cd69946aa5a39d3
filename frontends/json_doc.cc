#include "frontends/json_doc.h"

#include <cmath>
#include <limits>

#include "frontends/form_words.h"
#include "ir/diagnostics.h"
#include "ir/types.h"

namespace mlc {

namespace {

// nlohmann's message after "... while parsing X - ", without the echo of the
// raw input ("; last read: '...'"), which may hold invalid bytes.
std::string parse_error_reason(const std::string& what) {
  std::string reason = what;
  size_t dash = reason.find(" - ");
  if (dash != std::string::npos) reason = reason.substr(dash + 3);
  size_t last_read = reason.find("; last read: '");
  if (last_read != std::string::npos) {
    size_t expected = reason.rfind("; expected ");
    std::string tail = expected != std::string::npos && expected > last_read
                           ? reason.substr(expected)
                           : std::string();
    reason = reason.substr(0, last_read) + tail;
  }
  if (reason.rfind("invalid string: ill-formed UTF-8 byte", 0) == 0)
    return "ill-formed UTF-8 byte in a string (model files must be UTF-8)";
  return reason;
}

std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}

}  // namespace

Node Node::child(std::string_view name) const {
  return Node{&json->at(std::string(name)), std::string(name)};
}

Node Node::member(Json::const_iterator it) const { return Node{&it.value(), it.key()}; }

Node Node::element(size_t i) const {
  constexpr size_t kMaxNameBytes = 64;  // messages quote at most 60
  std::string name = key.size() > kMaxNameBytes ? key.substr(0, kMaxNameBytes) : key;
  return Node{&json->at(i), name + "[" + std::to_string(i) + "]"};
}

std::string json_kind(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    case Json::value_t::string: return "a string";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "a binary value";
  }
}

std::string field_prefix(const Node& n) { return n.key.empty() ? "" : squote(n.key) + ": "; }

Expected<JsonDoc> JsonDoc::parse(std::string_view text, const std::string& path) {
  MLC_CHECK_OK(precheck_numbers(text, path));
  auto root = std::make_shared<Json>();
  if (auto failure = json::parse(text, kModelJsonLimits, *root)) {
    if (failure->kind == json::Failure::Kind::out_of_memory)
      return error_at(Loc{path}, "out of memory while reading the model file's JSON");
    size_t offset = failure->offset;
    std::string reason = json::describe(*failure, kModelJsonLimits);
    if (failure->kind == json::Failure::Kind::syntax) {
      offset = offset > 0 ? offset - 1 : 0;
      reason = parse_error_reason(reason);
      if (offset < text.size() && static_cast<unsigned char>(text[offset]) >= 0x80 &&
          reason.rfind("invalid literal", 0) == 0) {
        static const char* hex = "0123456789abcdef";
        auto byte = static_cast<unsigned char>(text[offset]);
        reason = std::string("unexpected byte 0x") + hex[byte >> 4] + hex[byte & 15] +
                 " outside a string";
      }
    } else if (failure->kind == json::Failure::Kind::too_many_values) {
      reason += " (the limit for a model file)";
    }
    return error_at(loc_of_offset(path, text, offset), "invalid JSON: " + reason);
  }
  JsonDoc doc;
  MLC_TRY(JsonLocations locs, JsonLocations::scan(text, path, *root));
  doc.root_ = std::move(root);
  doc.locs_ = std::make_shared<const JsonLocations>(std::move(locs));
  return doc;
}

JsonDoc JsonDoc::from_parts(std::shared_ptr<const Json> root,
                            std::shared_ptr<const JsonLocations> locs) {
  JsonDoc doc;
  doc.root_ = std::move(root);
  doc.locs_ = std::move(locs);
  return doc;
}

// A model-language file is told in its words (frontends/form_words.h).
Error JsonDoc::error(const Node& n, std::string_view message) const {
  return error_at(loc(n), in_the_words_of(path(), message));
}
Error JsonDoc::key_error(const Node& n, std::string_view message) const {
  return error_at(key_loc(n), in_the_words_of(path(), message));
}

Expected<int64_t> JsonDoc::as_int(const Node& n) const {
  const Json& j = *n.json;
  if (j.is_string() && j.get<std::string>() == "batch")
    return error(n, field_prefix(n) +
                        "the symbol \"batch\" is only allowed as a dim of an input's shape");
  if (j.is_number_float() && std::abs(j.get<double>()) >= 9.2e18 &&
      std::floor(j.get<double>()) == j.get<double>())
    return error(n, field_prefix(n) + "integer " + j.dump() + " is out of range");
  if (!j.is_number_integer())
    return error(n, field_prefix(n) + "expected an integer, found " + json_kind(j));
  if (j.is_number_unsigned() &&
      j.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return error(n, field_prefix(n) + "integer " + j.dump() + " is out of range");
  return j.get<int64_t>();
}

Expected<int64_t> JsonDoc::as_positive(const Node& n) const {
  MLC_TRY(int64_t v, as_int(n));
  if (v <= 0) return error(n, field_prefix(n) + "must be positive, found " + std::to_string(v));
  if (v > kMaxElements)
    return error(n, field_prefix(n) + std::to_string(v) + " is too large (at most 2^40)");
  return v;
}

Expected<double> JsonDoc::as_number(const Node& n) const {
  const Json& j = *n.json;
  if (!j.is_number()) return error(n, field_prefix(n) + "expected a number, found " + json_kind(j));
  double v = j.get<double>();
  if (!std::isfinite(v)) return error(n, field_prefix(n) + "must be finite");
  return v;
}

Expected<bool> JsonDoc::as_bool(const Node& n) const {
  if (!n.json->is_boolean())
    return error(n, field_prefix(n) + "expected a boolean, found " + json_kind(*n.json));
  return n.json->get<bool>();
}

Expected<std::string> JsonDoc::as_string(const Node& n) const {
  if (!n.json->is_string())
    return error(n, field_prefix(n) + "expected a string, found " + json_kind(*n.json));
  return n.json->get<std::string>();
}

Status JsonDoc::expect_object(const Node& n) const {
  if (!n.json->is_object())
    return error(n, field_prefix(n) + "expected an object, found " + json_kind(*n.json));
  return {};
}

Status JsonDoc::expect_array(const Node& n) const {
  if (!n.json->is_array())
    return error(n, field_prefix(n) + "expected an array, found " + json_kind(*n.json));
  return {};
}

// ---- Fields

Expected<Fields> Fields::of(const JsonDoc& doc, const Node& object, std::string what) {
  MLC_CHECK_OK(doc.expect_object(object));
  return Fields(doc, object, std::move(what));
}

Status Fields::allow(std::initializer_list<std::string_view> names) const {
  std::vector<std::string> v(names.begin(), names.end());
  return allow(v);
}

Status Fields::allow(const std::vector<std::string>& names) const {
  for (auto it = obj_.json->begin(); it != obj_.json->end(); ++it) {
    bool ok = false;
    for (const auto& n : names) ok = ok || n == it.key();
    if (!ok)
      return doc_->key_error(obj_.member(it), "unknown field " + squote(it.key()) + " in " +
                                                       what_ + " (expected one of: " +
                                                       join_names(names) + ")");
  }
  return {};
}

bool Fields::has(std::string_view key) const { return obj_.json->contains(std::string(key)); }

std::optional<Node> Fields::get(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return obj_.child(key);
}

Error Fields::missing(std::string_view key) const {
  return doc_->error(obj_, what_ + " is missing required field " + squote(key));
}

Expected<Node> Fields::require(std::string_view key) const {
  if (!has(key)) return missing(key);
  return obj_.child(key);
}

Expected<int64_t> Fields::positive(std::string_view key) const {
  MLC_TRY(Node n, require(key));
  return doc_->as_positive(n);
}

Expected<int64_t> Fields::positive(std::string_view key, int64_t dflt) const {
  if (!has(key)) return dflt;
  return doc_->as_positive(obj_.child(key));
}

Expected<int64_t> Fields::integer(std::string_view key, int64_t dflt) const {
  if (!has(key)) return dflt;
  return doc_->as_int(obj_.child(key));
}

Expected<double> Fields::number(std::string_view key) const {
  MLC_TRY(Node n, require(key));
  return doc_->as_number(n);
}

Expected<double> Fields::number(std::string_view key, double dflt) const {
  if (!has(key)) return dflt;
  return doc_->as_number(obj_.child(key));
}

Expected<bool> Fields::boolean(std::string_view key, bool dflt) const {
  if (!has(key)) return dflt;
  return doc_->as_bool(obj_.child(key));
}

Expected<std::string> Fields::string(std::string_view key) const {
  MLC_TRY(Node n, require(key));
  return doc_->as_string(n);
}

Expected<std::string> Fields::choice(std::string_view key, std::string_view dflt,
                                     std::initializer_list<std::string_view> options) const {
  if (!has(key)) return std::string(dflt);
  Node n = obj_.child(key);
  MLC_TRY(std::string v, doc_->as_string(n));
  std::string list;
  for (auto o : options) {
    if (o == v) return v;
    list += (list.empty() ? "\"" : ", \"") + std::string(o) + "\"";
  }
  return doc_->error(n, field_prefix(n) + "must be one of " + list + ", found " + squote(v));
}

}  // namespace mlc
