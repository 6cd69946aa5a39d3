#include "compiler/gpu/nvrtc.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "runtime/cuda/cubin.h"

namespace mlc::gpu {
namespace {

// NVRTC's C API, declared here rather than by nvrtc.h (not needed to build):
// nvrtcResult is a C enum (an int), nvrtcProgram an opaque pointer.
using nvrtcResult = int;
using nvrtcProgram = struct NvrtcProgramOpaque*;
constexpr nvrtcResult kNvrtcSuccess = 0;
constexpr nvrtcResult kNvrtcErrorCompilation = 6;

constexpr char kNotFound[] = "NVRTC not found (libnvrtc.so.13; install the CUDA toolkit or set CUDA_HOME)";
// Lines of a failed compile's log that its Error quotes.
constexpr int kErrorLogLines = 12;

struct Nvrtc {
  std::string error;  // why it cannot be used; empty when loaded
  std::string version;
  std::string build;
  std::vector<int> archs;  // SM numbers

  const char* (*GetErrorString)(nvrtcResult) = nullptr;
  nvrtcResult (*Version)(int*, int*) = nullptr;
  nvrtcResult (*GetNumSupportedArchs)(int*) = nullptr;
  nvrtcResult (*GetSupportedArchs)(int*) = nullptr;
  nvrtcResult (*CreateProgram)(nvrtcProgram*, const char*, const char*, int, const char* const*,
                               const char* const*) = nullptr;
  nvrtcResult (*DestroyProgram)(nvrtcProgram*) = nullptr;
  nvrtcResult (*CompileProgram)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*GetProgramLogSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetProgramLog)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*GetCUBINSize)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*GetCUBIN)(nvrtcProgram, char*) = nullptr;
};

template <class F>
bool bind(void* lib, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f && missing.empty()) missing = name;
  return f != nullptr;
}

// Fills `n` from the library `lib` (loaded from `file`), or says why not.
void bind_all(void* lib, const std::string& file, Nvrtc& n) {
  std::string missing;
  bind(lib, "nvrtcGetErrorString", n.GetErrorString, missing);
  bind(lib, "nvrtcVersion", n.Version, missing);
  bind(lib, "nvrtcGetNumSupportedArchs", n.GetNumSupportedArchs, missing);
  bind(lib, "nvrtcGetSupportedArchs", n.GetSupportedArchs, missing);
  bind(lib, "nvrtcCreateProgram", n.CreateProgram, missing);
  bind(lib, "nvrtcDestroyProgram", n.DestroyProgram, missing);
  bind(lib, "nvrtcCompileProgram", n.CompileProgram, missing);
  bind(lib, "nvrtcGetProgramLogSize", n.GetProgramLogSize, missing);
  bind(lib, "nvrtcGetProgramLog", n.GetProgramLog, missing);
  bind(lib, "nvrtcGetCUBINSize", n.GetCUBINSize, missing);
  bind(lib, "nvrtcGetCUBIN", n.GetCUBIN, missing);
  if (!missing.empty()) {
    n.error = "NVRTC at " + file + " lacks " + missing + " (NVRTC 11.2 or later is needed)";
    return;
  }
  int major = 0, minor = 0, count = 0;
  if (n.Version(&major, &minor) != kNvrtcSuccess || n.GetNumSupportedArchs(&count) != kNvrtcSuccess || count <= 0) {
    n.error = "NVRTC at " + file + " does not answer nvrtcVersion or nvrtcGetNumSupportedArchs";
    return;
  }
  n.archs.resize(static_cast<size_t>(count));
  if (n.GetSupportedArchs(n.archs.data()) != kNvrtcSuccess) {
    n.error = "NVRTC at " + file + " does not answer nvrtcGetSupportedArchs";
    return;
  }
  std::sort(n.archs.begin(), n.archs.end());
  n.version = "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
  // The file the loader mapped, whichever name found it.
  std::string path = file;
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(n.Version), &info) && info.dli_fname) path = info.dli_fname;
  // NVRTC opens its builtins (libnvrtc-builtins.so.13.0) by soname when it
  // compiles, which fails where its directory is not on the loader's path
  // ($CUDA_HOME/lib64 alone): load them from beside it first, so that name
  // finds them. Where this fails, compiling says so.
  if (const size_t slash = path.rfind('/'); slash != std::string::npos)
    dlopen((path.substr(0, slash + 1) + "libnvrtc-builtins.so." + std::to_string(major) + "." + std::to_string(minor))
               .c_str(),
           RTLD_NOW | RTLD_LOCAL);
  struct stat st;
  const std::string size = stat(path.c_str(), &st) == 0 ? ", " + std::to_string(st.st_size) + " bytes" : "";
  n.build = n.version + " (" + path.substr(path.rfind('/') + 1) + size + ")";
}

Nvrtc load() {
  Nvrtc n;
  const char* const names[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  std::vector<std::string> candidates;
  if (const char* path = std::getenv("MLC_NVRTC"); path && *path) {
    candidates.push_back(path);
  } else {
    for (const char* name : names) candidates.push_back(name);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
      if (const char* dir = std::getenv(var); dir && *dir)
        for (const char* name : names) candidates.push_back(std::string(dir) + "/lib64/" + name);
    for (const char* name : names) candidates.push_back(std::string("/usr/local/cuda/lib64/") + name);
  }
  for (const std::string& file : candidates) {
    void* lib = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) continue;
    n = Nvrtc{};
    bind_all(lib, file, n);
    if (n.error.empty()) return n;  // never unloaded
    dlclose(lib);
  }
  if (const char* path = std::getenv("MLC_NVRTC"); path && *path && n.error.empty()) {
    const char* why = dlerror();
    n.error = std::string("NVRTC not found: MLC_NVRTC=") + path + " does not load" + (why ? std::string(": ") + why : "");
  }
  if (n.error.empty()) n.error = kNotFound;
  return n;
}

const Nvrtc& nvrtc() {
  static const Nvrtc n = load();
  return n;
}

Expected<const Nvrtc*> loaded() {
  const Nvrtc& n = nvrtc();
  if (!n.error.empty()) return make_error(n.error);
  return &n;
}

std::string error_name(const Nvrtc& n, nvrtcResult r) {
  const char* s = n.GetErrorString(r);
  return s ? s : "NVRTC error " + std::to_string(r);
}

// The first kErrorLogLines non-blank lines of `log` from its first error
// (the whole log where it names none), and how many follow.
std::string log_head(std::string_view log) {
  if (const size_t error = log.find("error"); error != std::string_view::npos)
    if (const size_t line = log.rfind('\n', error); line != std::string_view::npos) log.remove_prefix(line + 1);
  std::string out;
  int lines = 0, more = 0;
  while (!log.empty()) {
    const size_t end = log.find('\n');
    std::string_view line = log.substr(0, end);
    log.remove_prefix(end == std::string_view::npos ? log.size() : end + 1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (lines == kErrorLogLines) {
      ++more;
      continue;
    }
    out += (lines++ ? "\n" : "") + std::string(line);
  }
  if (more) out += "\n(" + std::to_string(more) + " more lines)";
  return out;
}

// Owns an nvrtcProgram.
struct Program {
  const Nvrtc& n;
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p) n.DestroyProgram(&p);
  }
};

Expected<std::string> program_bytes(const Nvrtc& n, nvrtcProgram p, nvrtcResult (*size_of)(nvrtcProgram, size_t*),
                                    nvrtcResult (*get)(nvrtcProgram, char*), const char* what) {
  size_t size = 0;
  if (nvrtcResult r = size_of(p, &size); r != kNvrtcSuccess)
    return make_error(std::string("NVRTC cannot give the ") + what + ": " + error_name(n, r));
  std::string bytes(size, '\0');
  if (size)
    if (nvrtcResult r = get(p, bytes.data()); r != kNvrtcSuccess)
      return make_error(std::string("NVRTC cannot give the ") + what + ": " + error_name(n, r));
  return bytes;
}

Status check_arch(const Nvrtc& n, const std::string& arch) {
  const std::optional<int> sm = rt::sm_version(arch);
  if (!sm) return make_error("not a CUDA architecture: '" + arch + "' (expected sm_XX, e.g. sm_90)");
  if (std::find(n.archs.begin(), n.archs.end(), *sm) != n.archs.end()) return {};
  std::string list;
  for (int a : n.archs) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(a);
  return make_error(n.version + " does not support " + arch + " (it supports " + list + ")");
}

}  // namespace

bool nvrtc_available() { return nvrtc().error.empty(); }

Status check_nvrtc_arch(const std::string& arch) {
  MLC_TRY(const Nvrtc* n, loaded());
  return check_arch(*n, arch);
}

Expected<std::string> nvrtc_version() {
  MLC_TRY(const Nvrtc* n, loaded());
  return n->version;
}

Expected<std::string> nvrtc_build() {
  MLC_TRY(const Nvrtc* n, loaded());
  return n->build;
}

Expected<std::vector<std::string>> nvrtc_supported_archs() {
  MLC_TRY(const Nvrtc* n, loaded());
  std::vector<std::string> archs;
  for (int a : n->archs) archs.push_back("sm_" + std::to_string(a));
  return archs;
}

std::vector<std::string> nvrtc_options(const std::string& arch) {
  return {"--gpu-architecture=" + arch, "-lineinfo", "--std=c++17", "--fmad=false", "--prec-div=true",
          "--prec-sqrt=true", "--ftz=false", "--ptxas-options=-v"};
}

Expected<CubinResult> compile_cubin(const std::string& source, const std::string& name, const std::string& arch) {
  MLC_TRY(const Nvrtc* n, loaded());
  MLC_CHECK_OK(check_arch(*n, arch));
  const std::string where = "kernel " + name + ": NVRTC: ";
  Program program{*n};
  const std::string file = name + ".cu";
  if (nvrtcResult r = n->CreateProgram(&program.p, source.c_str(), file.c_str(), 0, nullptr, nullptr);
      r != kNvrtcSuccess)
    return make_error(where + "cannot create the program: " + error_name(*n, r));
  const std::vector<std::string> options = nvrtc_options(arch);
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = n->CompileProgram(program.p, static_cast<int>(argv.size()), argv.data());
  CubinResult out;
  MLC_TRY(out.log, program_bytes(*n, program.p, n->GetProgramLogSize, n->GetProgramLog, "log"));
  // The log is NUL-terminated pieces: the front end's, ptxas's report, then
  // ptxas's errors ("ptxas error   : Entry function 'k' uses too much shared
  // data (0xc004 bytes, 0xc000 max)").
  std::erase(out.log, '\0');
  while (!out.log.empty() && out.log.back() == '\n') out.log.pop_back();

  if (compiled != kNvrtcSuccess) {
    const std::string head = log_head(out.log);
    return make_error(where + (head.empty() ? error_name(*n, compiled) : head));
  }
  MLC_TRY(out.cubin, program_bytes(*n, program.p, n->GetCUBINSize, n->GetCUBIN, "cubin"));
  MLC_TRY(out.usage, parse_ptxas_info(out.log, name));
  if (Status s = rt::check_cubin(out.cubin, name, arch); !s.ok())
    return make_error(where + "mlc internal error: its cubin: " + s.error().message);
  return out;
}

}  // namespace mlc::gpu
