#include "compiler/gpu/nvrtc.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <span>

#include "runtime/cuda/cubin.h"
#include "runtime/shared_library.h"

namespace mlc::gpu {
namespace {

// NVRTC's C API, declared here rather than by nvrtc.h (not needed to build):
// nvrtcResult is a C enum (an int), nvrtcProgram an opaque pointer.
using nvrtcResult = int;
using nvrtcProgram = struct NvrtcProgramOpaque*;
constexpr nvrtcResult kNvrtcSuccess = 0;
constexpr nvrtcResult kNvrtcErrorCompilation = 6;

constexpr char kInstallHint[] = "install the CUDA toolkit or set CUDA_HOME";
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

// Fills `n` from `lib`, or says why it cannot be used.
Status bind_all(const rt::SharedLibrary& lib, Nvrtc& n) {
  const char* missing = nullptr;
  auto bind = [&](auto& fn, const char* symbol) {
    if (!lib.bind(fn, symbol) && !missing) missing = symbol;
  };
  bind(n.GetErrorString, "nvrtcGetErrorString");
  bind(n.Version, "nvrtcVersion");
  bind(n.GetNumSupportedArchs, "nvrtcGetNumSupportedArchs");
  bind(n.GetSupportedArchs, "nvrtcGetSupportedArchs");
  bind(n.CreateProgram, "nvrtcCreateProgram");
  bind(n.DestroyProgram, "nvrtcDestroyProgram");
  bind(n.CompileProgram, "nvrtcCompileProgram");
  bind(n.GetProgramLogSize, "nvrtcGetProgramLogSize");
  bind(n.GetProgramLog, "nvrtcGetProgramLog");
  bind(n.GetCUBINSize, "nvrtcGetCUBINSize");
  bind(n.GetCUBIN, "nvrtcGetCUBIN");
  if (missing) return make_error(std::string("lacks ") + missing + ": NVRTC 11.2 or later is needed");
  int major = 0, minor = 0, count = 0;
  if (n.Version(&major, &minor) != kNvrtcSuccess || n.GetNumSupportedArchs(&count) != kNvrtcSuccess || count <= 0)
    return make_error("does not answer nvrtcVersion or nvrtcGetNumSupportedArchs");
  n.archs.resize(static_cast<size_t>(count));
  if (n.GetSupportedArchs(n.archs.data()) != kNvrtcSuccess) return make_error("does not answer nvrtcGetSupportedArchs");
  std::sort(n.archs.begin(), n.archs.end());
  n.version = "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
  return {};
}

// NVRTC opens its builtins (libnvrtc-builtins.so.13.0) by soname when it
// compiles, which fails where its directory is not on the loader's path
// ($CUDA_HOME/lib64 alone): load them from beside it first, so that name
// finds them. Where this fails, compiling says so.
void load_builtins_beside(const std::string& path, const std::string& version /* "13.0" */) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return;
  const std::string builtins = path.substr(0, slash + 1) + "libnvrtc-builtins.so." + version;
  const std::string_view names[] = {builtins};
  if (auto lib = rt::open_shared_library(names, {}); lib.ok()) lib->keep_loaded();
}

Nvrtc load() {
  static constexpr std::string_view kNames[] = {"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"};
  const char* override_path = std::getenv("MLC_NVRTC");
  const bool overridden = override_path && *override_path;
  const std::string_view override_names[] = {overridden ? override_path : ""};
  Nvrtc n;
  rt::LibrarySearch search;
  if (!overridden) search.dirs = rt::cuda_toolkit_lib_dirs();
  search.accept = [&n](const rt::SharedLibrary& lib) {
    n = Nvrtc{};
    return bind_all(lib, n);
  };
  const std::span<const std::string_view> names =
      overridden ? std::span<const std::string_view>(override_names) : std::span<const std::string_view>(kNames);
  auto lib = rt::open_shared_library(names, search);
  if (!lib.ok()) {
    Nvrtc none;
    none.error = std::string("NVRTC not found (") +
                 (overridden ? std::string("MLC_NVRTC=") + override_path : kInstallHint) +
                 "): " + lib.error().message;
    return none;
  }
  lib->keep_loaded();  // never unloaded
  // The file the loader mapped, whichever name found it.
  const std::string path = lib->file();
  load_builtins_beside(path, n.version.substr(n.version.find(' ') + 1));
  struct stat st;
  const std::string size = stat(path.c_str(), &st) == 0 ? ", " + std::to_string(st.st_size) + " bytes" : "";
  n.build = n.version + " (" + path.substr(path.rfind('/') + 1) + size + ")";
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

std::string nvrtc_availability() {
  Expected<std::string> version = nvrtc_version();
  return version.ok() ? *version + " for compiling: found" : "NVRTC for compiling: not found";
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
  // The line table's file name. An absolute label that names no file, so
  // that ptxas records neither the compiling process's working directory
  // (where a relative name would resolve) nor a file's mtime: a kernel's
  // cubin is the same bytes wherever and whenever it is compiled.
  const std::string file = std::string(kCubinSourceDirectory) + "/" + name + ".cu";
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
  // Line numbers are the text's: "NAME.cu(3): error: ...", without the label's directory.
  const std::string directory = std::string(kCubinSourceDirectory) + "/";
  for (size_t at = out.log.find(directory); at != std::string::npos; at = out.log.find(directory, at))
    out.log.erase(at, directory.size());
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
