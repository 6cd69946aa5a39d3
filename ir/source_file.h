// Opening input files safely, and reading a source file whole (model files
// and textual IR).
//
// Contracts of open_regular_file (every input mlc reads goes through it:
// model files, IR, safetensors data, --init, checkpoints, artifacts, metrics
// files, kernel cache entries):
//  - The open never blocks: O_NONBLOCK, so a FIFO (or a device) at `path`
//    returns at once instead of waiting for a writer; fstat then refuses what
//    is not a regular file before a byte is read: "PATH: error: not a
//    regular file (a FIFO)". Reads of a regular file are unaffected by
//    O_NONBLOCK.
//  - follow_links false also refuses a symbolic link at `path` itself
//    (O_NOFOLLOW): "PATH: error: is a symbolic link". Links in the
//    directories above `path` are followed.
//  - Errors: "PATH: error: cannot open: <strerror>", "PATH: error: cannot
//    stat: <strerror>".
//
// Contracts of read_source_file:
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

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/expected.h"

namespace mlc {

inline constexpr uint64_t kMaxModelFileBytes = uint64_t{16} << 20;  // 16 MiB
inline constexpr uint64_t kMaxIrFileBytes = uint64_t{256} << 20;    // 256 MiB

// An open file descriptor, closed when destroyed.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  FileDescriptor& operator=(FileDescriptor&& o) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();
  int get() const { return fd_; }
  // Closes now; returns 0 or the errno of close().
  int close();

 private:
  int fd_ = -1;
};

// A regular file open for reading, and what fstat said of it.
struct RegularFile {
  FileDescriptor fd;
  struct stat st {};
};

Expected<RegularFile> open_regular_file(const std::string& path, bool follow_links = true);

// "a FIFO", "a directory", ...: what a file of this mode is, for messages.
const char* file_kind(mode_t mode);

struct SourceFile {
  std::string name;  // the path, or "<stdin>"
  std::string text;
};

Expected<SourceFile> read_source_file(const std::string& path, uint64_t max_bytes,
                                      std::string_view what);

}  // namespace mlc
