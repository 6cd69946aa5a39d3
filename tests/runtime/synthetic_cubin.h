// Synthetic cubins for tests without a CUDA toolkit: the smallest CUDA ELF
// that runtime/cuda/cubin.h accepts, with no code in it. The image is a
// 64-byte ELF64 header for EM_CUDA with the SM number where ABI version
// `abi` keeps it (cubin.h), then a string table, a symbol table that
// defines each of `symbols` as a function (STT_FUNC in section 3), and four
// section headers: null, .strtab, .symtab (linked to .strtab), .text (empty).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mlc::testing {

// The kernels of tests/data/cuda/kernels.cu: what cuda_test_executables.h's
// executables name.
inline const std::vector<std::string>& test_kernel_symbols() {
  static const std::vector<std::string> symbols = {"add_one", "halve", "copy_idx", "gather", "zero_idx"};
  return symbols;
}

// A cubin for sm_`sm` of CUDA ELF ABI version `abi` (7 or 8; other values
// are written as 8's layout, for tests of unknown versions) defining
// `symbols`. `arch_specific` sets the "a" marker (sm_90a).
inline std::string synthetic_cubin(int sm, const std::vector<std::string>& symbols = test_kernel_symbols(),
                                   int abi = 8, bool arch_specific = false) {
  auto put = [](std::string& s, size_t at, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) s[at + static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  std::string strtab(1, '\0');
  std::vector<uint32_t> names;
  for (const std::string& symbol : symbols) {
    names.push_back(static_cast<uint32_t>(strtab.size()));
    strtab += symbol + '\0';
  }
  while (strtab.size() % 8) strtab.push_back('\0');
  std::string symtab(24 * (symbols.size() + 1), '\0');  // symbol 0 is the null symbol
  for (size_t i = 0; i < symbols.size(); ++i) {
    const size_t at = 24 * (i + 1);
    put(symtab, at, names[i], 4);
    symtab[at + 4] = 0x12;  // STB_GLOBAL, STT_FUNC
    put(symtab, at + 6, 3, 2);  // defined in .text
  }
  const uint64_t strtab_at = 64, symtab_at = strtab_at + strtab.size(), sections_at = symtab_at + symtab.size();
  std::string s(sections_at + 4 * 64, '\0');
  s[0] = 0x7f, s[1] = 'E', s[2] = 'L', s[3] = 'F', s[4] = 2, s[5] = 1, s[6] = 1, s[7] = 0x41;
  s[8] = static_cast<char>(abi);
  put(s, 16, 2, 2);    // ET_EXEC
  put(s, 18, 190, 2);  // EM_CUDA
  put(s, 20, 1, 4);    // EV_CURRENT
  const uint32_t flags = abi == 7 ? static_cast<uint32_t>(sm) | (arch_specific ? 0x800u : 0u)
                                  : 0x06000004u | (static_cast<uint32_t>(sm) << 8) | (arch_specific ? 0x8u : 0u);
  put(s, 40, sections_at, 8);  // e_shoff
  put(s, 48, flags, 4);
  put(s, 52, 64, 2);  // e_ehsize
  put(s, 58, 64, 2);  // e_shentsize
  put(s, 60, 4, 2);   // e_shnum
  put(s, 62, 1, 2);   // e_shstrndx
  s.replace(strtab_at, strtab.size(), strtab);
  s.replace(symtab_at, symtab.size(), symtab);
  auto section = [&](int i, uint32_t type, uint64_t offset, uint64_t size, uint32_t link, uint64_t entsize) {
    const size_t at = sections_at + 64 * static_cast<size_t>(i);
    put(s, at + 4, type, 4);
    put(s, at + 24, offset, 8);
    put(s, at + 32, size, 8);
    put(s, at + 40, link, 4);
    put(s, at + 56, entsize, 8);
  };
  section(1, 3, strtab_at, strtab.size(), 0, 0);  // SHT_STRTAB
  section(2, 2, symtab_at, symtab.size(), 1, 24);  // SHT_SYMTAB
  section(3, 1, sections_at, 0, 0, 0);  // SHT_PROGBITS, empty
  return s;
}

}  // namespace mlc::testing
