#include "compiler/kernel_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "ir/source_file.h"
#include "runtime/checksum.h"
#include "runtime/file_io.h"

namespace mlc {

namespace {

constexpr char kMagic[] = "mlc kernel cache 2\n";

void put_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool take_u64(std::string_view& s, uint64_t& v) {
  if (s.size() < sizeof v) return false;
  std::memcpy(&v, s.data(), sizeof v);
  s.remove_prefix(sizeof v);
  return true;
}

std::string octal_mode(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

// Only this user may have written it.
bool private_to_this_user(const struct stat& st) {
  return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

// mkdir -p with mode 0700 for every directory it creates.
Status create_private_directories(const std::string& dir) {
  std::filesystem::path path(dir);
  std::filesystem::path prefix;
  for (const auto& part : path) {
    prefix /= part;
    if (::mkdir(prefix.c_str(), 0700) != 0 && errno != EEXIST)
      return make_error("kernel cache '" + dir + "': cannot create '" + prefix.string() + "': " + std::strerror(errno));
  }
  return {};
}

}  // namespace

Expected<KernelCache> KernelCache::open(std::string dir) {
  MLC_CHECK_OK(create_private_directories(dir));
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return make_error("kernel cache '" + dir + "': cannot stat: " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return make_error("kernel cache '" + dir + "' is not a directory");
  if (st.st_uid != ::geteuid())
    return make_error("kernel cache '" + dir + "' is owned by user " + std::to_string(st.st_uid) +
                      ", not by this user (" + std::to_string(::geteuid()) +
                      "): its code would run as this user; set MLC_CACHE_DIR to a directory of your own");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    return make_error("kernel cache '" + dir + "' is writable by " +
                      ((st.st_mode & S_IWOTH) ? "others" : "its group") + " (mode " + octal_mode(st.st_mode) +
                      "): anyone who can write it can run code as this user; make it private with `chmod 700 " +
                      dir + "`");
  return KernelCache(std::move(dir));
}

std::optional<KernelCache> KernelCache::from_environment() {
  std::string dir;
  if (const char* d = std::getenv("MLC_CACHE_DIR")) {
    if (!*d || std::string(d) == "off") return std::nullopt;
    dir = d;
  } else if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) {
    dir = std::string(x) + "/mlc/kernels";
  } else if (const char* h = std::getenv("HOME"); h && *h) {
    dir = std::string(h) + "/.cache/mlc/kernels";
  } else {
    return std::nullopt;
  }
  Expected<KernelCache> cache = open(dir);
  if (cache) return std::move(*cache);
  static std::once_flag warned;  // once per process, however many callers ask
  std::call_once(warned, [&] {
    std::fprintf(stderr, "warning: %s; compiling without the kernel cache\n", cache.error().message.c_str());
  });
  return std::nullopt;
}

std::string KernelCache::path(const std::string& key) const {
  return dir_ + "/" + rt::hex64(rt::fnv1a64(key)) + rt::hex64(rt::fnv1a64(key, 0x84222325cbf29ce4ull)) + ".o";
}

std::optional<std::string> KernelCache::get(const std::string& key) const {
  const std::string file_path = path(key);
  Expected<RegularFile> file = open_regular_file(file_path, /*follow_links=*/false);
  if (!file || !private_to_this_user(file->st) || file->st.st_size > kMaxEntryBytes) return std::nullopt;
  Expected<std::string> bytes = rt::read_open_file(*file, file_path);
  if (!bytes || bytes->size() > static_cast<size_t>(kMaxEntryBytes)) return std::nullopt;
  std::string_view s = *bytes;
  const size_t magic = sizeof kMagic - 1;
  if (s.substr(0, magic) != std::string_view(kMagic, magic)) return std::nullopt;
  s.remove_prefix(magic);
  uint64_t key_size, object_size, checksum;
  if (!take_u64(s, key_size) || key_size > s.size() || s.substr(0, key_size) != key) return std::nullopt;
  s.remove_prefix(key_size);
  if (!take_u64(s, object_size) || !take_u64(s, checksum) || object_size != s.size()) return std::nullopt;
  if (rt::fnv1a64(s, rt::fnv1a64(key)) != checksum) return std::nullopt;
  return std::string(s);
}

void KernelCache::put(const std::string& key, const std::string& object) const {
  if (!create_private_directories(dir_)) return;
  std::string file(kMagic);
  put_u64(file, key.size());
  file += key;
  put_u64(file, object.size());
  put_u64(file, rt::fnv1a64(object, rt::fnv1a64(key)));
  file += object;
  // Private (0600) whatever the umask: get trusts no other mode. Not synced:
  // a lost entry costs a compile.
  (void)rt::write_file_atomically(path(key), {file}, {.mode = 0600, .sync = false});
}

}  // namespace mlc
