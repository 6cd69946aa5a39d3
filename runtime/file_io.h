// Whole-file reads and atomic writes, for every file mlc produces or loads
// (safetensors, checkpoints, artifacts, kernel cache entries, reports).
//
// Contracts:
//  - read_file reads a regular file whole, opened by open_regular_file
//    (ir/source_file.h: never blocks on a FIFO; refuses what is not a regular
//    file before reading); errors are "<path>: error: cannot open: <reason>",
//    "<path>: error: not a regular file (a FIFO)", "... cannot read: <reason>".
//  - create_temp_file creates a new file next to `path`, named
//    "<path>.tmp.<pid>.<12 random hex digits>", with O_CREAT | O_EXCL |
//    O_NOFOLLOW: it never opens a file or a link that was already there, so a
//    symbolic link planted at a predictable name cannot redirect the write.
//    Its mode is `mode` (0666 by default) less the umask, as a plain create's.
//  - write_file_atomically writes the chunks, in order, to such a temporary
//    file, fsyncs it, renames it over `path` (a link at `path` is replaced,
//    never followed), then fsyncs the directory (with sync false: no fsync,
//    for caches, which lose nothing but time). Before the rename, a failure
//    removes the temporary file and leaves `path` as it was: a reader sees
//    the old file or the whole new one, never a part.
//  - temp_file_target recognizes the names create_temp_file gives (and the
//    "<path>.tmp.<pid>" of mlc before 2026-12): the target's name and the pid
//    of the process that created it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "ir/source_file.h"

namespace mlc::rt {

Expected<std::string> read_file(const std::string& path);
// The rest of a file opened by open_regular_file (`path` names it in errors).
Expected<std::string> read_open_file(RegularFile& file, const std::string& path);

struct TempFile {
  std::string path;
  FileDescriptor fd;  // open for writing
};
Expected<TempFile> create_temp_file(const std::string& path, mode_t mode = 0666);

struct WriteOptions {
  mode_t mode = 0666;
  bool sync = true;
};
Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& chunks,
                             const WriteOptions& options = {});

struct TempFileName {
  std::string target;  // the file name it was to replace
  pid_t pid = 0;       // of the process that created it
};
std::optional<TempFileName> temp_file_target(std::string_view file_name);

}  // namespace mlc::rt
