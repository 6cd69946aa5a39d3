// Safetensors reader and writer; the contract is in safetensors.h.
#include "runtime/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>
#include <unordered_set>

#include "runtime/file_io.h"
#include "support/json_parse.h"
#include "support/quote.h"

namespace mlc::rt {
namespace {

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; mlc reads and writes it in place");

using Json = json::Json;

constexpr uint64_t kMaxHeaderBytes = 100'000'000;  // same limit as the reference reader
// A valid header nests 3 deep and holds about 8 values per tensor.
constexpr json::Limits kHeaderJsonLimits{8, int64_t{1} << 23, true};
constexpr size_t kMaxNamesListed = 10;
constexpr char kMetadataKey[] = "__metadata__";

// ---------------------------------------------------------------------------
// Dtypes as spelled in files.

struct FileDType {
  std::string_view name;
  int bits;                   // per element; F4 and F6_* are sub-byte
  std::optional<DType> mlc;   // nullopt: valid in files, unsupported by mlc
};

constexpr FileDType kFileDTypes[] = {
    {"F32", 32, DType::f32},    {"F64", 64, DType::f64},      {"BF16", 16, DType::bf16},
    {"F16", 16, DType::f16},    {"I32", 32, DType::i32},      {"I64", 64, DType::i64},
    {"BOOL", 8, DType::boolean}, {"U8", 8, {}},               {"I8", 8, {}},
    {"I16", 16, {}},            {"U16", 16, {}},              {"U32", 32, {}},
    {"U64", 64, {}},            {"C64", 64, {}},              {"F8_E4M3", 8, {}},
    {"F8_E5M2", 8, {}},         {"F8_E8M0", 8, {}},           {"F4", 4, {}},
    {"F6_E2M3", 6, {}},         {"F6_E3M2", 6, {}},
};

const FileDType* find_file_dtype(std::string_view name) {
  for (const FileDType& d : kFileDTypes)
    if (d.name == name) return &d;
  return nullptr;
}

std::string supported_dtype_list() {
  std::string s;
  for (DType t : kAllDTypes) {
    if (!s.empty()) s += ", ";
    s += safetensors_dtype_name(t);
  }
  return s;
}

// ---------------------------------------------------------------------------
// Messages.

Error file_error(const std::string& path, const std::string& message) {
  return make_error(path + ": error: " + message);
}

Error tensor_error(const std::string& path, const std::string& name, const std::string& message) {
  return file_error(path, "tensor " + squote(name) + ": " + message);
}


std::string offsets_text(uint64_t begin, uint64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + "]";
}

// A JSON value for a message, bounded (support/quote.h). Only called on
// headers already limited to kHeaderJsonLimits and checked to be UTF-8, so
// dump() neither recurses deeply nor throws.
std::string quote_json(const Json& j) { return unquoted(j.dump()); }

// ---------------------------------------------------------------------------
// Header parsing.

// Offset of the first byte of `s` that does not start a valid UTF-8 sequence
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::optional<size_t> find_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : utf8_char_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::nullopt;
}

// The first bytes of a file, quoted, C-escaped: "# mlc\n\nA".
std::string quoted_start(std::string_view bytes) {
  std::string s = "\"";
  for (unsigned char c : bytes.substr(0, 12)) {
    if (c == '\n') s += "\\n";
    else if (c == '"' || c == '\\') s += std::string("\\") + static_cast<char>(c);
    else if (c >= 0x20 && c < 0x7f) s += static_cast<char>(c);
    else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      s += hex;
    }
  }
  return s + "\"";
}

struct Sections {
  std::string_view header;
  std::string_view data;
};

Expected<Sections> split_sections(std::string_view bytes, const std::string& path) {
  if (bytes.size() < 8)
    return file_error(path, "file has " + std::to_string(bytes.size()) +
                                " bytes, too few for a safetensors file (at least 8)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[i]);
  // A length that cannot be and no JSON header after it: another kind of file
  // (a model file, a text, a PyTorch pickle), called that.
  if ((n > kMaxHeaderBytes || n > bytes.size() - 8) && bytes.size() > 8 && bytes[8] != '{')
    return file_error(path, "not a safetensors file: it starts with " + quoted_start(bytes) +
                                ", where a safetensors file has an 8-byte header length and then a JSON header '{'");
  if (n > kMaxHeaderBytes)
    return file_error(path, "header length " + std::to_string(n) + " exceeds the limit of " +
                                std::to_string(kMaxHeaderBytes) + " bytes");
  uint64_t rest = bytes.size() - 8;
  if (n > rest)
    return file_error(path, "header length " + std::to_string(n) + " exceeds the " +
                                std::to_string(rest) +
                                " bytes after the length field (truncated file?)");
  return Sections{bytes.substr(8, n), bytes.substr(8 + n)};
}

Expected<Json> parse_header_json(std::string_view header, const std::string& path) {
  if (auto bad = find_invalid_utf8(header)) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(header[*bad]));
    return file_error(path, std::string("header is not valid UTF-8 (byte ") + byte +
                                " at header offset " + std::to_string(*bad) + ")");
  }
  Json j;
  if (auto failure = json::parse(header, kHeaderJsonLimits, j)) {
    using Kind = json::Failure::Kind;
    switch (failure->kind) {
      case Kind::syntax:
        return file_error(path, "header is not valid JSON: " + failure->detail);
      case Kind::too_deep:
        return file_error(path, "header JSON is nested more than " +
                                    std::to_string(kHeaderJsonLimits.max_depth) + " levels deep");
      case Kind::too_many_values:
        return file_error(path, "header JSON has more than " +
                                    std::to_string(kHeaderJsonLimits.max_values) + " values");
      case Kind::out_of_memory:
        return file_error(path, "out of memory while reading the header");
      case Kind::duplicate_key: {
        const std::string key = squote(failure->detail);
        if (failure->depth == 1 && failure->detail == kMetadataKey)
          return file_error(path, "duplicate key '__metadata__' in the header");
        if (failure->depth == 1) return file_error(path, "duplicate tensor name " + key + " in the header");
        if (failure->depth == 2 && failure->parent_key == kMetadataKey)
          return file_error(path, "__metadata__: duplicate key " + key);
        if (failure->depth == 2)
          return file_error(path, "tensor " + squote(failure->parent_key) + ": duplicate field " + key);
        return file_error(path, "duplicate key " + key + " in the header");
      }
    }
  }
  if (!j.is_object())
    return file_error(path, std::string("header must be a JSON object, got ") + j.type_name());
  return j;
}

// A JSON number that is a non-negative integer.
std::optional<uint64_t> as_non_negative_integer(const Json& v) {
  if (v.is_number_unsigned()) return v.get<uint64_t>();
  if (v.is_number_integer() && v.get<int64_t>() >= 0) return static_cast<uint64_t>(v.get<int64_t>());
  return std::nullopt;
}

// Header information about one tensor, validated against the data section.
struct EntryInfo {
  std::string name;
  const FileDType* dtype = nullptr;
  Shape shape;
  uint64_t begin = 0, end = 0;
};

Expected<const FileDType*> parse_dtype_field(const Json& v, const std::string& name,
                                             const std::string& path) {
  if (!v.is_string()) return tensor_error(path, name, "dtype must be a string, got " + quote_json(v));
  const std::string& s = v.get_ref<const std::string&>();
  const FileDType* d = find_file_dtype(s);
  if (!d) return tensor_error(path, name, "unknown dtype " + squote(s));
  return d;
}

Expected<Shape> parse_shape_field(const Json& v, const std::string& name, const std::string& path) {
  auto bad = [&] {
    return tensor_error(path, name,
                        "shape must be an array of non-negative integers, got " + quote_json(v));
  };
  if (!v.is_array()) return bad();
  if (v.size() > kMaxRank)
    return tensor_error(path, name, "shape has " + std::to_string(v.size()) +
                                        " dims, more than the limit of " + std::to_string(kMaxRank));
  Shape shape;
  for (const Json& d : v) {
    std::optional<uint64_t> dim = as_non_negative_integer(d);
    if (!dim) return bad();
    if (*dim > static_cast<uint64_t>(kMaxElements))
      return tensor_error(path, name, "shape " + quote_json(v) + " has a dim above 2^40");
    shape.push_back(static_cast<int64_t>(*dim));
  }
  if (!checked_num_elements(shape))
    return tensor_error(path, name, "shape " + shape_to_string(shape) + " has more than 2^40 elements");
  return shape;
}

Status parse_offsets_field(const Json& v, uint64_t data_size, EntryInfo& info,
                           const std::string& path) {
  std::optional<uint64_t> begin, end;
  if (v.is_array() && v.size() == 2) {
    begin = as_non_negative_integer(v[0]);
    end = as_non_negative_integer(v[1]);
  }
  if (!begin || !end)
    return tensor_error(path, info.name,
                        "data_offsets must be two non-negative integers [begin, end], got " +
                            quote_json(v));
  if (*begin > *end)
    return tensor_error(path, info.name,
                        "data_offsets " + offsets_text(*begin, *end) + " have begin > end");
  if (*end > data_size)
    return tensor_error(path, info.name,
                        "data_offsets " + offsets_text(*begin, *end) +
                            " end beyond the data section, which has " +
                            std::to_string(data_size) + " bytes (truncated file?)");
  info.begin = *begin;
  info.end = *end;
  return {};
}

// Checks that the byte range holds exactly shape * dtype.
Status check_byte_count(const EntryInfo& info, const std::string& path) {
  // At most 2^40 elements of at most 64 bits: no overflow.
  uint64_t bits = static_cast<uint64_t>(num_elements(info.shape)) * info.dtype->bits;
  std::string what = "shape " + shape_to_string(info.shape) + " of " + std::string(info.dtype->name);
  if (bits % 8 != 0) return tensor_error(path, info.name, what + " is not a whole number of bytes");
  uint64_t held = info.end - info.begin;
  if (held != bits / 8)
    return tensor_error(path, info.name,
                        "data_offsets " + offsets_text(info.begin, info.end) + " hold " +
                            std::to_string(held) + " bytes but " + what + " needs " +
                            std::to_string(bits / 8));
  return {};
}

Expected<EntryInfo> parse_entry(const std::string& name, const Json& j, uint64_t data_size,
                                const std::string& path) {
  if (!j.is_object())
    return tensor_error(path, name, "entry must be a JSON object, got " + quote_json(j));
  static constexpr const char* kFields[] = {"dtype", "shape", "data_offsets"};
  for (const char* field : kFields)
    if (!j.contains(field)) return tensor_error(path, name, std::string("missing field '") + field + "'");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (std::find(std::begin(kFields), std::end(kFields), it.key()) == std::end(kFields))
      return tensor_error(path, name,
                          "unexpected field " + squote(it.key()) + " (expected dtype, shape, data_offsets)");
  EntryInfo info;
  info.name = name;
  MLC_TRY(info.dtype, parse_dtype_field(j.at("dtype"), name, path));
  MLC_TRY(info.shape, parse_shape_field(j.at("shape"), name, path));
  MLC_CHECK_OK(parse_offsets_field(j.at("data_offsets"), data_size, info, path));
  MLC_CHECK_OK(check_byte_count(info, path));
  return info;
}

Expected<std::vector<std::pair<std::string, std::string>>> parse_metadata(const Json& j,
                                                                          const std::string& path) {
  if (!j.is_object())
    return file_error(path, "__metadata__ must be a JSON object of strings, got " + quote_json(j));
  std::vector<std::pair<std::string, std::string>> metadata;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string())
      return file_error(path, "__metadata__ value for " + squote(it.key()) + " must be a string, got " +
                                  quote_json(it.value()));
    metadata.emplace_back(it.key(), it.value().get<std::string>());
  }
  return metadata;
}

// `entries` is sorted by (begin, end). Empty tensors overlap nothing.
Status check_no_overlap(const std::vector<EntryInfo>& entries, const std::string& path) {
  const EntryInfo* reach = nullptr;  // the non-empty entry so far that ends last
  for (const EntryInfo& e : entries) {
    if (e.begin == e.end) continue;
    if (reach && e.begin < reach->end)
      return file_error(path, "tensors " + squote(reach->name) + " (data_offsets " +
                                  offsets_text(reach->begin, reach->end) + ") and " + squote(e.name) +
                                  " (data_offsets " + offsets_text(e.begin, e.end) + ") overlap");
    if (!reach || e.end > reach->end) reach = &e;
  }
  return {};
}

// BOOL bytes must be 0 or 1 (anything else is not a valid C++ bool).
Status check_bool_bytes(const EntryInfo& e, std::string_view data, const std::string& path) {
  for (uint64_t i = e.begin; i < e.end; ++i) {
    unsigned char b = static_cast<unsigned char>(data[i]);
    if (b > 1)
      return tensor_error(path, e.name, "BOOL element " + std::to_string(i - e.begin) +
                                            " is " + std::to_string(b) + ", not 0 or 1");
  }
  return {};
}

SafetensorsEntry make_entry(const EntryInfo& info, std::string_view data) {
  SafetensorsEntry entry;
  entry.name = info.name;
  entry.file_dtype = std::string(info.dtype->name);
  entry.shape = info.shape;
  entry.supported = info.dtype->mlc.has_value();
  if (entry.supported) {
    entry.tensor = Tensor(*info.dtype->mlc, info.shape);
    size_t n = static_cast<size_t>(info.end - info.begin);
    if (n) std::memcpy(entry.tensor.bytes(), data.data() + info.begin, n);
  }
  return entry;
}

// ---------------------------------------------------------------------------
// Files.

// ---------------------------------------------------------------------------
// Writing.

struct PlacedTensor {
  const std::string* name;
  const Tensor* tensor;
  uint64_t begin, end;
};

Status check_write_inputs(const std::string& path,
                          const std::vector<std::pair<std::string, const Tensor*>>& tensors,
                          const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::unordered_set<std::string_view> names;
  for (const auto& [name, tensor] : tensors) {
    if (find_invalid_utf8(name)) return file_error(path, "tensor name is not valid UTF-8");
    if (name == kMetadataKey) return file_error(path, "'__metadata__' cannot name a tensor");
    if (!names.insert(name).second) return file_error(path, "duplicate tensor name " + squote(name));
    if (!tensor) return tensor_error(path, name, "null tensor");
    if (!tensor->bytes()) return tensor_error(path, name, "tensor has no data (default-constructed)");
  }
  std::unordered_set<std::string_view> keys;
  for (const auto& [key, value] : metadata) {
    if (find_invalid_utf8(key) || find_invalid_utf8(value))
      return file_error(path, "metadata is not valid UTF-8");
    if (!keys.insert(key).second) return file_error(path, "duplicate metadata key " + squote(key));
  }
  return {};
}

// Gives each tensor [begin, end) back to back in the current order. False if
// some tensor would not start at a multiple of its element size.
bool assign_offsets(std::vector<PlacedTensor>& placed) {
  uint64_t offset = 0;
  for (PlacedTensor& p : placed) {
    if (offset % dtype_size(p.tensor->dtype()) != 0) return false;
    p.begin = offset;
    p.end = offset += static_cast<uint64_t>(p.tensor->num_bytes());
  }
  return true;
}

// The given order if it needs no gaps for alignment; otherwise stably sorted by
// descending element size, which never does (the data section starts 8-aligned
// and element sizes are powers of two).
std::vector<PlacedTensor> place_tensors(
    const std::vector<std::pair<std::string, const Tensor*>>& tensors) {
  std::vector<PlacedTensor> placed;
  for (const auto& [name, tensor] : tensors) placed.push_back({&name, tensor, 0, 0});
  if (assign_offsets(placed)) return placed;
  std::stable_sort(placed.begin(), placed.end(), [](const PlacedTensor& a, const PlacedTensor& b) {
    return dtype_size(a.tensor->dtype()) > dtype_size(b.tensor->dtype());
  });
  [[maybe_unused]] bool aligned = assign_offsets(placed);
  assert(aligned);
  return placed;
}

// The 8-byte length followed by the padded header.
std::string encode_header(const std::vector<PlacedTensor>& placed,
                          const std::vector<std::pair<std::string, std::string>>& metadata) {
  Json header = Json::object();
  for (const PlacedTensor& p : placed) {
    Json e = Json::object();
    e["dtype"] = std::string(safetensors_dtype_name(p.tensor->dtype()));
    e["shape"] = p.tensor->shape();
    e["data_offsets"] = Json::array({p.begin, p.end});
    header[*p.name] = std::move(e);
  }
  if (!metadata.empty()) {
    Json m = Json::object();
    for (const auto& [key, value] : metadata) m[key] = value;
    header[kMetadataKey] = std::move(m);
  }
  std::string json = header.dump();
  json.append((8 - json.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + json;
}

Status write_atomically(const std::string& path, const std::string& head,
                        const std::vector<PlacedTensor>& placed) {
  std::vector<std::string_view> chunks = {head};
  for (const PlacedTensor& p : placed)
    chunks.emplace_back(reinterpret_cast<const char*>(p.tensor->bytes()), static_cast<size_t>(p.tensor->num_bytes()));
  return write_file_atomically(path, chunks);
}

// Everything parse_safetensors does, without the out-of-memory guard.
Expected<SafetensorsFile> parse_validated(std::string_view bytes, const std::string& path) {
  MLC_TRY(Sections sections, split_sections(bytes, path));
  MLC_TRY(Json header, parse_header_json(sections.header, path));

  SafetensorsFile file;
  file.path = path;
  std::vector<EntryInfo> infos;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == kMetadataKey) {
      MLC_TRY(file.metadata, parse_metadata(it.value(), path));
    } else {
      MLC_TRY(EntryInfo info, parse_entry(it.key(), it.value(), sections.data.size(), path));
      infos.push_back(std::move(info));
    }
  }
  std::stable_sort(infos.begin(), infos.end(), [](const EntryInfo& a, const EntryInfo& b) {
    return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
  });
  MLC_CHECK_OK(check_no_overlap(infos, path));
  for (const EntryInfo& info : infos)
    if (info.dtype->mlc == DType::boolean) MLC_CHECK_OK(check_bool_bytes(info, sections.data, path));

  // Everything is validated: now copy the data.
  for (const EntryInfo& info : infos) {
    file.index.emplace(info.name, file.entries.size());
    file.entries.push_back(make_entry(info, sections.data));
  }
  return file;
}

}  // namespace

// ---------------------------------------------------------------------------
// Public API.

std::string_view safetensors_dtype_name(DType t) {
  for (const FileDType& d : kFileDTypes)
    if (d.mlc == t) return d.name;
  return "?";
}

const SafetensorsEntry* SafetensorsFile::find(std::string_view name) const {
  auto it = index.find(std::string(name));
  return it == index.end() ? nullptr : &entries[it->second];
}

Expected<const Tensor*> SafetensorsFile::get(std::string_view name) const {
  const SafetensorsEntry* e = find(name);
  if (!e) {
    std::string listing = "the file has no tensors";
    if (!entries.empty()) {
      listing = "the file has: ";
      for (size_t i = 0; i < entries.size() && i < kMaxNamesListed; ++i)
        listing += (i ? ", " : "") + unquoted(entries[i].name);
      if (entries.size() > kMaxNamesListed) listing += ", ...";
    }
    return file_error(path, "no tensor " + squote(name) + " (" + listing + ")");
  }
  if (!e->supported)
    return file_error(path, "tensor " + squote(e->name) + " has dtype " + unquoted(e->file_dtype) +
                                ", which mlc does not support (supported: " +
                                supported_dtype_list() + ")");
  return &e->tensor;
}

Expected<SafetensorsFile> parse_safetensors(std::string_view bytes, const std::string& path) {
  return catch_out_of_memory([&] { return parse_validated(bytes, path); },
                             path + ": error: out of memory while reading the safetensors file");
}

Expected<SafetensorsFile> read_safetensors(const std::string& path) {
  MLC_TRY(std::string bytes, catch_out_of_memory([&] { return read_file(path); },
                                                 path + ": error: out of memory while reading the file"));
  return parse_safetensors(bytes, path);
}


Status write_safetensors(const std::string& path,
                         const std::vector<std::pair<std::string, const Tensor*>>& tensors,
                         const std::vector<std::pair<std::string, std::string>>& metadata) {
  MLC_CHECK_OK(check_write_inputs(path, tensors, metadata));
  std::vector<PlacedTensor> placed = place_tensors(tensors);
  return write_atomically(path, encode_header(placed, metadata), placed);
}

}  // namespace mlc::rt
