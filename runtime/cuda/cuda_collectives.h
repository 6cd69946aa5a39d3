// The cuda executor's `collective` instructions (runtime/executable.h
// CollectiveParams) on NCCL (runtime/cuda/nccl_world.h), one to one:
//   all_reduce sum / max   ncclAllReduce(ncclSum / ncclMax) of the element type
//   all_gather along d     ncclAllGather of the operand's bytes into the result
//   reduce_scatter         ncclReduceScatter(ncclSum) of the element type
//   all_to_all             ncclGroupStart, for each rank j of the group one
//                          ncclSend of chunk j and one ncclRecv into chunk j,
//                          ncclGroupEnd
//   collective_broadcast   ncclBroadcast from the root
//   send / recv            ncclSend (the result is the operand: a copy) / ncclRecv
// Reductions use the element type (no bool, as on the CPU); the others move
// bytes (ncclUint8). Where a dim before the gathered, scattered, split or
// concatenated dim d is larger than 1, the rank chunks are not contiguous:
// NCCL has no strided collectives, so they go through a device scratch
// buffer, each chunk moved by one 2D copy (cuMemcpy2DAsync, runtime/cuda/
// chunk_rows.h): all_gather gathers into scratch and inserts chunk r into
// the result; reduce_scatter packs the operand's chunks into scratch first;
// all_to_all packs along split_dim and inserts along concat_dim. Two
// instructions use no NCCL and run on the compute stream: shard_slice (this
// rank's chunk, one 2D copy) and all_to_all with split_dim == concat_dim (a
// copy, as on the CPU).
//
// Streams: NCCL's calls and their copies run on a stream of their own,
// ordered with the executor's compute stream by events: record on compute,
// the comm stream waits; the copies and the collective; record on comm, the
// compute stream waits. Under stream capture those waits fork the comm
// stream into the capture and join it back, so collectives are captured into
// the CUDA graph with the rest (the executor's first run is eager, so NCCL
// connects to its peers outside a capture). Two more events per collective
// mark its start and end for the host (recorded as external event nodes in
// a capture, so a graph's replays record them too).
//
// Lifetime: create() when the executor is made: the events, the comm stream
// and one scratch buffer (cuMemAlloc, once: the largest any instruction
// needs; run allocates nothing). bind(world) at the start of every run: the
// first one checks each instruction's axis and sizes against its group, with
// run_collective's messages (runtime/collective_run.h), then loads NCCL and
// makes the NcclWorld (collective over the World); its failure is kept and
// returned by later runs: "all_reduce at m.json:3:5: cuda: collectives need
// NCCL: libnccl.so.2 not found (...)".
//
// Timeouts: wait(compute) is how the executor waits for a run with
// collectives: it polls an event recorded at the end of the list, the start
// and end markers, and NCCL's asynchronous errors, instead of blocking in
// cuStreamSynchronize. A collective that started (its start marker
// completed) and has not ended within the World's timeout aborts the NCCL
// communicators and fails: "all_reduce at m.json:3:5 (fc1): NCCL did not
// finish within 300 s on axis dp (...)". A step still running a whole
// timeout after its last collective ended fails the same way, naming that
// collective (the host cannot tell a hung kernel from a hung NCCL, and does
// not hang). An asynchronous NCCL error fails naming the first collective
// not seen to end (the last, once all have) and its NCCL call. Later runs
// then fail with "...: NCCL's communicators were aborted: <that message>".
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ir/expected.h"
#include "runtime/comm/communicator.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/nccl.h"
#include "runtime/cuda/nccl_world.h"
#include "runtime/executable.h"

namespace mlc::rt::cuda {

using NcclLoader = std::function<Expected<const Nccl*>()>;

class CudaCollectives {
 public:
  // `exe`'s collective instructions over `slot_addr` (every slot's device
  // address); `exe` outlives the result. The device's context is current.
  static Expected<std::unique_ptr<CudaCollectives>> create(const CudaDriver& cu,
                                                           const Executable& exe,
                                                           std::span<const CUdeviceptr> slot_addr, NcclLoader nccl);
  ~CudaCollectives();
  CudaCollectives(const CudaCollectives&) = delete;
  CudaCollectives& operator=(const CudaCollectives&) = delete;

  // The slots' addresses changed (their executor bound kept tensors).
  void set_addresses(std::span<const CUdeviceptr> slot_addr);
  Status bind(World* world);
  // Enqueues collective instruction `instruction` after the work enqueued on
  // `compute`; `capturing` while `compute` is being captured.
  Status enqueue(size_t instruction, CUstream compute, bool capturing);
  // Waits for the work enqueued on `compute` (polling; see above).
  Status wait(CUstream compute);
  // Whether an instruction before `instruction` talks to other ranks.
  bool communicates_before(size_t instruction) const;

 private:
  struct Planned {
    size_t instruction = 0;
    const CollectiveParams* c = nullptr;
    CUdeviceptr in = 0, out = 0;  // operand (none for recv) and result
    TensorType in_type, out_type;
    bool nccl = true;  // false: a local copy on the compute stream
    size_t axis = 0;   // bind: the mesh axis's index
    int64_t n = 1;     // bind: the group's size
    int group_rank = 0;
    CUevent fork = nullptr, join = nullptr, started = nullptr, finished = nullptr;
  };
  explicit CudaCollectives(const CudaDriver& cu) : cu_(cu) {}
  Status bind_once(World* world);
  Status run_local(const Planned& p, CUstream compute);
  Status run_nccl(const Planned& p);
  Status copy_rows(CUdeviceptr dst, int64_t dst_pitch, CUdeviceptr src, int64_t src_pitch, int64_t width,
                   int64_t rows, CUstream stream, const Planned& p);
  Status call(const Planned& p, const char* name, ncclResult_t r, NcclWorld::Clock::time_point since);
  std::string tag(const Planned& p) const;
  const char* nccl_call(const Planned& p) const;

  const CudaDriver& cu_;
  const Executable* exe_ = nullptr;
  NcclLoader load_nccl_;
  std::vector<Planned> plans_;
  std::vector<int> plan_of_;     // per instruction: its plan, or -1
  std::vector<size_t> ordered_;  // the plans that use NCCL, in list order
  CUstream comm_ = nullptr;
  CUdeviceptr scratch_ = 0;
  CUevent end_ = nullptr;
  std::unique_ptr<NcclWorld> world_;
  bool bound_ = false;
  std::optional<Error> bind_error_;
};

}  // namespace mlc::rt::cuda
