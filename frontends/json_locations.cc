#include "frontends/json_locations.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ir/diagnostics.h"

namespace mlc {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

size_t skip_bom(std::string_view text) {
  return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

// Index just past the string literal whose opening quote is at `pos`.
size_t skip_string(std::string_view text, size_t pos) {
  ++pos;
  while (pos < text.size() && text[pos] != '"') pos += text[pos] == '\\' ? 2 : 1;
  return std::min(pos + 1, text.size());
}

int hex_value(std::string_view s) {
  int v = 0;
  for (char c : s) {
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

}  // namespace

Status precheck_numbers(std::string_view text, const std::string& path) {
  size_t pos = skip_bom(text);
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '"') {
      pos = skip_string(text, pos);
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = pos;
      while (end < text.size() && is_number_char(text[end])) ++end;
      std::string token(text.substr(pos, end - pos));
      double v = std::strtod(token.c_str(), nullptr);
      if (std::isinf(v)) {
        return error_at(loc_of_offset(path, text, pos),
                        "invalid JSON: number " + unquoted(token) + " is out of range");
      }
      pos = end;
    } else {
      ++pos;
    }
  }
  return {};
}

// The post-parse walk, in step with the DOM. The text is valid JSON, but every
// read is still bounds checked so that a disagreement with the parser cannot
// read out of range (it only loses positions).
class JsonScanner {
 public:
  JsonScanner(JsonLocations& out, std::string_view text) : out_(out), text_(text) {}

  Status run(const json::Json& root) {
    pos_ = skip_bom(text_);
    const json::Json* current = &root;
    size_t key_offset = std::string::npos;
    while (true) {
      skip_ws();
      if (current) out_.entries_[current] = {pos_, key_offset};
      char c = peek();
      if (c == '{' || c == '[') {
        stack_.push_back({c == '{', current, 0, {}});
        ++pos_;
        skip_ws();
        if (peek() == '}' || peek() == ']') {
          ++pos_;
          stack_.pop_back();
          if (!after_value()) return {};
        }
      } else {
        skip_scalar();
        if (!after_value()) return {};
      }
      // Next element of the innermost container.
      skip_ws();
      Frame& top = stack_.back();
      size_t index = top.index++;
      if (top.is_object) {
        key_offset = pos_;
        std::string key = read_key();
        auto [it, inserted] = top.keys.emplace(key, key_offset);
        if (!inserted) {
          Loc first = out_.loc(it->second);
          return error_at(out_.loc(key_offset),
                          "duplicate key " + squote(key) + " (first at line " +
                              std::to_string(first.line) + ", column " +
                              std::to_string(first.col) + ")");
        }
        skip_ws();
        if (peek() == ':') ++pos_;
        current = member(top.container, index);
      } else {
        key_offset = std::string::npos;
        current = element(top.container, index);
      }
    }
  }

 private:
  struct Frame {
    bool is_object;
    const json::Json* container;  // nullptr if the DOM disagrees
    size_t index;
    std::unordered_map<std::string, size_t> keys;
  };

  // The DOM keeps members in text order (json::parse appends them), so the
  // i-th key in the text is the i-th member.
  static const json::Json* member(const json::Json* c, size_t i) {
    if (!c || !c->is_object()) return nullptr;
    const auto& members =
        static_cast<const json::Json::object_t::Container&>(c->get_ref<const json::Json::object_t&>());
    return i < members.size() ? &members[i].second : nullptr;
  }
  static const json::Json* element(const json::Json* c, size_t i) {
    if (!c || !c->is_array()) return nullptr;
    const auto& elements = c->get_ref<const json::Json::array_t&>();
    return i < elements.size() ? &elements[i] : nullptr;
  }

  char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_ws() {
    while (pos_ < text_.size() && is_ws(text_[pos_])) ++pos_;
  }
  void skip_scalar() {
    if (peek() == '"') {
      pos_ = skip_string(text_, pos_);
      return;
    }
    while (pos_ < text_.size() && !is_ws(text_[pos_]) && text_[pos_] != ',' &&
           text_[pos_] != '}' && text_[pos_] != ']')
      ++pos_;
  }
  // After a complete value: consumes closing brackets of finished containers.
  // Returns false when the document is complete, true when a ',' was consumed.
  bool after_value() {
    while (true) {
      if (stack_.empty()) return false;
      skip_ws();
      if (peek() == ',') {
        ++pos_;
        return true;
      }
      if (pos_ >= text_.size()) return false;
      ++pos_;  // '}' or ']'
      stack_.pop_back();
    }
  }
  std::string read_key() {
    size_t start = pos_;
    pos_ = skip_string(text_, pos_);
    std::string_view raw = text_.substr(start, pos_ - start);
    if (raw.find('\\') == std::string_view::npos)
      return std::string(raw.substr(1, raw.size() >= 2 ? raw.size() - 2 : 0));
    auto decoded = nlohmann::json::parse(raw, nullptr, false);
    return decoded.is_string() ? decoded.get<std::string>() : std::string(raw);
  }

  JsonLocations& out_;
  std::string_view text_;
  size_t pos_ = 0;
  std::vector<Frame> stack_;
};

JsonLocations JsonLocations::for_source(std::string_view text, const std::string& path) {
  JsonLocations locs;
  locs.path_ = path;
  locs.text_ = std::string(text);
  locs.line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') locs.line_starts_.push_back(i + 1);
  return locs;
}

void JsonLocations::add(const json::Json* value, size_t value_offset, size_t key_offset,
                        size_t bare_end) {
  entries_[value] = Entry{value_offset, key_offset, bare_end};
}

Expected<JsonLocations> JsonLocations::scan(std::string_view text, const std::string& path,
                                            const json::Json& root) {
  JsonLocations locs = for_source(text, path);
  JsonScanner scanner(locs, locs.text_);
  MLC_CHECK_OK(scanner.run(root));
  return locs;
}

Loc JsonLocations::loc(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  return Loc{path_, static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
}

Loc JsonLocations::value_loc(const json::Json* value) const {
  auto it = entries_.find(value);
  if (it == entries_.end()) return Loc{path_};
  return loc(it->second.value);
}

Loc JsonLocations::key_loc(const json::Json* value) const {
  auto it = entries_.find(value);
  if (it == entries_.end()) return Loc{path_};
  return loc(it->second.key != std::string::npos ? it->second.key : it->second.value);
}

StringLocator JsonLocations::string_locator(const json::Json* value) const {
  StringLocator s;
  s.locs_ = this;
  auto it = entries_.find(value);
  if (it != entries_.end() && it->second.bare_end != std::string::npos) {
    s.known_ = true;
    s.raw_begin_ = it->second.value;
    s.raw_end_ = std::min(it->second.bare_end, text_.size());
    return s;
  }
  if (it == entries_.end() || it->second.value >= text_.size() || text_[it->second.value] != '"')
    return s;
  s.known_ = true;
  size_t pos = it->second.value + 1;
  s.raw_begin_ = pos;
  size_t decoded = 0;
  while (pos < text_.size() && text_[pos] != '"') {
    if (text_[pos] != '\\') {
      ++decoded;
      ++pos;
      continue;
    }
    StringLocator::Escape e{decoded, pos, 1, 2};
    if (pos + 1 < text_.size() && text_[pos + 1] == 'u' && pos + 6 <= text_.size()) {
      int cp = hex_value(std::string_view(text_).substr(pos + 2, 4));
      bool pair = cp >= 0xD800 && cp < 0xDC00 && pos + 12 <= text_.size() &&
                  text_.compare(pos + 6, 2, "\\u") == 0;
      e.decoded_len = pair ? 4 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
      e.raw_len = pair ? 12 : 6;
    }
    s.escapes_.push_back(e);
    decoded += e.decoded_len;
    pos += e.raw_len;
  }
  s.raw_end_ = std::min(pos, text_.size());
  return s;
}

Loc StringLocator::at(size_t decoded_offset) const {
  if (!known_) return Loc{locs_->path()};
  // The last escape starting at or before the offset.
  auto it = std::upper_bound(escapes_.begin(), escapes_.end(), decoded_offset,
                             [](size_t d, const Escape& e) { return d < e.decoded; });
  size_t raw = raw_begin_ + decoded_offset;
  if (it != escapes_.begin()) {
    const Escape& e = *std::prev(it);
    if (decoded_offset < e.decoded + e.decoded_len)
      raw = e.raw;  // inside an escape: point at its backslash
    else
      raw = e.raw + e.raw_len + (decoded_offset - e.decoded - e.decoded_len);
  }
  return locs_->loc(std::min(raw, raw_end_));
}

}  // namespace mlc
