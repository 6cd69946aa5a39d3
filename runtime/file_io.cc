#include "runtime/file_io.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <filesystem>
#include <system_error>

namespace mlc::rt {

namespace {

Error file_error(const std::string& path, const std::string& message) {
  return make_error(path + ": error: " + message);
}

std::string errno_text(int err) { return std::generic_category().message(err); }

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
  FileDescriptor fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return errno;
  if (::fsync(fd.get()) != 0 && errno != EINVAL) return errno;
  return 0;
}

// 12 hex digits from the kernel's random source (getrandom never fails for
// 6 bytes once the pool is initialized; it blocks until then).
std::string random_suffix() {
  unsigned char bytes[6] = {};
  size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = ::getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // not reached on Linux >= 3.17; the name is then still unique by O_EXCL
    got += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (unsigned char b : bytes) {
    s += kHex[b >> 4];
    s += kHex[b & 15];
  }
  return s;
}

bool all_of(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s)
    if (!pred(c)) return false;
  return true;
}

}  // namespace

Expected<std::string> read_file(const std::string& path) {
  MLC_TRY(RegularFile file, open_regular_file(path));
  return read_open_file(file, path);
}

Expected<std::string> read_open_file(RegularFile& file, const std::string& path) {
  std::string bytes(static_cast<size_t>(file.st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t r = ::read(file.fd.get(), bytes.data() + got, bytes.size() - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return file_error(path, "cannot read: " + errno_text(errno));
    if (r == 0) break;  // the file shrank; parsing reports the truncation
    got += static_cast<size_t>(r);
  }
  bytes.resize(got);
  return bytes;
}

Expected<TempFile> create_temp_file(const std::string& path, mode_t mode) {
  const std::string prefix = path + ".tmp." + std::to_string(::getpid()) + ".";
  int err = 0;
  for (int attempt = 0; attempt < 64; ++attempt) {
    TempFile t;
    t.path = prefix + random_suffix();
    t.fd = FileDescriptor(::open(t.path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode));
    if (t.fd.get() >= 0) return t;
    err = errno;
    if (err != EEXIST) break;  // EEXIST: the name is taken (by a file or a planted link); draw another
  }
  return file_error(path, "cannot create a temporary file '" + prefix + "*' next to it: " + errno_text(err));
}

Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& chunks,
                             const WriteOptions& options) {
  MLC_TRY(TempFile tmp, create_temp_file(path, options.mode));
  FileRemover remover(tmp.path);
  int err = 0;
  for (size_t i = 0; i < chunks.size() && err == 0; ++i) err = write_all(tmp.fd.get(), chunks[i].data(), chunks[i].size());
  if (err) return file_error(path, "cannot write '" + tmp.path + "': " + errno_text(err));
  if (options.sync && ::fsync(tmp.fd.get()) != 0) return file_error(path, "cannot sync '" + tmp.path + "': " + errno_text(errno));
  if ((err = tmp.fd.close())) return file_error(path, "cannot close '" + tmp.path + "': " + errno_text(err));
  if (::rename(tmp.path.c_str(), path.c_str()) != 0)
    return file_error(path, "cannot rename '" + tmp.path + "' over it: " + errno_text(errno));
  remover.release();
  if (options.sync && (err = sync_parent_directory(path)))
    return file_error(path, "written, but cannot sync its directory: " + errno_text(err));
  return {};
}

std::optional<TempFileName> temp_file_target(std::string_view name) {
  const size_t at = name.rfind(".tmp.");
  if (at == std::string_view::npos || at == 0) return std::nullopt;
  std::string_view rest = name.substr(at + 5);
  const size_t dot = rest.find('.');
  const std::string_view pid_text = rest.substr(0, dot);
  if (dot != std::string_view::npos) {
    const std::string_view random = rest.substr(dot + 1);
    if (random.size() != 12 || !all_of(random, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
      return std::nullopt;
  }
  if (pid_text.size() > 9 || !all_of(pid_text, [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
  TempFileName t;
  t.target = std::string(name.substr(0, at));
  std::from_chars(pid_text.data(), pid_text.data() + pid_text.size(), t.pid);
  if (t.pid <= 0) return std::nullopt;
  return t;
}

}  // namespace mlc::rt
