// The artifact container's layout and the limits its writer
// (artifact_writer.cc) and its validating reader (artifact_reader.cc) share;
// the format itself is described in runtime/artifact.h. Internal to runtime/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ir/model_config.h"
#include "support/json_parse.h"

namespace mlc::rt::artifact_format {

using Json = nlohmann::ordered_json;

inline constexpr char kMagic[8] = {'M', 'L', 'C', 'X', '\r', '\n', '\x1a', '\n'};
inline constexpr size_t kHeaderBytes = 24, kEntryBytes = 40, kNameBytes = 16;
inline constexpr uint32_t kMaxSections = 16;
inline constexpr int64_t kMaxElements = int64_t{1} << 40;  // as the model format's limit
inline constexpr int64_t kMaxCount = int64_t{1} << 24;     // list lengths, dims
// The manifest's JSON (support/json_parse.h): a valid one nests about 11 deep
// and holds about one value per 13 bytes (tiny_gpt: 36k values); the writer
// writes no key twice.
inline constexpr json::Limits kManifestJsonLimits{32, int64_t{1} << 24, true};

// Little-endian integers of the header and the section table.
inline void put_u32(std::string& s, uint32_t v) {
  for (int i = 0; i < 4; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline void put_u64(std::string& s, uint64_t v) {
  for (int i = 0; i < 8; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
inline uint64_t get_u(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

// A parameter initializer's name in the manifest.
inline std::string_view init_kind_name(ParamInit::Kind k) {
  switch (k) {
    case ParamInit::Kind::kaiming_uniform: return "kaiming_uniform";
    case ParamInit::Kind::uniform: return "uniform";
    case ParamInit::Kind::normal: return "normal";
    case ParamInit::Kind::ones: return "ones";
    case ParamInit::Kind::zeros: return "zeros";
    case ParamInit::Kind::constant: return "constant";
    case ParamInit::Kind::uniform_range: return "uniform_range";
    case ParamInit::Kind::trunc_normal: return "trunc_normal";
    case ParamInit::Kind::orthogonal: return "orthogonal";
  }
  return "zeros";
}

}  // namespace mlc::rt::artifact_format
