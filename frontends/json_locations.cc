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

Status precheck_json(std::string_view text, const std::string& path) {
  int depth = 0;
  size_t pos = skip_bom(text);
  while (pos < text.size()) {
    char c = text[pos];
    if (c == '"') {
      pos = skip_string(text, pos);
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth)
        return error_at(loc_of_offset(path, text, pos),
                        "invalid JSON: nesting deeper than " + std::to_string(kMaxJsonDepth) +
                            " levels");
      ++pos;
    } else if (c == '}' || c == ']') {
      if (depth > 0) --depth;
      ++pos;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t end = pos;
      while (end < text.size() && is_number_char(text[end])) ++end;
      std::string token(text.substr(pos, end - pos));
      double v = std::strtod(token.c_str(), nullptr);
      if (std::isinf(v)) {
        if (token.size() > 40) token = token.substr(0, 40) + "...";
        return error_at(loc_of_offset(path, text, pos),
                        "invalid JSON: number " + token + " is out of range");
      }
      pos = end;
    } else {
      ++pos;
    }
  }
  return {};
}

std::string json_pointer_child(std::string_view parent, std::string_view key) {
  std::string s(parent);
  s += '/';
  for (char c : key) {
    if (c == '~')
      s += "~0";
    else if (c == '/')
      s += "~1";
    else
      s += c;
  }
  return s;
}

std::string squote(std::string_view s) {
  constexpr size_t kMax = 60;
  std::string out = "'";
  size_t n = s.size();
  if (n > kMax) {
    n = kMax;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  }
  static const char* hex = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (n < s.size()) out += "...";
  return out + "'";
}

std::string json_pointer_child(std::string_view parent, size_t index) {
  return std::string(parent) + "/" + std::to_string(index);
}

// The post-parse walk. The text is valid JSON, but every read is still bounds
// checked so that a disagreement with nlohmann cannot read out of range.
class JsonScanner {
 public:
  JsonScanner(JsonLocations& out, std::string_view text) : out_(out), text_(text) {}

  Status run() {
    pos_ = skip_bom(text_);
    std::string pointer;
    size_t key_offset = std::string::npos;
    while (true) {
      skip_ws();
      out_.entries_[pointer] = {pos_, key_offset};
      char c = peek();
      if (c == '{' || c == '[') {
        stack_.push_back({c == '{', pointer, 0, {}});
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
        pointer = json_pointer_child(top.pointer, key);
      } else {
        key_offset = std::string::npos;
        pointer = json_pointer_child(top.pointer, top.index++);
      }
    }
  }

 private:
  struct Frame {
    bool is_object;
    std::string pointer;
    size_t index;
    std::unordered_map<std::string, size_t> keys;
  };

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

Expected<JsonLocations> JsonLocations::scan(std::string_view text, const std::string& path) {
  JsonLocations locs;
  locs.path_ = path;
  locs.text_ = std::string(text);
  locs.line_starts_.push_back(0);
  for (size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') locs.line_starts_.push_back(i + 1);
  JsonScanner scanner(locs, locs.text_);
  MLC_CHECK_OK(scanner.run());
  return locs;
}

Loc JsonLocations::loc(size_t offset) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  return Loc{path_, static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
}

Loc JsonLocations::value_loc(std::string_view pointer) const {
  auto it = entries_.find(std::string(pointer));
  if (it == entries_.end()) return Loc{path_};
  return loc(it->second.value);
}

Loc JsonLocations::key_loc(std::string_view pointer) const {
  auto it = entries_.find(std::string(pointer));
  if (it == entries_.end()) return Loc{path_};
  return loc(it->second.key != std::string::npos ? it->second.key : it->second.value);
}

Loc JsonLocations::string_loc(std::string_view pointer, size_t decoded_offset) const {
  auto it = entries_.find(std::string(pointer));
  if (it == entries_.end()) return Loc{path_};
  size_t pos = it->second.value + 1;  // after the opening quote
  size_t decoded = 0;
  while (decoded < decoded_offset && pos < text_.size() && text_[pos] != '"') {
    if (text_[pos] != '\\') {
      ++decoded;
      ++pos;
      continue;
    }
    if (pos + 1 < text_.size() && text_[pos + 1] == 'u' && pos + 6 <= text_.size()) {
      int cp = hex_value(std::string_view(text_).substr(pos + 2, 4));
      bool pair = cp >= 0xD800 && cp < 0xDC00 && pos + 12 <= text_.size() &&
                  text_.compare(pos + 6, 2, "\\u") == 0;
      decoded += pair ? 4 : cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
      pos += pair ? 12 : 6;
    } else {
      ++decoded;
      pos += 2;
    }
  }
  return loc(pos);
}

}  // namespace mlc
