// What the harnesses print when an invariant breaks: the harness, the broken
// invariant and the evidence, then a trap, which libFuzzer reports as a crash
// and saves the input for.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>

namespace mlc::fuzz {

[[noreturn]] inline void fail(const char* harness, const char* what, const std::string& detail) {
  std::fprintf(stderr, "\n==== %s: INVARIANT BROKEN: %s\n%s\n", harness, what, detail.c_str());
  std::fflush(stderr);
  __builtin_trap();
}

// The first line where two printed texts differ, with both versions.
inline std::string first_difference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  size_t line_start = a.rfind('\n', i == 0 ? 0 : i - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  size_t line_no = 1;
  for (size_t k = 0; k < line_start; ++k) line_no += a[k] == '\n';
  auto line_at = [&](const std::string& s) {
    if (line_start > s.size()) return std::string("<end of text>");
    size_t end = s.find('\n', line_start);
    return s.substr(line_start, end == std::string::npos ? std::string::npos : end - line_start);
  };
  return "first difference at byte " + std::to_string(i) + " (line " + std::to_string(line_no) +
         ", sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) + ")\n" +
         "  first print:  " + line_at(a) + "\n  second print: " + line_at(b);
}

// Long texts (printed IR) cut for a readable report.
inline std::string head(const std::string& s) {
  constexpr size_t kMax = 4000;
  return s.size() <= kMax ? s : s.substr(0, kMax) + "\n... (" + std::to_string(s.size()) + " bytes)";
}

// A rejected input's message stays short whatever the input: what it quotes is
// cut at kMaxQuotedBytes (support/quote.h), lists of names at a few hundred
// bytes, types at the rank limit. So a line longer than this, besides the file
// name, echoes input unbounded.
inline constexpr size_t kMaxMessageLine = 1024;

inline void check_message_bounded(const char* harness, const std::string& message,
                                  const std::string& path) {
  size_t begin = 0;
  while (begin <= message.size()) {
    size_t end = message.find('\n', begin);
    if (end == std::string::npos) end = message.size();
    if (end - begin > path.size() + kMaxMessageLine)
      fail(harness, "a diagnostic line is longer than the bound",
           std::to_string(end - begin) + " bytes: " + message.substr(begin, 600) + "...");
    begin = end + 1;
  }
}

}  // namespace mlc::fuzz
