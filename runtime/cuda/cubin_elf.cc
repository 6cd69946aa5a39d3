#include "runtime/cuda/cubin_elf.h"

#include <cstdint>

namespace mlc::rt::cuda {

namespace {

constexpr size_t kElfHeaderBytes = 64;  // ELF64's header
constexpr int kEmCuda = 190;

uint32_t read_le(std::string_view s, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + static_cast<size_t>(i)]);
  return v;
}

}  // namespace

Expected<int> cubin_sm(std::string_view cubin) {
  if (cubin.size() < kElfHeaderBytes || cubin.substr(0, 4) != "\x7f" "ELF")
    return make_error("not a cubin: no ELF header");
  if (cubin[4] != 2 || cubin[5] != 1) return make_error("not a cubin: not a 64-bit little-endian ELF");
  if (const uint32_t machine = read_le(cubin, 18, 2); machine != kEmCuda)
    return make_error("not a cubin: ELF machine " + std::to_string(machine) + ", not CUDA's (190)");
  const int abi = static_cast<unsigned char>(cubin[8]);
  const uint32_t flags = read_le(cubin, 48, 4);
  int sm;
  if (abi == 7)
    sm = static_cast<int>(flags & 0xff);
  else if (abi == 8)
    sm = static_cast<int>((flags >> 8) & 0xff);
  else
    return make_error("not a cubin: unknown CUDA ELF ABI version " + std::to_string(abi));
  if (sm < 10) return make_error("not a cubin: no SM architecture in its ELF flags");
  return sm;
}

std::optional<int> arch_sm(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return std::nullopt;
  std::string_view digits = arch.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  if (digits.size() < 2 || digits.size() > 3) return std::nullopt;
  int sm = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    sm = sm * 10 + (c - '0');
  }
  return sm;
}

std::string sm_arch_name(int sm) { return "sm_" + std::to_string(sm); }

}  // namespace mlc::rt::cuda
