// NCCL (libnccl.so.2), opened at run time with dlopen, as the driver and
// cuBLASLt are (runtime/cuda/cuda_driver.h, cublaslt.h): nothing links it,
// and nothing needs NCCL at build time. The few types, constants and entry
// points the "cuda" target's collectives use are declared here as nccl.h
// (NCCL 2.28) declares them; tests/runtime/nccl_constants_test.cc checks
// every value and layout against nccl.h where the build finds it.
//
// Contracts:
//  - nccl() is the process's library, opened once (thread-safe) and never
//    closed: libnccl.so.2 looked up by the dynamic loader (LD_LIBRARY_PATH,
//    ld.so.cache), then in $CUDA_HOME/lib64, $CUDA_PATH/lib64 and the
//    toolkit's conventional prefix; every entry point found; its version
//    (ncclGetVersion) at least kMinNcclVersion. Errors, each the same on
//    every call:
//      "cuda: collectives need NCCL: libnccl.so.2 not found (install NCCL,
//       or add its lib directory to LD_LIBRARY_PATH)"
//      "cuda: libnccl.so.2 lacks ncclCommInitRankConfig"
//      "cuda: NCCL 2.12.3 (21203) is too old: mlc needs NCCL 2.18.0 (21800)
//       or newer"
//  - Nccl::error_text(what, r, comm) is "<what> failed: ncclX (<NCCL's
//    description>)", then "; NCCL says: <ncclGetLastError(comm)>" where NCCL
//    has more to say.
//  - Communicators are made non-blocking (NcclConfig, blocking = 0): a call
//    may return ncclInProgress, and the caller polls ncclCommGetAsyncError
//    until the communicator leaves that state (runtime/cuda/nccl_world.h
//    does, with the World's timeout), so that no NCCL call can block this
//    thread past a deadline.
#pragma once

#include <climits>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ir/dtype.h"
#include "ir/expected.h"
#include "runtime/cuda/cuda_driver.h"

namespace mlc::rt::cuda {

// nccl.h's types. ncclResult_t, ncclRedOp_t and ncclDataType_t are C enums
// (int-sized); a stream is the driver's CUstream (cudaStream_t is the same
// type).
using ncclComm_t = struct ncclComm*;
using ncclResult_t = int;
using ncclRedOp_t = int;
using ncclDataType_t = int;
inline constexpr size_t kNcclUniqueIdBytes = 128;  // NCCL_UNIQUE_ID_BYTES
struct ncclUniqueId {
  char internal[kNcclUniqueIdBytes];
};

// ncclResult_t
inline constexpr ncclResult_t kNcclSuccess = 0;             // ncclSuccess
inline constexpr ncclResult_t kNcclUnhandledCudaError = 1;  // ncclUnhandledCudaError
inline constexpr ncclResult_t kNcclSystemError = 2;         // ncclSystemError
inline constexpr ncclResult_t kNcclInternalError = 3;       // ncclInternalError
inline constexpr ncclResult_t kNcclInvalidArgument = 4;     // ncclInvalidArgument
inline constexpr ncclResult_t kNcclInvalidUsage = 5;        // ncclInvalidUsage
inline constexpr ncclResult_t kNcclRemoteError = 6;         // ncclRemoteError
inline constexpr ncclResult_t kNcclInProgress = 7;          // ncclInProgress
// ncclRedOp_t
inline constexpr ncclRedOp_t kNcclSum = 0;  // ncclSum
inline constexpr ncclRedOp_t kNcclMax = 2;  // ncclMax
// ncclDataType_t
inline constexpr ncclDataType_t kNcclUint8 = 1;     // ncclUint8
inline constexpr ncclDataType_t kNcclInt32 = 2;     // ncclInt32
inline constexpr ncclDataType_t kNcclInt64 = 4;     // ncclInt64
inline constexpr ncclDataType_t kNcclFloat16 = 6;   // ncclFloat16
inline constexpr ncclDataType_t kNcclFloat32 = 7;   // ncclFloat32
inline constexpr ncclDataType_t kNcclFloat64 = 8;   // ncclFloat64
inline constexpr ncclDataType_t kNcclBfloat16 = 9;  // ncclBfloat16

inline constexpr int kNcclConfigUndefInt = INT_MIN;  // NCCL_CONFIG_UNDEF_INT

// The first fields of ncclConfig_t, as NCCL 2.17 laid them out (later
// versions append fields). NCCL reads `size` bytes of a config and gives the
// fields after them, and those newer than `version`, their defaults; the
// constants test checks every offset against nccl.h.
struct NcclConfig {
  size_t size = sizeof(NcclConfig);
  unsigned magic = 0xcafebeef;  // what NCCL_CONFIG_INITIALIZER sets
  unsigned version = 21700;     // NCCL_VERSION(2, 17, 0): the layout above
  int blocking = kNcclConfigUndefInt;
  int cgaClusterSize = kNcclConfigUndefInt;
  int minCTAs = kNcclConfigUndefInt;
  int maxCTAs = kNcclConfigUndefInt;
  const char* netName = nullptr;
};

// The oldest NCCL mlc runs collectives on (ncclGetVersion's code: 10000 *
// major + 100 * minor + patch from 2.9 on): 2.18.0, whose non-blocking
// communicators (2.14) and config layout (2.17) it relies on.
inline constexpr int kMinNcclVersion = 21800;

struct Nccl {
  ncclResult_t (*ncclGetVersion)(int* version) = nullptr;
  ncclResult_t (*ncclGetUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*ncclCommInitRankConfig)(ncclComm_t* comm, int nranks, ncclUniqueId id, int rank,
                                         NcclConfig* config) = nullptr;
  ncclResult_t (*ncclCommDestroy)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclCommAbort)(ncclComm_t comm) = nullptr;
  ncclResult_t (*ncclCommGetAsyncError)(ncclComm_t comm, ncclResult_t* state) = nullptr;
  ncclResult_t (*ncclAllReduce)(const void* send, void* recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                                ncclComm_t comm, CUstream stream) = nullptr;
  ncclResult_t (*ncclAllGather)(const void* send, void* recv, size_t send_count, ncclDataType_t type, ncclComm_t comm,
                                CUstream stream) = nullptr;
  ncclResult_t (*ncclReduceScatter)(const void* send, void* recv, size_t recv_count, ncclDataType_t type,
                                    ncclRedOp_t op, ncclComm_t comm, CUstream stream) = nullptr;
  ncclResult_t (*ncclBroadcast)(const void* send, void* recv, size_t count, ncclDataType_t type, int root,
                                ncclComm_t comm, CUstream stream) = nullptr;
  ncclResult_t (*ncclSend)(const void* send, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                           CUstream stream) = nullptr;
  ncclResult_t (*ncclRecv)(void* recv, size_t count, ncclDataType_t type, int peer, ncclComm_t comm,
                           CUstream stream) = nullptr;
  ncclResult_t (*ncclGroupStart)() = nullptr;
  ncclResult_t (*ncclGroupEnd)() = nullptr;
  const char* (*ncclGetErrorString)(ncclResult_t result) = nullptr;
  const char* (*ncclGetLastError)(ncclComm_t comm) = nullptr;

  std::string library;  // the name it was opened by: "libnccl.so.2"
  int version = 0;      // ncclGetVersion's: 22809 for 2.28.9

  // "<what> failed: ncclX (<description>)[; NCCL says: <last error>]".
  std::string error_text(std::string_view what, ncclResult_t r, ncclComm_t comm = nullptr) const;
  Status check(ncclResult_t r, std::string_view what, ncclComm_t comm = nullptr) const {
    if (r == kNcclSuccess) return {};
    return make_error(error_text(what, r, comm));
  }
};

// "ncclRemoteError"; "ncclResult_t 42" for a value nccl.h does not name.
std::string nccl_result_name(ncclResult_t r);
// "2.28.9" for 22809 (and "2.8.4" for the old code 2804).
std::string nccl_version_name(int version);
// Success for kMinNcclVersion or newer, else the "too old" Error.
Status check_nccl_version(int version);
// NCCL's type for reducing `t`; none for bool, which no collective reduces.
std::optional<ncclDataType_t> nccl_reduce_type(DType t);

// Opens `library` (dlopen's name: the loader's search, then the toolkit's
// lib directories above) and finds NCCL's entry points in it; for tests,
// with a name no library has.
Expected<std::unique_ptr<Nccl>> load_nccl(const char* library);
// The process's NCCL (libnccl.so.2), loaded on the first call.
Expected<const Nccl*> nccl();

}  // namespace mlc::rt::cuda
