// Reading a source file whole: model files and textual IR.
//
// Contracts:
//  - `path` "-" reads standard input (named "<stdin>" in messages); any other
//    path must name a regular file: directories, devices (/dev/zero), FIFOs and
//    sockets are refused before a byte is read.
//  - At most `max_bytes` are held: a regular file over the limit is refused by
//    its size, standard input as soon as it delivers one byte more. So reading
//    never allocates more than max_bytes + 64 KiB, whatever the input.
//  - Errors: "PATH: error: cannot open: No such file or directory",
//    "PATH: error: not a regular file (a character device)",
//    "PATH: error: the model file is 20000000 bytes, more than the limit of
//    16777216 bytes (docs/limits.md)", "<stdin>: error: the model file is over
//    the limit of 16777216 bytes (docs/limits.md)". `what` names the kind.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/expected.h"

namespace mlc {

inline constexpr uint64_t kMaxModelFileBytes = uint64_t{16} << 20;  // 16 MiB
inline constexpr uint64_t kMaxIrFileBytes = uint64_t{256} << 20;    // 256 MiB

struct SourceFile {
  std::string name;  // the path, or "<stdin>"
  std::string text;
};

Expected<SourceFile> read_source_file(const std::string& path, uint64_t max_bytes,
                                      std::string_view what);

}  // namespace mlc
