// FNV-1a 64 over bytes, and 64-bit values as 16 hex digits: the one checksum
// of mlc's files (checkpoint tensors, artifact sections, kernel-cache entries)
// and of its content-derived names (kernel symbols, cache file names, module
// hashes). Not cryptographic: it detects corruption, not tampering.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace mlc::rt {

inline constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;

inline uint64_t fnv1a64(std::string_view bytes, uint64_t seed = kFnvOffsetBasis) {
  uint64_t h = seed;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return h;
}

inline uint64_t fnv1a64(const void* data, size_t size) {
  return fnv1a64(std::string_view(static_cast<const char*>(data), size));
}

inline std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace mlc::rt
