// libFuzzer harness for the cubin reader (runtime/cuda/cubin.h): what the
// "cuda" target runs on every kernel object of an artifact before the driver
// sees it (runtime/cuda/cuda_code.h check_cuda_module), so any bytes an
// artifact holds reach it.
//
// Input: any bytes, read as one cubin by cubin_arch, and by check_cubin for
// each of a fixed list of architectures and kernel symbols: the kernels of
// tests/data/cuda/kernels.cu and synthetic_cubin.h's names, and the first
// few names that follow ".text." in the bytes (a kernel's code section is
// ".text.NAME": mlc's kernels are "mlc_kernel_<hash>").
// Invariants:
//   - no crash, no read outside the bytes (ASan), bounded time;
//   - a cubin accepted for arch X reads back as X: cubin_arch succeeds, its
//     SM number is X's, and it is X exactly where X has no suffix, or X's
//     SM with or without "a" where X ends in "a" (arch-specific code only
//     for an "a" arch), or X's SM where X ends in "f";
//   - the arch cubin_arch reads is one check_cubin accepts the architecture
//     of: for that arch, check_cubin fails only on the symbol table;
//   - an accepted kernel's name is in the bytes, NUL-terminated (the string
//     table is inside the image).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/cuda/cubin.h"
#include "tests/fuzz/fuzz_report.h"

namespace {

[[noreturn]] void fail(const char* what, const std::string& detail) { mlc::fuzz::fail("fuzz_cubin", what, detail); }

constexpr const char* kArchs[] = {"sm_75",  "sm_80",   "sm_86",   "sm_89", "sm_90",
                                  "sm_90a", "sm_100", "sm_100a", "sm_100f", "sm_120"};
constexpr const char* kSymbols[] = {"add_one", "halve", "copy_idx", "gather", "zero_idx", "fusion_0", "fusion_1", "k", ""};

bool is_arch_error(const std::string& m) { return m.rfind("a cubin for ", 0) == 0; }

void check_accepted(std::string_view bytes, std::string_view arch, std::string_view symbol) {
  const mlc::Expected<std::string> read = mlc::rt::cubin_arch(bytes);
  if (!read) fail("check_cubin accepts bytes that cubin_arch refuses", std::string(arch) + ": " + read.error().message);
  const std::optional<int> want = mlc::rt::sm_version(arch), got = mlc::rt::sm_version(*read);
  const bool got_a = read->back() == 'a';
  const char suffix = arch.back() >= '0' && arch.back() <= '9' ? '\0' : arch.back();
  const bool same = want && got && *want == *got && (!got_a || suffix == 'a') && (suffix != '\0' || *read == arch);
  if (!same) fail("a cubin accepted for one arch reads back as another", std::string(arch) + " read back as " + *read);
  const std::string name = std::string(symbol) + '\0';
  if (bytes.find(name) == std::string_view::npos)
    fail("check_cubin finds a kernel whose name is not in the bytes", "'" + std::string(symbol) + "'");
}

// The NUL-terminated names after ".text." in `bytes`: the first four
// distinct ones of at most 64 bytes.
std::vector<std::string> text_section_names(std::string_view bytes) {
  std::vector<std::string> names;
  constexpr std::string_view kText = ".text.";
  for (size_t at = bytes.find(kText); at != std::string_view::npos && names.size() < 4;
       at = bytes.find(kText, at + 1)) {
    const std::string_view rest = bytes.substr(at + kText.size());
    const size_t end = rest.find('\0');
    if (end == std::string_view::npos || end > 64) continue;
    const std::string name(rest.substr(0, end));
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const mlc::Expected<std::string> read = mlc::rt::cubin_arch(bytes);
  std::vector<std::string> symbols(std::begin(kSymbols), std::end(kSymbols));
  for (std::string& name : text_section_names(bytes)) symbols.push_back(std::move(name));
  for (const std::string& symbol : symbols) {
    for (const char* arch : kArchs)
      if (mlc::rt::check_cubin(bytes, symbol, arch).ok()) check_accepted(bytes, arch, symbol);
    if (read) {
      mlc::Status own = mlc::rt::check_cubin(bytes, symbol, *read);
      if (own.ok())
        check_accepted(bytes, *read, symbol);
      else if (is_arch_error(own.error().message))
        fail("check_cubin refuses the arch cubin_arch reads", *read + ": " + own.error().message);
    }
  }
  return 0;
}
