#include "ir/source_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ir/diagnostics.h"

namespace mlc {

namespace {

// `size`: the file's size, or -1 when reading stopped at the limit.
Error too_large(const std::string& name, std::string_view what, int64_t size, uint64_t max_bytes) {
  std::string limit = "the limit of " + std::to_string(max_bytes) + " bytes (docs/limits.md)";
  if (size < 0) return error_at(Loc{name}, "the " + std::string(what) + " is over " + limit);
  return error_at(Loc{name}, "the " + std::string(what) + " is " + std::to_string(size) +
                                 " bytes, more than " + limit);
}

// Reads fd to its end, holding at most max_bytes + one buffer.
Expected<std::string> read_bounded(int fd, const std::string& name, std::string_view what,
                                   uint64_t max_bytes) {
  std::string text;
  char buf[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return error_at(Loc{name}, std::string("cannot read: ") + std::strerror(errno));
    if (n == 0) return text;
    if (text.size() + static_cast<size_t>(n) > max_bytes)
      return too_large(name, what, -1, max_bytes);
    text.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace

const char* file_kind(mode_t mode) {
  if (S_ISREG(mode)) return "a regular file";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

FileDescriptor::~FileDescriptor() { close(); }

int FileDescriptor::close() {
  if (fd_ < 0) return 0;
  int rc = ::close(fd_);
  fd_ = -1;
  return rc == 0 ? 0 : errno;
}

Expected<RegularFile> open_regular_file(const std::string& path, bool follow_links) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow_links ? 0 : O_NOFOLLOW);
  RegularFile f;
  f.fd = FileDescriptor(::open(path.c_str(), flags));
  if (f.fd.get() < 0) {
    if (errno == ELOOP && !follow_links) return error_at(Loc{path}, "is a symbolic link");
    return error_at(Loc{path}, std::string("cannot open: ") + std::strerror(errno));
  }
  if (::fstat(f.fd.get(), &f.st) != 0)
    return error_at(Loc{path}, std::string("cannot stat: ") + std::strerror(errno));
  if (!S_ISREG(f.st.st_mode))
    return error_at(Loc{path}, std::string("not a regular file (") + file_kind(f.st.st_mode) + ")");
  return f;
}

Expected<SourceFile> read_source_file(const std::string& path, uint64_t max_bytes,
                                      std::string_view what) {
  if (path == "-") {
    MLC_TRY(std::string text, read_bounded(STDIN_FILENO, "<stdin>", what, max_bytes));
    return SourceFile{"<stdin>", std::move(text)};
  }
  MLC_TRY(RegularFile file, open_regular_file(path));
  if (static_cast<uint64_t>(file.st.st_size) > max_bytes)
    return too_large(path, what, static_cast<int64_t>(file.st.st_size), max_bytes);
  MLC_TRY(std::string text, read_bounded(file.fd.get(), path, what, max_bytes));
  return SourceFile{path, std::move(text)};
}

}  // namespace mlc
