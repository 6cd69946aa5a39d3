#include "runtime/npz.h"

#include <zlib.h>

#include <algorithm>
#include <set>

#include "runtime/npy.h"
#include "support/quote.h"

namespace mlc::rt {

namespace {

constexpr uint32_t kEndRecord = 0x06054b50, kCentralEntry = 0x02014b50, kLocalHeader = 0x04034b50;
constexpr uint32_t kZip64Limit = 0xffffffff;

struct Member {
  std::string name;
  uint16_t flags = 0, method = 0;
  uint32_t crc = 0;
  uint64_t compressed = 0, size = 0, local_offset = 0;
  size_t entry_at = 0;  // its central directory entry's offset, for messages
};

class ZipReader {
 public:
  ZipReader(std::string_view bytes, const std::string& path) : b_(bytes), path_(path) {}

  Error error(size_t at, const std::string& what) const {
    return make_error(path_ + ": error: byte " + std::to_string(at) + ": " + what);
  }

  bool has(size_t at, size_t n) const { return at <= b_.size() && n <= b_.size() - at; }
  uint64_t le(size_t at, size_t n) const {
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t{static_cast<unsigned char>(b_[at + k])} << (8 * k);
    return v;
  }
  std::string found(size_t at, size_t n) const {
    return has(at, 1) ? squote(b_.substr(at, std::min(n, b_.size() - at))) : "the end of the file";
  }

  Expected<std::vector<Member>> members() const {
    // The end record: 22 bytes and a comment of at most 65535, at the file's end.
    size_t end = std::string_view::npos;
    for (size_t at = b_.size() >= 22 ? b_.size() - 22 : 0; has(at, 22); --at) {
      if (le(at, 4) == kEndRecord && at + 22 + le(at + 20, 2) == b_.size()) {
        end = at;
        break;
      }
      if (at == 0 || b_.size() - at > 22 + 65535) break;
    }
    if (end == std::string_view::npos)
      return error(b_.size(), "expected a zip archive's end record (PK\\5\\6) in the last 65,557 bytes, found none "
                              "(an .npz file is a zip archive, as numpy.savez writes)");
    const uint64_t count = le(end + 10, 2), cd_size = le(end + 12, 4), cd_offset = le(end + 16, 4);
    if (count == 0xffff || cd_size == kZip64Limit || cd_offset == kZip64Limit)
      return error(end, "a Zip64 archive (over 4 GiB or 65535 members): not supported");
    if (cd_offset > end || cd_size > end - cd_offset)
      return error(end + 12, "expected the central directory (" + std::to_string(cd_size) + " bytes at " +
                                 std::to_string(cd_offset) + ") before the end record at " + std::to_string(end));
    std::vector<Member> out;
    size_t at = cd_offset;
    for (uint64_t k = 0; k < count; ++k) {
      if (!has(at, 46) || le(at, 4) != kCentralEntry)
        return error(at, "expected central directory entry " + std::to_string(k + 1) + " of " +
                             std::to_string(count) + " (PK\\1\\2), found " + found(at, 4));
      Member m;
      m.entry_at = at;
      m.flags = static_cast<uint16_t>(le(at + 8, 2));
      m.method = static_cast<uint16_t>(le(at + 10, 2));
      m.crc = static_cast<uint32_t>(le(at + 16, 4));
      m.compressed = le(at + 20, 4);
      m.size = le(at + 24, 4);
      m.local_offset = le(at + 42, 4);
      const size_t name_len = le(at + 28, 2), extra_len = le(at + 30, 2), comment_len = le(at + 32, 2);
      if (!has(at + 46, name_len + extra_len + comment_len) || at + 46 + name_len + extra_len + comment_len > end)
        return error(at + 28, "expected the entry's name, extra field and comment inside the central directory, "
                              "found the end record");
      m.name = std::string(b_.substr(at + 46, name_len));
      MLC_CHECK_OK(zip64_fields(m, at + 46 + name_len, extra_len));
      at += 46 + name_len + extra_len + comment_len;
      out.push_back(std::move(m));
    }
    return out;
  }

  // The member's bytes, inflated and checked against its CRC-32.
  Expected<std::string> data(const Member& m) const {
    const std::string who = "member " + squote(m.name) + ": ";
    if (m.flags & 1) return error(m.entry_at + 8, who + "encrypted; numpy's archives are not");
    if (m.method != 0 && m.method != 8)
      return error(m.entry_at + 10, who + "expected compression method 0 (stored) or 8 (deflated), found " +
                                        std::to_string(m.method));
    const size_t at = m.local_offset;
    if (!has(at, 30) || le(at, 4) != kLocalHeader)
      return error(at, who + "expected its local header (PK\\3\\4), found " + found(at, 4));
    const size_t data_at = at + 30 + le(at + 26, 2) + le(at + 28, 2);
    if (!has(data_at, m.compressed))
      return error(data_at, who + "expected " + std::to_string(m.compressed) + " bytes of data, found " +
                                std::to_string(has(data_at, 0) ? b_.size() - data_at : 0));
    std::string out;
    const std::string_view in = b_.substr(data_at, m.compressed);
    if (m.method == 0) {
      if (m.compressed != m.size)
        return error(m.entry_at + 20, who + "stored, so its sizes must be equal: " + std::to_string(m.compressed) +
                                          " and " + std::to_string(m.size));
      out = std::string(in);
    } else {
      MLC_TRY(out, inflate_raw(in, m.size, data_at, who));
    }
    const uint32_t crc = static_cast<uint32_t>(
        crc32_z(crc32_z(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(out.data()), out.size()));
    if (crc != m.crc)
      return error(data_at, who + "corrupt: CRC-32 " + hex(crc) + " of its data, " + hex(m.crc) + " in the archive");
    return out;
  }

 private:
  static std::string hex(uint32_t v) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string s = "0x";
    for (int shift = 28; shift >= 0; shift -= 4) s += kHex[(v >> shift) & 15];
    return s;
  }

  // A central entry's Zip64 extra field (id 1): the 8-byte sizes and offset
  // whose 4-byte fields are 0xffffffff, in that order.
  Status zip64_fields(Member& m, size_t at, size_t len) const {
    for (size_t end = at + len; at + 4 <= end;) {
      const uint64_t id = le(at, 2), size = le(at + 2, 2);
      if (at + 4 + size > end) return error(at, "expected an extra field of " + std::to_string(size) + " bytes, found " +
                                                    std::to_string(end - at - 4));
      if (id == 1) {
        size_t field = at + 4;
        for (uint64_t* v : {&m.size, &m.compressed, &m.local_offset}) {
          if (*v != kZip64Limit) continue;
          if (field + 8 > at + 4 + size) return error(field, "expected a Zip64 size or offset, found the field's end");
          *v = le(field, 8);
          field += 8;
        }
      }
      at += 4 + size;
    }
    return {};
  }

  // Raw deflate (zip's method 8) of exactly `size` bytes.
  Expected<std::string> inflate_raw(std::string_view in, uint64_t size, size_t at, const std::string& who) const {
    z_stream z{};
    if (inflateInit2(&z, -MAX_WBITS) != Z_OK) return error(at, who + "zlib cannot start inflating");
    // Grown as it fills (a declared size is not trusted with memory); past
    // `size`, one byte of `probe` finds out whether the stream goes on.
    std::string out(static_cast<size_t>(std::min<uint64_t>(size, uint64_t{1} << 20)), '\0');
    char probe = 0;
    bool longer = false;
    size_t done = 0;
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(in.size());
    int rc = Z_OK;
    while (rc == Z_OK && !longer) {
      if (done == out.size() && out.size() < size)
        out.resize(static_cast<size_t>(std::min<uint64_t>(size, uint64_t{out.size()} * 2 + 1)));
      const bool full = done == out.size();
      z.next_out = reinterpret_cast<Bytef*>(full ? &probe : out.data() + done);
      z.avail_out = static_cast<uInt>(full ? 1 : std::min<size_t>(out.size() - done, UINT32_MAX));
      rc = inflate(&z, Z_NO_FLUSH);
      if (full) longer = z.avail_out == 0;
      else done = static_cast<size_t>(reinterpret_cast<char*>(z.next_out) - out.data());
    }
    const size_t consumed = in.size() - z.avail_in;
    const std::string zlib_says = z.msg ? z.msg : "error " + std::to_string(rc);
    inflateEnd(&z);
    if (rc != Z_STREAM_END && rc != Z_OK && rc != Z_BUF_ERROR && !longer)
      return error(at + consumed, who + "expected deflated data, found data zlib cannot inflate (" +
                                      zlib_says + ")");
    if (longer || rc != Z_STREAM_END || done != size)
      return error(at + consumed, who + "expected " + std::to_string(size) + " bytes when inflated, found " +
                                      (longer ? "more" : rc == Z_STREAM_END ? std::to_string(done)
                                                                            : "a deflate stream cut short"));
    out.resize(done);
    return out;
  }

  std::string_view b_;
  const std::string& path_;
};

}  // namespace

Expected<std::vector<NamedTensor>> parse_npz(std::string_view bytes, const std::string& path) {
  const ZipReader zip(bytes, path);
  MLC_TRY(std::vector<Member> members, zip.members());
  std::vector<NamedTensor> out;
  std::set<std::string> names;
  for (const Member& m : members) {
    if (m.name.ends_with("/")) continue;
    if (!m.name.ends_with(".npy") || m.name.size() == 4)
      return zip.error(m.entry_at + 46, "expected a member NAME.npy (an array), found " + squote(m.name));
    const std::string name = m.name.substr(0, m.name.size() - 4);
    if (!names.insert(name).second) return zip.error(m.entry_at + 46, "member " + squote(m.name) + " twice");
    MLC_TRY(std::string data, zip.data(m));
    MLC_TRY(Tensor t, parse_npy(data, path + "(" + m.name + ")"));
    out.push_back({name, std::move(t)});
  }
  return out;
}

}  // namespace mlc::rt
