#include "runtime/npy.h"

#include <cstring>
#include <optional>
#include <vector>

#include "ir/types.h"
#include "support/quote.h"

namespace mlc::rt {

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// How an element of a numpy dtype becomes an element of an mlc dtype.
enum class Widen { none, signed_int, unsigned_int };

struct NpyType {
  std::string_view code;  // descr without its byte-order character: "f4"
  DType dtype;
  int itemsize;
  Widen widen;
};

constexpr NpyType kTypes[] = {
    {"f2", DType::f16, 2, Widen::none},         {"f4", DType::f32, 4, Widen::none},
    {"f8", DType::f64, 8, Widen::none},         {"i4", DType::i32, 4, Widen::none},
    {"i8", DType::i64, 8, Widen::none},         {"b1", DType::boolean, 1, Widen::none},
    {"i1", DType::i64, 1, Widen::signed_int},   {"i2", DType::i64, 2, Widen::signed_int},
    {"u1", DType::i64, 1, Widen::unsigned_int}, {"u2", DType::i64, 2, Widen::unsigned_int},
    {"u4", DType::i64, 4, Widen::unsigned_int}};

std::string shape_tuple(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

// The header dict, read from `text` (its first byte at file offset `base`).
class HeaderReader {
 public:
  HeaderReader(std::string_view text, size_t base, const std::string& path) : text_(text), base_(base), path_(path) {}

  Error error(const std::string& expected, const std::string& found_instead = "") const {
    return make_error(path_ + ": error: byte " + std::to_string(base_ + i_) + ": expected " + expected + ", found " +
                      (found_instead.empty() ? found() : found_instead));
  }

  Status read(std::string& descr, bool& fortran, Shape& shape) {
    skip();
    if (!accept('{')) return error("the header dict '{'");
    bool seen[3] = {false, false, false};
    for (skip(); !accept('}'); skip()) {
      const size_t key_at = i_;
      MLC_TRY(std::string key, string_literal("a key: 'descr', 'fortran_order' or 'shape'"));
      static constexpr std::string_view kKeys[] = {"descr", "fortran_order", "shape"};
      size_t k = 0;
      while (k < 3 && kKeys[k] != key) ++k;
      if (k == 3 || seen[k]) {
        i_ = key_at;
        return error(k == 3 ? "a key 'descr', 'fortran_order' or 'shape'" : "each key once",
                     squote(key) + (k == 3 ? "" : " again"));
      }
      seen[k] = true;
      skip();
      if (!accept(':')) return error("':'");
      skip();
      if (k == 0) {
        MLC_TRY(descr, string_literal("the descr, a string such as '<f4'"));
      }
      if (k == 1) MLC_CHECK_OK(boolean(fortran));
      if (k == 2) MLC_CHECK_OK(tuple(shape));
      skip();
      if (!accept(',') && peek() != '}') return error("',' or '}'");
    }
    for (size_t k = 0; k < 3; ++k)
      if (!seen[k]) {
        static constexpr const char* kNames[] = {"'descr'", "'fortran_order'", "'shape'"};
        return error(std::string("the key ") + kNames[k] + " before the dict's end");
      }
    skip();
    if (i_ != text_.size()) return error("only spaces after the header dict");
    return {};
  }

 private:
  int peek() const { return i_ < text_.size() ? static_cast<unsigned char>(text_[i_]) : -1; }
  bool accept(char c) {
    if (peek() != static_cast<unsigned char>(c)) return false;
    ++i_;
    return true;
  }
  void skip() {
    while (peek() == ' ' || peek() == '\n' || peek() == '\t' || peek() == '\r') ++i_;
  }
  std::string found() const {
    if (i_ >= text_.size()) return "the end of the header";
    const unsigned char c = static_cast<unsigned char>(text_[i_]);
    if (c < 0x20 || c >= 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      return std::string("byte 0x") + kHex[c >> 4] + kHex[c & 15];
    }
    return squote(text_.substr(i_, 1));
  }

  Expected<std::string> string_literal(const std::string& what) {
    const int quote = peek();
    if (quote != '\'' && quote != '"') return error(what);
    const size_t start = ++i_;
    while (peek() != -1 && peek() != quote) {
      if (peek() == '\\' || peek() < 0x20 || peek() >= 0x7f) return error(what + " of plain ASCII characters");
      ++i_;
    }
    if (peek() != quote) return error("the string's closing quote");
    ++i_;
    return std::string(text_.substr(start, i_ - 1 - start));
  }

  Status boolean(bool& out) {
    for (const auto& [word, value] : {std::pair{std::string_view("True"), true}, {std::string_view("False"), false}})
      if (text_.substr(i_, word.size()) == word) {
        i_ += word.size();
        out = value;
        return {};
      }
    return error("True or False for 'fortran_order'");
  }

  Status tuple(Shape& shape) {
    if (!accept('(')) return error("the shape, a tuple such as (3, 4)");
    for (skip(); !accept(')'); skip()) {
      if (shape.size() == kMaxRank) return error("at most " + std::to_string(kMaxRank) + " dims");
      if (peek() < '0' || peek() > '9') return error("a dim, a non-negative integer");
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        if (v > (kMaxElements - (peek() - '0')) / 10) return error("a dim of at most 2^40");
        v = v * 10 + (peek() - '0');
        ++i_;
      }
      accept('L');  // Python 2's numpy wrote (3L, 4L)
      shape.push_back(v);
      skip();
      if (!accept(',') && peek() != ')') return error("',' or ')' in the shape");
    }
    return {};
  }

  std::string_view text_;
  size_t base_;
  const std::string& path_;
  size_t i_ = 0;
};

// The element at `src` (one numpy element of `t`) as `to`'s element at `dst`.
void store_element(const NpyType& t, const std::byte* src, std::byte* dst) {
  if (t.widen == Widen::none) {
    std::memcpy(dst, src, static_cast<size_t>(t.itemsize));
    return;
  }
  int64_t v = 0;
  if (t.widen == Widen::unsigned_int) {
    uint64_t u = 0;
    std::memcpy(&u, src, static_cast<size_t>(t.itemsize));  // little-endian: the low bytes
    v = static_cast<int64_t>(u);
  } else {
    uint64_t u = 0;
    std::memcpy(&u, src, static_cast<size_t>(t.itemsize));
    const int shift = 64 - 8 * t.itemsize;
    v = static_cast<int64_t>(u << shift) >> shift;  // sign-extended
  }
  std::memcpy(dst, &v, sizeof v);
}

Expected<const NpyType*> npy_type(const std::string& descr, const std::string& path, size_t at) {
  auto fail = [&](const std::string& why) {
    return make_error(path + ": error: byte " + std::to_string(at) + ": descr " + squote(descr) + ": " + why);
  };
  const char order = descr.empty() ? '\0' : descr[0];
  const std::string_view code = descr.empty() ? "" : std::string_view(descr).substr(1);
  for (const NpyType& t : kTypes)
    if (t.code == code) {
      if (order == '>' && t.itemsize > 1)
        return fail("big-endian data; mlc reads little-endian .npy files (numpy: arr.astype(arr.dtype.newbyteorder('<')))");
      if (order != '<' && order != '=' && order != '|' && order != '>')
        return fail("expected a byte order '<', '=' or '|' first");
      return &t;
    }
  return fail("expected one of <f2 <f4 <f8 <i4 <i8 |b1 |i1 <i2 |u1 <u2 <u4 (numpy: float16/32/64, int8 to int64, "
              "uint8 to uint32, bool)");
}

}  // namespace

Expected<Tensor> parse_npy(std::string_view bytes, const std::string& path) {
  auto at = [&](size_t offset, const std::string& what) {
    return make_error(path + ": error: byte " + std::to_string(offset) + ": " + what);
  };
  if (bytes.substr(0, kMagic.size()) != kMagic)
    return at(0, "expected the .npy magic \"\\x93NUMPY\", found " + squote(bytes.substr(0, kMagic.size())));
  if (bytes.size() < 10) return at(bytes.size(), "expected the format version and header length, found the end of the file");
  const int major = static_cast<unsigned char>(bytes[6]), minor = static_cast<unsigned char>(bytes[7]);
  if (minor != 0 || major < 1 || major > 3)
    return at(6, "expected format version 1.0, 2.0 or 3.0, found " + std::to_string(major) + "." + std::to_string(minor));
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + len_bytes) return at(bytes.size(), "expected the header length, found the end of the file");
  uint64_t header_len = 0;
  for (size_t k = 0; k < len_bytes; ++k) header_len |= uint64_t{static_cast<unsigned char>(bytes[8 + k])} << (8 * k);
  const size_t header_at = 8 + len_bytes;
  if (header_len > bytes.size() - header_at)
    return at(8, "expected a header length of at most the " + std::to_string(bytes.size() - header_at) +
                     " bytes left in the file, found " + std::to_string(header_len));
  std::string descr;
  bool fortran = false;
  Shape shape;
  HeaderReader header(bytes.substr(header_at, header_len), header_at, path);
  MLC_CHECK_OK(header.read(descr, fortran, shape));
  MLC_TRY(const NpyType* type, npy_type(descr, path, header_at));
  const std::optional<int64_t> n = checked_num_elements(shape);
  if (!n) return at(header_at, "shape " + shape_tuple(shape) + " has more than 2^40 elements");
  const size_t data_at = header_at + header_len;
  const uint64_t want = static_cast<uint64_t>(*n) * static_cast<uint64_t>(type->itemsize);
  if (bytes.size() - data_at != want)
    return at(data_at, "data: expected " + std::to_string(want) + " bytes (shape " + shape_tuple(shape) + " of " +
                           squote(descr) + "), found " + std::to_string(bytes.size() - data_at));
  const std::byte* src = reinterpret_cast<const std::byte*>(bytes.data() + data_at);
  if (type->dtype == DType::boolean)
    for (int64_t k = 0; k < *n; ++k)
      if (static_cast<unsigned char>(src[k]) > 1)
        return at(data_at + static_cast<size_t>(k), "data: expected a bool, 0 or 1, found " +
                                                         std::to_string(static_cast<unsigned char>(src[k])));
  Tensor t = Tensor::uninitialized(TensorType{type->dtype, shape});
  const int out_size = dtype_size(type->dtype);
  if (!fortran || shape.size() < 2) {
    for (int64_t k = 0; k < *n; ++k) store_element(*type, src + k * type->itemsize, t.bytes() + k * out_size);
    return t;
  }
  // Column-major: the file's k-th element has multi-index `index` counted with
  // dim 0 fastest; its row-major position is index . strides.
  std::vector<int64_t> strides(shape.size(), 1), index(shape.size(), 0);
  for (size_t d = shape.size() - 1; d > 0; --d) strides[d - 1] = strides[d] * shape[d];
  int64_t position = 0;
  for (int64_t k = 0; k < *n; ++k) {
    store_element(*type, src + k * type->itemsize, t.bytes() + position * out_size);
    for (size_t d = 0; d < shape.size(); ++d) {
      position += strides[d];
      if (++index[d] < shape[d]) break;
      position -= strides[d] * shape[d];
      index[d] = 0;
    }
  }
  return t;
}

Expected<std::string> format_npy(const Tensor& t) {
  std::string_view descr;
  switch (t.dtype()) {
    case DType::f16: descr = "<f2"; break;
    case DType::f32: descr = "<f4"; break;
    case DType::f64: descr = "<f8"; break;
    case DType::i32: descr = "<i4"; break;
    case DType::i64: descr = "<i8"; break;
    case DType::boolean: descr = "|b1"; break;
    case DType::bf16: return make_error("error: bf16 has no numpy dtype: a .npy file cannot hold " + t.type().str());
  }
  std::string header = "{'descr': '" + std::string(descr) + "', 'fortran_order': False, 'shape': " +
                       shape_tuple(t.shape()) + ", }";
  // Magic, version, length, header and its newline: a multiple of 64 bytes.
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>(header.size() >> 8);
  out += header;
  out.append(reinterpret_cast<const char*>(t.bytes()), static_cast<size_t>(t.num_bytes()));
  return out;
}

}  // namespace mlc::rt
