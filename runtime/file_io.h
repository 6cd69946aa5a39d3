// Whole-file reads and atomic writes, for every file mlc produces or loads
// (safetensors, checkpoints, artifacts).
//
// Contracts:
//  - read_file reads a regular file whole; errors are "<path>: error: cannot
//    open: <reason>" (or stat/read), "... cannot read: not a regular file".
//  - write_file_atomically writes the chunks, in order, to "<path>.tmp.<pid>",
//    fsyncs it, renames it over `path`, then fsyncs the directory. Before the
//    rename, a failure removes the temporary file and leaves `path` as it
//    was: a reader sees the old file or the whole new one, never a part.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"

namespace mlc::rt {

Expected<std::string> read_file(const std::string& path);
Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& chunks);

}  // namespace mlc::rt
