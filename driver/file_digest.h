// Content digests of input files, for the start-up agreement of a run's
// ranks (driver/mesh_train.h): ranks must read the same bytes, wherever the
// files lie.
//
// Contracts:
//  - file_digest is the FNV-1a 64 digest of the file's bytes (16 hex
//    digits), read in 1 MiB chunks through open_regular_file (a FIFO or
//    device is an Error, never waited on).
//  - It is computed once per file: the kernel cache directory
//    (compiler/kernel_cache.h, with its ownership checks) remembers it under
//    the file's device, inode, size, modification and change times, so a
//    second run reads a large data file again only after it changed. Without
//    a cache the file is read each time.
#pragma once

#include <string>

#include "ir/expected.h"

namespace mlc {

Expected<std::string> file_digest(const std::string& path);

}  // namespace mlc
