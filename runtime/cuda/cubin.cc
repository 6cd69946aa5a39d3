#include "runtime/cuda/cubin.h"

#include <cstdint>

namespace mlc::rt {
namespace {

constexpr uint16_t kEmCuda = 190;
constexpr uint32_t kShtSymtab = 2;
constexpr uint8_t kSttFunc = 2;
constexpr size_t kElf64HeaderBytes = 64;
constexpr size_t kElf64SectionBytes = 64;
constexpr size_t kElf64SymbolBytes = 24;

// Little-endian unsigned integer of `n` bytes at `at`; the caller checked
// that they lie within `b`.
uint64_t read_le(std::string_view b, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(b[at + static_cast<size_t>(i)]);
  return v;
}

bool fits(std::string_view b, uint64_t offset, uint64_t size) {
  return offset <= b.size() && size <= b.size() - offset;
}

struct Header {
  int sm = 0;
  bool arch_specific = false;
};

Expected<Header> read_header(std::string_view b) {
  if (b.size() < kElf64HeaderBytes || b.substr(0, 4) != std::string_view("\x7f" "ELF", 4))
    return make_error("not a cubin: no ELF header");
  if (b[4] != 2 || b[5] != 1) return make_error("not a cubin: not a 64-bit little-endian ELF");
  if (const uint64_t machine = read_le(b, 18, 2); machine != kEmCuda)
    return make_error("not a cubin: ELF machine " + std::to_string(machine) + ", not CUDA (190)");
  const uint64_t flags = read_le(b, 48, 4);
  Header h;
  switch (static_cast<uint8_t>(b[8])) {  // EI_ABIVERSION
    case 7:
      h.sm = static_cast<int>(flags & 0xff);
      h.arch_specific = (flags & 0x800) != 0;
      break;
    case 8:
      h.sm = static_cast<int>((flags >> 8) & 0xff);
      h.arch_specific = (flags & 0x8) != 0;
      break;
    default:
      return make_error("not a cubin: unknown CUDA ELF ABI version " + std::to_string(static_cast<uint8_t>(b[8])) +
                        " (known: 7, 8)");
  }
  if (h.sm == 0) return make_error("not a cubin: no SM version in its ELF flags");
  return h;
}

std::string arch_name(const Header& h) { return "sm_" + std::to_string(h.sm) + (h.arch_specific ? "a" : ""); }

// Whether the ELF symbol table defines `symbol` as a function.
Expected<bool> defines_function(std::string_view b, std::string_view symbol) {
  const uint64_t shoff = read_le(b, 40, 8);
  const uint64_t shentsize = read_le(b, 58, 2);
  const uint64_t shnum = read_le(b, 60, 2);
  if (shentsize != kElf64SectionBytes || !fits(b, shoff, shnum * kElf64SectionBytes))
    return make_error("not a cubin: its section headers lie outside its " + std::to_string(b.size()) + " bytes");
  auto section = [&](uint64_t i) { return shoff + i * kElf64SectionBytes; };
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint64_t s = section(i);
    if (read_le(b, s + 4, 4) != kShtSymtab) continue;
    const uint64_t offset = read_le(b, s + 24, 8), size = read_le(b, s + 32, 8);
    const uint64_t link = read_le(b, s + 40, 4), entsize = read_le(b, s + 56, 8);
    if (entsize != kElf64SymbolBytes || !fits(b, offset, size) || link >= shnum)
      return make_error("not a cubin: a malformed symbol table");
    const uint64_t str_offset = read_le(b, section(link) + 24, 8), str_size = read_le(b, section(link) + 32, 8);
    if (!fits(b, str_offset, str_size)) return make_error("not a cubin: a malformed string table");
    const std::string_view strings = b.substr(str_offset, str_size);
    for (uint64_t sym = offset; sym + kElf64SymbolBytes <= offset + size; sym += kElf64SymbolBytes) {
      const uint64_t name = read_le(b, sym, 4);
      const uint8_t info = static_cast<uint8_t>(b[sym + 4]);
      const uint64_t shndx = read_le(b, sym + 6, 2);
      if ((info & 0xf) != kSttFunc || shndx == 0 || name >= strings.size()) continue;
      const std::string_view rest = strings.substr(name);
      if (rest.substr(0, rest.find('\0')) == symbol) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<int> sm_version(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return std::nullopt;
  std::string_view digits = arch.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  int sm = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    sm = sm * 10 + (c - '0');
  }
  return sm;
}

Expected<std::string> cubin_arch(std::string_view cubin) {
  MLC_TRY(Header h, read_header(cubin));
  return arch_name(h);
}

Status check_cubin(std::string_view cubin, std::string_view symbol, std::string_view arch) {
  MLC_TRY(Header h, read_header(cubin));
  const std::optional<int> want = sm_version(arch);
  if (!want) return make_error("not a CUDA architecture: '" + std::string(arch) + "' (expected sm_XX, e.g. sm_90)");
  if (h.sm != *want || (h.arch_specific && arch.back() != 'a'))
    return make_error("a cubin for " + arch_name(h) + ", not " + std::string(arch));
  MLC_TRY(bool defined, defines_function(cubin, symbol));
  if (!defined) return make_error("the cubin does not define kernel '" + std::string(symbol) + "'");
  return {};
}

}  // namespace mlc::rt
