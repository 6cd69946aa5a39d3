// One rank's NCCL communicators (runtime/cuda/nccl.h): for every axis of the
// mesh of the rank's CPU World (runtime/comm/communicator.h), one ncclComm
// over that axis's group, so that a collective over axis `dp` runs on the
// GPUs of exactly the ranks the CPU communicators would talk to. It works
// with one process per GPU (mpirun, srun: the World is MPI's, as llm.c sets
// NCCL up) and with ranks as threads of one process (the local World, one
// GPU each).
//
// Contracts:
//  - create() is collective over the World: every rank calls it, in the
//    same order relative to its other collectives, with the device it runs
//    on made current on the calling thread. For each axis in the mesh's
//    order, the group's rank 0 makes a unique id (ncclGetUniqueId) and
//    broadcasts it over the CPU group (tag "NCCL unique id of axis 'dp'");
//    every rank of the group then makes its communicator non-blocking
//    (ncclCommInitRankConfig, blocking = 0) with its group rank, and waits
//    for it to be ready, up to the World's timeout. An axis of size 1 gets a
//    communicator of one rank.
//  - Determinism: NCCL does not fix the order in which an all_reduce adds
//    the ranks' parts: it depends on the algorithm NCCL picks per call (ring,
//    tree, NVLS, ...), by size and topology. Before the process's first
//    communicator, create() sets NCCL_ALGO=Ring (setenv, overwrite = 0:
//    only where the environment does not set NCCL_ALGO; a user's choice is
//    kept), so that repeated runs on the same machine, topology and NCCL
//    version add in the same order and are bit-identical. It is not the CPU
//    communicators' order (group rank 0 + 1 + 2 ...): a ring starts each
//    chunk at a different rank, and bf16/f16 are added in their own type
//    step by step, so results differ from the CPU's in the last bits beyond
//    2 ranks (with 2, an f32/f64 sum a + b is the CPU's, addition being
//    commutative). Max's NaN and signed-zero cases are NCCL's kernels'.
//  - Every wait (settle) polls ncclCommGetAsyncError until the communicator
//    leaves ncclInProgress, at most the World's timeout from `since`; on
//    timeout, or an error, this rank's communicators are all aborted
//    (ncclCommAbort) and the Error says, after the caller's tag:
//      "NCCL did not finish within 300 s on axis dp (rank 0 of 2 there;
//       this rank's NCCL communicators are aborted)"
//      "ncclAllReduce on axis dp failed: ncclRemoteError (...); NCCL says:
//       ... (this rank's NCCL communicators are aborted)"
//    Errors of create() name the axis and the NCCL call the same way.
//  - abort(reason) aborts every communicator once; afterwards check()
//    returns "NCCL's communicators were aborted: <reason>". The destructor
//    destroys the communicators (ncclCommDestroy), or after an abort
//    nothing (ncclCommAbort freed them).
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expected.h"
#include "runtime/comm/communicator.h"
#include "runtime/cuda/nccl.h"

namespace mlc::rt::cuda {

// Sets NCCL_ALGO=Ring unless the environment sets NCCL_ALGO; true where it
// set it. create() calls it once per process.
bool default_nccl_algorithm();

class NcclWorld {
 public:
  using Clock = std::chrono::steady_clock;

  static Expected<std::unique_ptr<NcclWorld>> create(const Nccl& nccl, World& world);
  ~NcclWorld();
  NcclWorld(const NcclWorld&) = delete;
  NcclWorld& operator=(const NcclWorld&) = delete;

  const Nccl& nccl() const { return nccl_; }
  // The mesh's axes, in its order; an index is World::axis_group's.
  size_t axes() const { return axes_.size(); }
  const std::string& axis_name(size_t axis) const { return axes_[axis].name; }
  ncclComm_t comm(size_t axis) const { return axes_[axis].comm; }
  int rank(size_t axis) const { return axes_[axis].rank; }
  int size(size_t axis) const { return axes_[axis].size; }
  std::chrono::milliseconds timeout() const { return timeout_; }

  // Success, or "NCCL's communicators were aborted: <reason>".
  Status check() const;
  // After an NCCL call on `axis` that returned `r`: success once the
  // communicator is ready (at once for ncclSuccess); an Error naming `call`
  // and the axis after `tag` for an error, or for still being in progress
  // when the timeout from `since` is over (both abort).
  Status settle(size_t axis, ncclResult_t r, std::string_view call, std::string_view tag, Clock::time_point since);
  // The first communicator with an asynchronous error (ncclCommGetAsyncError
  // neither ncclSuccess nor ncclInProgress), as settle's Error after `tag`
  // naming `call` (aborting); success where there is none.
  Status check_async(std::string_view call, std::string_view tag);
  // "<tag>: NCCL did not finish within ... on axis ...", aborting.
  Error timed_out(size_t axis, std::string_view tag);
  void abort(const std::string& reason);

 private:
  struct Axis {
    std::string name;
    ncclComm_t comm = nullptr;
    int rank = 0, size = 1;
  };
  NcclWorld(const Nccl& nccl, std::chrono::milliseconds timeout) : nccl_(nccl), timeout_(timeout) {}
  Error fail(size_t axis, std::string_view call, ncclResult_t r, std::string_view tag);

  const Nccl& nccl_;
  std::chrono::milliseconds timeout_;
  std::vector<Axis> axes_;
  std::string aborted_;  // the reason, once aborted
};

}  // namespace mlc::rt::cuda
