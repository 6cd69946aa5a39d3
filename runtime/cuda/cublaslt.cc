#include "runtime/cuda/cublaslt.h"

#include "runtime/shared_library.h"

namespace mlc::rt::cuda {

std::string CublasLt::error_text(std::string_view what, cublasStatus_t s) const {
  const char* name = cublasLtGetStatusName ? cublasLtGetStatusName(s) : nullptr;
  const char* text = cublasLtGetStatusString ? cublasLtGetStatusString(s) : nullptr;
  std::string out = std::string(what) + " failed: ";
  if (!name) return out + "cuBLAS status " + std::to_string(s);
  out += name;
  if (text) out += std::string(" (") + text + ")";
  return out;
}

Expected<std::unique_ptr<CublasLt>> load_cublaslt(std::span<const std::string_view> names) {
  LibrarySearch search;
  search.dirs = cuda_toolkit_lib_dirs();
  Expected<SharedLibrary> lib = open_shared_library(names, search);
  if (!lib.ok())
    return make_error("cuda: cuBLASLt not found (install the CUDA toolkit's cuBLAS, or add its lib64 to "
                      "LD_LIBRARY_PATH): " +
                      lib.error().message);
  // The name it was opened by, without the directory that found it.
  const std::string opened = lib->name().substr(lib->name().rfind('/') + 1);
  auto lt = std::make_unique<CublasLt>();
  lt->library = opened;
#define MLC_LT_FIND(member) \
  if (!lib->bind(lt->member, #member)) return make_error("cuda: " + opened + " lacks " #member)
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
  lib->keep_loaded();  // held for the process's life
  return lt;
}

Expected<const CublasLt*> cublaslt() {
  static constexpr std::string_view kNames[] = {"libcublasLt.so.13", "libcublasLt.so.12"};
  static const Expected<std::unique_ptr<CublasLt>> loaded = load_cublaslt(kNames);
  if (!loaded.ok()) return loaded.error();
  return static_cast<const CublasLt*>(loaded.value().get());
}

}  // namespace mlc::rt::cuda
