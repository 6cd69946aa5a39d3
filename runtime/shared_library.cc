#include "runtime/shared_library.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <utility>

namespace mlc::rt {

namespace {

struct Candidate {
  std::string name;      // what dlopen is given
  bool named_file;       // the caller named this file by path
};

std::vector<Candidate> candidates(std::span<const std::string_view> names, const std::vector<std::string>& dirs) {
  std::vector<Candidate> out;
  for (std::string_view name : names) out.push_back({std::string(name), name.find('/') != std::string_view::npos});
  for (const std::string& dir : dirs)
    for (std::string_view name : names)
      if (name.find('/') == std::string_view::npos)
        out.push_back({dir + (dir.empty() || dir.back() == '/' ? "" : "/") + std::string(name), false});
  return out;
}

// Why dlopen failed for `name`, without the name in front; empty where the
// file is simply absent (glibc's "NAME: cannot open shared object file: No
// such file or directory") and the caller did not name it.
std::string failure_reason(const Candidate& c, const char* dl_error) {
  std::string why = dl_error ? dl_error : "dlopen failed";
  if (why.rfind(c.name + ": ", 0) == 0) why.erase(0, c.name.size() + 2);
  if (!c.named_file && why == "cannot open shared object file: No such file or directory") return {};
  return why;
}

}  // namespace

SharedLibrary::SharedLibrary(SharedLibrary&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), name_(std::move(other.name_)), keep_(other.keep_) {}

SharedLibrary& SharedLibrary::operator=(SharedLibrary&& other) noexcept {
  if (this != &other) {
    if (handle_ && !keep_) dlclose(handle_);
    handle_ = std::exchange(other.handle_, nullptr);
    name_ = std::move(other.name_);
    keep_ = other.keep_;
  }
  return *this;
}

SharedLibrary::~SharedLibrary() {
  if (handle_ && !keep_) dlclose(handle_);
}

std::string SharedLibrary::file() const {
  link_map* map = nullptr;
  if (handle_ && dlinfo(handle_, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
    return map->l_name;
  return name_;
}

void* SharedLibrary::address(const char* symbol) const { return handle_ ? dlsym(handle_, symbol) : nullptr; }

std::vector<std::string> cuda_toolkit_lib_dirs() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64");
  dirs.push_back("/usr/local/cuda/lib64");
  return dirs;
}

Expected<SharedLibrary> open_shared_library(std::span<const std::string_view> names, const LibrarySearch& search) {
  std::string tried;
  for (const Candidate& c : candidates(names, search.dirs)) {
    std::string why;
    if (void* handle = dlopen(c.name.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      SharedLibrary lib(handle, c.name);
      if (!search.accept) return lib;
      Status accepted = search.accept(lib);
      if (accepted.ok()) return lib;
      why = accepted.error().message;  // `lib` closes here
    } else {
      why = failure_reason(c, dlerror());
    }
    tried += (tried.empty() ? "tried " : ", ") + c.name + (why.empty() ? "" : " (" + why + ")");
  }
  if (tried.empty()) return make_error("no library names to try");
  return make_error(tried);
}

}  // namespace mlc::rt
