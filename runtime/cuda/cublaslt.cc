#include "runtime/cuda/cublaslt.h"

#include <dlfcn.h>

#include <cstdlib>
#include <vector>

namespace mlc::rt::cuda {

namespace {

template <class F>
bool find_symbol(void* lib, const char* symbol, F& fn) {
  fn = reinterpret_cast<F>(dlsym(lib, symbol));
  return fn != nullptr;
}

// Where a toolkit's libraries are when the dynamic loader does not know them:
// $CUDA_HOME/lib64, $CUDA_PATH/lib64, then the toolkit's conventional prefix.
std::vector<std::string> toolkit_lib_dirs() {
  std::vector<std::string> dirs;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) dirs.push_back(std::string(v) + "/lib64/");
  dirs.push_back("/usr/local/cuda/lib64/");
  return dirs;
}

}  // namespace

std::string CublasLt::error_text(std::string_view what, cublasStatus_t s) const {
  const char* name = cublasLtGetStatusName ? cublasLtGetStatusName(s) : nullptr;
  const char* text = cublasLtGetStatusString ? cublasLtGetStatusString(s) : nullptr;
  std::string out = std::string(what) + " failed: ";
  if (!name) return out + "cuBLAS status " + std::to_string(s);
  out += name;
  if (text) out += std::string(" (") + text + ")";
  return out;
}

Expected<std::unique_ptr<CublasLt>> load_cublaslt(std::initializer_list<const char*> names) {
  void* lib = nullptr;
  std::string opened;
  for (const char* name : names)
    if ((lib = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
      opened = name;
      break;
    }
  for (const std::string& dir : lib ? std::vector<std::string>{} : toolkit_lib_dirs())
    for (const char* name : names)
      if (!lib && (lib = dlopen((dir + name).c_str(), RTLD_NOW | RTLD_LOCAL))) opened = name;
  if (!lib) {
    std::string list;
    for (const char* name : names) list += (list.empty() ? "" : " or ") + std::string(name);
    return make_error("cuda: cuBLASLt not found: " + list +
                      " (install the CUDA toolkit's cuBLAS, or add its lib64 to LD_LIBRARY_PATH)");
  }
  auto lt = std::make_unique<CublasLt>();
  lt->library = opened;
#define MLC_LT_FIND(member) \
  if (!find_symbol(lib, #member, lt->member)) return make_error("cuda: " + opened + " lacks " #member)
  MLC_LT_FIND(cublasLtCreate);
  MLC_LT_FIND(cublasLtDestroy);
  MLC_LT_FIND(cublasLtGetStatusName);
  MLC_LT_FIND(cublasLtGetStatusString);
  MLC_LT_FIND(cublasLtMatmulDescCreate);
  MLC_LT_FIND(cublasLtMatmulDescDestroy);
  MLC_LT_FIND(cublasLtMatmulDescSetAttribute);
  MLC_LT_FIND(cublasLtMatrixLayoutCreate);
  MLC_LT_FIND(cublasLtMatrixLayoutDestroy);
  MLC_LT_FIND(cublasLtMatrixLayoutSetAttribute);
  MLC_LT_FIND(cublasLtMatmulPreferenceCreate);
  MLC_LT_FIND(cublasLtMatmulPreferenceDestroy);
  MLC_LT_FIND(cublasLtMatmulPreferenceSetAttribute);
  MLC_LT_FIND(cublasLtMatmulAlgoGetHeuristic);
  MLC_LT_FIND(cublasLtMatmul);
  MLC_LT_FIND(cublasLtGetVersion);
#undef MLC_LT_FIND
  return lt;
}

Expected<const CublasLt*> cublaslt() {
  static const Expected<std::unique_ptr<CublasLt>> loaded = load_cublaslt({"libcublasLt.so.13", "libcublasLt.so.12"});
  if (!loaded.ok()) return loaded.error();
  return static_cast<const CublasLt*>(loaded.value().get());
}

}  // namespace mlc::rt::cuda
