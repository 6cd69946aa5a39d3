#include "compiler/kernel_cache.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "runtime/checksum.h"

namespace mlc {

namespace {

constexpr char kMagic[] = "mlc kernel cache 1\n";

void put_u64(std::string& s, uint64_t v) { s.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool take_u64(std::string_view& s, uint64_t& v) {
  if (s.size() < sizeof v) return false;
  std::memcpy(&v, s.data(), sizeof v);
  s.remove_prefix(sizeof v);
  return true;
}

}  // namespace

std::optional<KernelCache> KernelCache::from_environment() {
  if (const char* d = std::getenv("MLC_CACHE_DIR")) {
    if (!*d || std::string(d) == "off") return std::nullopt;
    return KernelCache(d);
  }
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return KernelCache(std::string(x) + "/mlc/kernels");
  if (const char* h = std::getenv("HOME"); h && *h) return KernelCache(std::string(h) + "/.cache/mlc/kernels");
  return std::nullopt;
}

std::string KernelCache::path(const std::string& key) const {
  return dir_ + "/" + rt::hex64(rt::fnv1a64(key)) + rt::hex64(rt::fnv1a64(key, 0x84222325cbf29ce4ull)) + ".o";
}

std::optional<std::string> KernelCache::get(const std::string& key) const {
  std::ifstream in(path(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (!in && !in.eof()) return std::nullopt;
  const std::string file = ss.str();
  std::string_view s = file;
  const size_t magic = sizeof kMagic - 1;
  if (s.substr(0, magic) != std::string_view(kMagic, magic)) return std::nullopt;
  s.remove_prefix(magic);
  uint64_t key_size, object_size, checksum;
  if (!take_u64(s, key_size) || key_size > s.size() || s.substr(0, key_size) != key) return std::nullopt;
  s.remove_prefix(key_size);
  if (!take_u64(s, object_size) || !take_u64(s, checksum) || object_size != s.size()) return std::nullopt;
  if (rt::fnv1a64(s) != checksum) return std::nullopt;
  return std::string(s);
}

void KernelCache::put(const std::string& key, const std::string& object) const {
  static std::atomic<uint64_t> counter{0};
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return;
  std::string file(kMagic);
  put_u64(file, key.size());
  file += key;
  put_u64(file, object.size());
  put_u64(file, rt::fnv1a64(object));
  file += object;
  const std::string final_path = path(key);
  const std::string tmp = final_path + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id())) + "." +
                          std::to_string(counter++);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(file.data(), static_cast<std::streamsize>(file.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::filesystem::rename(tmp, final_path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

}  // namespace mlc
