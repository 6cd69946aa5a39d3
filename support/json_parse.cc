#include "support/json_parse.h"

#include <iterator>
#include <new>
#include <unordered_set>
#include <utility>
#include <vector>

#include "support/quote.h"

namespace mlc::json {

namespace {

// A char iterator that records how far nlohmann's lexer has read, so that SAX
// events (which carry no position) can be placed: when start_array fires, the
// lexer has consumed exactly up to and including the '['.
class TrackingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator() = default;
  TrackingIterator(const char* p, const char** furthest) : p_(p), furthest_(furthest) {}
  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    ++p_;
    if (furthest_ && p_ > *furthest_) *furthest_ = p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const TrackingIterator& o) const { return p_ == o.p_; }
  bool operator!=(const TrackingIterator& o) const { return p_ != o.p_; }

 private:
  const char* p_ = nullptr;
  const char** furthest_ = nullptr;
};

bool is_token_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
         c == '+' || c == '-';
}

// The first byte of the token the lexer has just read, given how far it has
// read: strings end at their closing quote, containers at their bracket, and
// numbers one byte further (the lexer reads the byte after a number).
size_t token_start(std::string_view text, size_t consumed) {
  if (consumed == 0 || consumed > text.size()) return 0;
  size_t i = consumed - 1;
  if (!is_token_char(text[i]) && text[i] != '"' && text[i] != '[' && text[i] != '{' && i > 0) --i;
  if (text[i] == '[' || text[i] == '{') return i;
  if (text[i] == '"') {
    for (size_t j = i; j-- > 0;) {
      if (text[j] != '"') continue;
      size_t backslashes = 0;
      while (backslashes < j && text[j - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return j;
    }
    return 0;
  }
  while (i > 0 && is_token_char(text[i - 1])) --i;
  return i;
}

class DomBuilder {
 public:
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  DomBuilder(const Limits& limits, Json& root, std::string_view text, const char* const* furthest)
      : limits_(limits), root_(root), text_(text), furthest_(furthest) {}

  bool null() { return put(Json(nullptr)); }
  bool boolean(bool v) { return put(Json(v)); }
  bool number_integer(Json::number_integer_t v) { return put(Json(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return put(Json(v)); }
  bool number_float(Json::number_float_t v, const string_t&) { return put(Json(v)); }
  bool string(string_t& v) { return put(Json(std::move(v))); }
  bool binary(binary_t& v) { return put(Json(std::move(v))); }

  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& k) {
    if (!count()) return false;
    Frame& top = frames_.back();
    if (limits_.reject_duplicate_keys && !top.keys.insert(k).second) {
      fail(Failure::Kind::duplicate_key, consumed(), k);
      failure_->depth = static_cast<int>(frames_.size());
      failure_->parent_key = top.own_key;
      return false;
    }
    pending_key_ = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    size_t offset = position;
    if (const auto* pe = dynamic_cast<const nlohmann::detail::parse_error*>(&e)) offset = pe->byte;
    fail(Failure::Kind::syntax, offset, bounded_message(e.what()));
    return false;
  }

  std::optional<Failure>& failure() { return failure_; }

 private:
  struct Frame {
    Json* json;
    std::string own_key;  // the key this container is the value of ("" otherwise)
    std::unordered_set<std::string> keys;  // only with reject_duplicate_keys
  };

  size_t consumed() const { return static_cast<size_t>(*furthest_ - text_.data()); }

  void fail(Failure::Kind kind, size_t offset, std::string detail = {}) {
    if (!failure_) failure_ = Failure{kind, offset, std::move(detail), 0, {}};
  }

  bool count() {
    if (++values_ <= limits_.max_values) return true;
    fail(Failure::Kind::too_many_values, token_start(text_, consumed()));
    return false;
  }

  // Stores a finished value (or a new, empty container) where the parse is;
  // returns its address, stable while it is the innermost open container.
  Json* place(Json&& v) {
    if (frames_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Json& parent = *frames_.back().json;
    if (parent.is_array()) {
      auto& arr = parent.get_ref<Json::array_t&>();
      arr.push_back(std::move(v));
      return &arr.back();
    }
    // Appending to ordered_map's vector keeps text order and skips the lookup.
    auto& members = static_cast<Json::object_t::Container&>(parent.get_ref<Json::object_t&>());
    members.emplace_back(std::move(pending_key_), std::move(v));
    return &members.back().second;
  }

  bool put(Json&& v) {
    if (!count()) return false;
    place(std::move(v));
    return true;
  }

  bool open(Json&& empty) {
    if (!count()) return false;
    if (static_cast<int>(frames_.size()) + 1 > limits_.max_depth) {
      fail(Failure::Kind::too_deep, token_start(text_, consumed()));
      return false;
    }
    std::string own = !frames_.empty() && frames_.back().json->is_object() ? pending_key_ : "";
    Json* j = place(std::move(empty));
    frames_.push_back({j, std::move(own), {}});
    return true;
  }

  bool close() {
    if (!frames_.empty()) frames_.pop_back();
    return true;
  }

  const Limits& limits_;
  Json& root_;
  std::string_view text_;
  const char* const* furthest_;
  std::vector<Frame> frames_;
  std::string pending_key_;
  int64_t values_ = 0;
  std::optional<Failure> failure_;
};

}  // namespace

std::optional<Failure> parse(std::string_view text, const Limits& limits, Json& out) {
  const char* furthest = text.data();
  try {
    DomBuilder builder(limits, out, text, &furthest);
    TrackingIterator first(text.data(), &furthest), last(text.data() + text.size(), nullptr);
    bool ok = Json::sax_parse(first, last, &builder);
    if (builder.failure()) return builder.failure();
    if (!ok) return Failure{Failure::Kind::syntax, text.size(), "invalid JSON", 0, {}};
    return std::nullopt;
  } catch (const std::bad_alloc&) {
    return Failure{Failure::Kind::out_of_memory, static_cast<size_t>(furthest - text.data()), {}, 0, {}};
  } catch (const std::length_error&) {
    return Failure{Failure::Kind::out_of_memory, static_cast<size_t>(furthest - text.data()), {}, 0, {}};
  }
}

std::string bounded_message(std::string what) {
  static constexpr std::string_view kLastRead = "; last read: '";
  size_t begin = what.find(kLastRead);
  if (begin == std::string::npos) return what;
  size_t token = begin + kLastRead.size();
  size_t end = what.rfind("'; expected ");
  if (end == std::string::npos || end < token) end = what.size() - 1;
  if (end < token || what[end] != '\'') return what;
  return what.substr(0, begin) + "; last read: " + squote(std::string_view(what).substr(token, end - token)) +
         what.substr(end + 1);
}

std::string describe(const Failure& f, const Limits& limits) {
  switch (f.kind) {
    case Failure::Kind::syntax: return f.detail;
    case Failure::Kind::too_deep:
      return "nesting deeper than " + std::to_string(limits.max_depth) + " levels";
    case Failure::Kind::too_many_values:
      return "more than " + std::to_string(limits.max_values) + " values";
    case Failure::Kind::duplicate_key: return "duplicate key " + squote(f.detail);
    case Failure::Kind::out_of_memory: return "out of memory while building the JSON document";
  }
  return "invalid JSON";
}

}  // namespace mlc::json
