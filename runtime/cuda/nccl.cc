#include "runtime/cuda/nccl.h"

#include "runtime/shared_library.h"

#include <cstdlib>
#include <iterator>
#include <vector>

namespace mlc::rt::cuda {


std::string nccl_result_name(ncclResult_t r) {
  static const char* const names[] = {"ncclSuccess",         "ncclUnhandledCudaError", "ncclSystemError",
                                      "ncclInternalError",   "ncclInvalidArgument",    "ncclInvalidUsage",
                                      "ncclRemoteError",     "ncclInProgress"};
  if (r >= 0 && r < static_cast<int>(std::size(names))) return names[r];
  return "ncclResult_t " + std::to_string(r);
}

std::string Nccl::error_text(std::string_view what, ncclResult_t r, ncclComm_t comm) const {
  std::string s = std::string(what) + " failed: " + nccl_result_name(r);
  if (const char* text = ncclGetErrorString ? ncclGetErrorString(r) : nullptr; text && *text)
    s += std::string(" (") + text + ")";
  if (const char* last = ncclGetLastError ? ncclGetLastError(comm) : nullptr; last && *last)
    s += std::string("; NCCL says: ") + last;
  return s;
}

std::string nccl_version_name(int version) {
  // NCCL_VERSION(X, Y, Z): X * 1000 + Y * 100 + Z up to 2.8, X * 10000 + Y * 100 + Z after.
  const bool old = version < 10000;
  const int major = old ? version / 1000 : version / 10000;
  const int minor = old ? version % 1000 / 100 : version % 10000 / 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(version % 100);
}

Status check_nccl_version(int version) {
  if (version >= kMinNcclVersion) return {};
  return make_error("cuda: NCCL " + nccl_version_name(version) + " (" + std::to_string(version) +
                    ") is too old: mlc needs NCCL " + nccl_version_name(kMinNcclVersion) + " (" +
                    std::to_string(kMinNcclVersion) + ") or newer");
}

std::optional<ncclDataType_t> nccl_reduce_type(DType t) {
  switch (t) {
    case DType::f32: return kNcclFloat32;
    case DType::f64: return kNcclFloat64;
    case DType::bf16: return kNcclBfloat16;
    case DType::f16: return kNcclFloat16;
    case DType::i32: return kNcclInt32;
    case DType::i64: return kNcclInt64;
    case DType::boolean: break;
  }
  return std::nullopt;
}

Expected<std::unique_ptr<Nccl>> load_nccl(const char* library) {
  // The loader's search, then the toolkit's lib64 (runtime/shared_library.h).
  // Never closed: NCCL stays loaded for the process's life.
  const std::string_view names[] = {library};
  Expected<SharedLibrary> opened = open_shared_library(names, LibrarySearch{cuda_toolkit_lib_dirs(), nullptr});
  if (!opened.ok())
    return make_error(std::string("cuda: collectives need NCCL: ") + library +
                      " not found (install NCCL, or add its lib directory to LD_LIBRARY_PATH)");
  SharedLibrary lib = std::move(opened).value();
  lib.keep_loaded();
  auto n = std::make_unique<Nccl>();
  n->library = library;
  auto lacks = [&](const char* symbol) { return make_error("cuda: " + n->library + " lacks " + symbol); };
  // The version first: an old NCCL is named as such, not by what it lacks.
  if (!lib.bind(n->ncclGetVersion, "ncclGetVersion")) return lacks("ncclGetVersion");
  if (!lib.bind(n->ncclGetErrorString, "ncclGetErrorString")) return lacks("ncclGetErrorString");
  int version = 0;
  MLC_CHECK_OK(n->check(n->ncclGetVersion(&version), "cuda: ncclGetVersion"));
  n->version = version;
  MLC_CHECK_OK(check_nccl_version(version));
#define MLC_NCCL_FIND(member) \
  if (!lib.bind(n->member, #member)) return lacks(#member)
  MLC_NCCL_FIND(ncclGetUniqueId);
  MLC_NCCL_FIND(ncclCommInitRankConfig);
  MLC_NCCL_FIND(ncclCommDestroy);
  MLC_NCCL_FIND(ncclCommAbort);
  MLC_NCCL_FIND(ncclCommGetAsyncError);
  MLC_NCCL_FIND(ncclAllReduce);
  MLC_NCCL_FIND(ncclAllGather);
  MLC_NCCL_FIND(ncclReduceScatter);
  MLC_NCCL_FIND(ncclBroadcast);
  MLC_NCCL_FIND(ncclSend);
  MLC_NCCL_FIND(ncclRecv);
  MLC_NCCL_FIND(ncclGroupStart);
  MLC_NCCL_FIND(ncclGroupEnd);
  MLC_NCCL_FIND(ncclGetLastError);
#undef MLC_NCCL_FIND
  return n;
}

Expected<const Nccl*> nccl() {
  // Loaded once; a failure is kept and given to every caller.
  static const Expected<std::unique_ptr<Nccl>> loaded = load_nccl("libnccl.so.2");
  if (!loaded.ok()) return loaded.error();
  return static_cast<const Nccl*>(loaded.value().get());
}

}  // namespace mlc::rt::cuda
