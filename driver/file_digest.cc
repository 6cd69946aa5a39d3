#include "driver/file_digest.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

#include "compiler/kernel_cache.h"
#include "ir/source_file.h"
#include "runtime/checksum.h"

namespace mlc {

Expected<std::string> file_digest(const std::string& path) {
  MLC_TRY(RegularFile file, open_regular_file(path));
  const struct stat& st = file.st;
  const std::string key = "file digest 1|" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
                          std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                          std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
                          std::to_string(st.st_ctim.tv_nsec);
  static const std::optional<KernelCache> cache = KernelCache::from_environment();
  if (cache)
    if (std::optional<std::string> hit = cache->get(key); hit && hit->size() == 16) return *hit;
  uint64_t h = rt::kFnvOffsetBasis;
  std::vector<char> buf(size_t{1} << 20);
  while (true) {
    ssize_t n = ::read(file.fd.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return make_error(path + ": error: cannot read: " + std::strerror(errno));
    if (n == 0) break;
    h = rt::fnv1a64(std::string_view(buf.data(), static_cast<size_t>(n)), h);
  }
  const std::string digest = rt::hex64(h);
  if (cache) cache->put(key, digest);
  return digest;
}

}  // namespace mlc
