#include "runtime/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <system_error>

namespace mlc::rt {

namespace {

Error file_error(const std::string& path, const std::string& message) {
  return make_error(path + ": error: " + message);
}

std::string errno_text(int err) { return std::generic_category().message(err); }

class FdCloser {
 public:
  explicit FdCloser(int fd) : fd_(fd) {}
  ~FdCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FdCloser(const FdCloser&) = delete;
  FdCloser& operator=(const FdCloser&) = delete;
  // Closes now and returns 0 or the errno of close().
  int close_now() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }

 private:
  int fd_;
};

// Removes a file when destroyed, unless released.
class FileRemover {
 public:
  explicit FileRemover(std::string path) : path_(std::move(path)) {}
  ~FileRemover() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  FileRemover(const FileRemover&) = delete;
  FileRemover& operator=(const FileRemover&) = delete;
  void release() { path_.clear(); }

 private:
  std::string path_;
};

// Returns 0 or an errno.
int write_all(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t w = ::write(fd, p, size);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return errno;
    p += w;
    size -= static_cast<size_t>(w);
  }
  return 0;
}

// Returns 0 or an errno. Filesystems that cannot sync directories (EINVAL) count as success.
int sync_parent_directory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  FdCloser closer(fd);
  if (::fsync(fd) != 0 && errno != EINVAL) return errno;
  return 0;
}

}  // namespace

Expected<std::string> read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return file_error(path, "cannot open: " + errno_text(errno));
  FdCloser closer(fd);
  struct stat st;
  if (::fstat(fd, &st) != 0) return file_error(path, "cannot stat: " + errno_text(errno));
  if (!S_ISREG(st.st_mode)) return file_error(path, "cannot read: not a regular file");
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t r = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return file_error(path, "cannot read: " + errno_text(errno));
    if (r == 0) break;  // the file shrank; parsing reports the truncation
    got += static_cast<size_t>(r);
  }
  bytes.resize(got);
  return bytes;
}


Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& chunks) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return file_error(path, "cannot create '" + tmp + "': " + errno_text(errno));
  FileRemover remover(tmp);
  FdCloser closer(fd);
  int err = 0;
  for (size_t i = 0; i < chunks.size() && err == 0; ++i) err = write_all(fd, chunks[i].data(), chunks[i].size());
  if (err) return file_error(path, "cannot write '" + tmp + "': " + errno_text(err));
  if (::fsync(fd) != 0) return file_error(path, "cannot sync '" + tmp + "': " + errno_text(errno));
  if ((err = closer.close_now())) return file_error(path, "cannot close '" + tmp + "': " + errno_text(err));
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return file_error(path, "cannot rename '" + tmp + "' over it: " + errno_text(errno));
  remover.release();
  if ((err = sync_parent_directory(path)))
    return file_error(path, "written, but cannot sync its directory: " + errno_text(err));
  return {};
}

}  // namespace mlc::rt
