// Shared libraries opened at run time (dlopen), for the libraries mlc uses
// only where a machine has them: NVRTC (compiler/gpu/nvrtc.h), the NVIDIA
// driver (runtime/cuda/cuda_driver.h) and cuBLASLt (runtime/cuda/cublaslt.h).
// Nothing links them, so mlc builds and runs without them.
//
// Contracts:
//  - open_shared_library(names, search) tries, in order: each of `names`
//    through the dynamic loader's own search (LD_LIBRARY_PATH,
//    ld.so.cache); then each of search.dirs with every name in turn
//    ("DIR/NAME"). A name with a '/' is a file and is tried as given only.
//    Every library opens with RTLD_NOW | RTLD_LOCAL.
//  - The first that loads and that search.accept (where set) accepts is the
//    result. A library accept refuses is closed and the search goes on.
//  - Where none is accepted, the Error lists everything tried, in order,
//    with why each one that exists failed: "tried libnvrtc.so.13 (lacks
//    nvrtcGetCUBIN), libnvrtc.so.12, /usr/local/cuda/lib64/libnvrtc.so.13
//    (wrong ELF class: ELFCLASS32)". An absent file has no reason, except a
//    file the caller named by path, whose loader message is always given.
//    Callers prefix what they looked for and what to do.
//  - A SharedLibrary closes its library when destroyed (RAII), unless
//    keep_loaded() was called: the libraries mlc holds for the process's
//    life (every one above) are kept, so that nothing unloads them while
//    static destructors or other threads may still call into them.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"

namespace mlc::rt {

struct LibrarySearch;

class SharedLibrary {
 public:
  SharedLibrary() = default;
  SharedLibrary(SharedLibrary&& other) noexcept;
  SharedLibrary& operator=(SharedLibrary&& other) noexcept;
  SharedLibrary(const SharedLibrary&) = delete;
  SharedLibrary& operator=(const SharedLibrary&) = delete;
  ~SharedLibrary();

  bool is_open() const { return handle_ != nullptr; }
  // What dlopen was given: "libnvrtc.so.13" or "/opt/cuda/lib64/libnvrtc.so.13".
  const std::string& name() const { return name_; }
  // The file the loader mapped, whichever name found it (name() where the
  // loader does not say).
  std::string file() const;

  // The address of `symbol`, null where the library does not export it.
  void* address(const char* symbol) const;
  // `symbol` as a function pointer of type F (null where absent).
  template <class F>
  F sym(const char* symbol) const {
    return reinterpret_cast<F>(address(symbol));
  }
  // fn = sym<F>(symbol); whether it was found.
  template <class F>
  bool bind(F& fn, const char* symbol) const {
    fn = sym<F>(symbol);
    return fn != nullptr;
  }

  // Leaves the library loaded for the rest of the process: the destructor
  // no longer closes it.
  void keep_loaded() { keep_ = true; }

 private:
  friend Expected<SharedLibrary> open_shared_library(std::span<const std::string_view>, const LibrarySearch&);
  SharedLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
  void* handle_ = nullptr;
  std::string name_;
  bool keep_ = false;
};

struct LibrarySearch {
  // Tried after the loader's search, each with every name ("DIR/NAME").
  std::vector<std::string> dirs;
  // Where set, a library that loads is used only if this succeeds; its
  // Error (which need not repeat the library's name) is listed with it.
  std::function<Status(const SharedLibrary&)> accept;
};

// Where a CUDA toolkit's libraries are when the loader does not know them:
// $CUDA_HOME/lib64 and $CUDA_PATH/lib64 (those set and not empty), then the
// toolkit's standard prefix, /usr/local/cuda/lib64.
std::vector<std::string> cuda_toolkit_lib_dirs();

Expected<SharedLibrary> open_shared_library(std::span<const std::string_view> names, const LibrarySearch& search);

}  // namespace mlc::rt
