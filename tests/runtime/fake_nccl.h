// A fake NCCL over host memory (the entry-point table of
// runtime/cuda/nccl.h), for running the cuda executor's collectives
// (runtime/cuda/cuda_collectives.h) on machines without a GPU: a few ranks
// as threads of the test, each with its own executor on the fake driver
// (tests/runtime/fake_cuda.h), sharing the fake's state.
//
//  - A unique id names a clique; ncclCommInitRankConfig joins it. Only
//    non-blocking communicators are made (what the executor asks for): init
//    returns ncclInProgress and ncclCommGetAsyncError says ncclInProgress
//    until every rank has joined.
//  - A collective is a stream operation on the fake driver's queues: rank
//    r's k-th collective on a communicator meets every other rank's k-th.
//    When the last rank arrives, the whole collective is computed at once
//    from every rank's buffers (reductions in rank order, as the CPU's
//    communicators reduce: runtime/comm/comm_internal.h), and each rank's
//    operation finishes. Ranks that disagree on its kind, size, type, op or
//    root get ncclInvalidUsage from ncclCommGetAsyncError.
//  - ncclSend and ncclRecv match in order per (sender, receiver); a send
//    finishes when its message is received (NCCL's send blocks the stream).
//    Between ncclGroupStart and ncclGroupEnd a rank's calls become one
//    operation, finished when all of them are.
//  - Settings: `stall_rank` never arrives at a collective (a stuck peer),
//    `async_error` is what every communicator reports once set (with
//    `last_error` from ncclGetLastError), `in_progress_polls` makes every
//    collective call return ncclInProgress and the communicator report it
//    for that many polls. An aborted communicator's queued operations finish
//    at once, doing nothing.
// Counters say what was made and called; FakeNccl::reset() restores every
// setting and forgets every clique (no executor may be alive).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/comm/comm_internal.h"
#include "runtime/cuda/nccl.h"
#include "tests/runtime/fake_cuda.h"

namespace mlc::testing {

struct FakeNccl {
  // Settings.
  int version = 22809;
  int stall_rank = -1;
  cu::ncclResult_t async_error = cu::kNcclSuccess;
  std::string last_error;
  int in_progress_polls = 0;

  // Counters.
  int comms_made = 0, comms_destroyed = 0, comms_aborted = 0, calls = 0;  // calls: collectives, sends, receives, groups

  void reset();
};

inline FakeNccl& fake_nccl() {
  static FakeNccl f;
  return f;
}

namespace fake_nccl_detail {

using cu::ncclResult_t;
using fake_detail::device_lock;

struct Clique;

struct Comm {
  std::shared_ptr<Clique> clique;
  int rank = 0;
  int64_t next_seq = 0;  // this rank's collectives so far
  int pending_polls = 0;
  bool aborted = false, destroyed = false;
};

enum class Kind { all_reduce, all_gather, reduce_scatter, broadcast };
// What one rank posted for a collective.
struct Posted {
  Kind kind = Kind::all_reduce;
  const std::byte* send = nullptr;
  std::byte* recv = nullptr;
  size_t count = 0;
  int type = 0, op = 0, root = 0;
  bool operator==(const Posted& o) const {
    return kind == o.kind && count == o.count && type == o.type && op == o.op && root == o.root;
  }
};
struct Meeting {
  std::map<int, Posted> posted;
  bool done = false;
  int finished = 0;
};
struct Message {
  const std::byte* data = nullptr;
  size_t bytes = 0;
  bool received = false;
};
struct Clique {
  int nranks = 0, joined = 0;
  std::map<int64_t, Meeting> meetings;                                       // by sequence number
  std::map<std::pair<int, int>, std::deque<std::shared_ptr<Message>>> channels;  // (sender, receiver)
  ncclResult_t error = cu::kNcclSuccess;
  std::string error_text;
};

struct State {
  std::map<std::string, std::shared_ptr<Clique>> cliques;  // by unique id
  std::vector<std::shared_ptr<Comm>> comms;                // every one made, kept until reset
  int64_t ids = 0;
};
inline State& state() {
  static State s;
  return s;
}

inline std::shared_ptr<Comm> comm_of(cu::ncclComm_t c) {
  for (const auto& k : state().comms)
    if (k.get() == reinterpret_cast<Comm*>(c)) return k;
  return nullptr;
}

inline size_t type_size(int type) {
  switch (type) {
    case cu::kNcclUint8: return 1;
    case cu::kNcclFloat16:
    case cu::kNcclBfloat16: return 2;
    case cu::kNcclInt32:
    case cu::kNcclFloat32: return 4;
    default: return 8;
  }
}
inline DType dtype_of(int type) {
  switch (type) {
    case cu::kNcclFloat16: return DType::f16;
    case cu::kNcclBfloat16: return DType::bf16;
    case cu::kNcclInt32: return DType::i32;
    case cu::kNcclInt64: return DType::i64;
    case cu::kNcclFloat64: return DType::f64;
    default: return DType::f32;
  }
}

// Every rank's posted call is here: computes each rank's result.
inline void meet(Clique& cl, Meeting& m) {
  const Posted& first = m.posted.begin()->second;
  for (const auto& [rank, p] : m.posted)
    if (!(p == first)) {
      cl.error = cu::kNcclInvalidUsage;
      cl.error_text = "fake NCCL: the ranks disagree on collective " + std::to_string(static_cast<int>(p.kind));
      return;
    }
  const size_t es = type_size(first.type), bytes = first.count * es;
  const int n = cl.nranks;
  // Every send buffer read before any receive buffer is written (they may alias).
  std::vector<std::vector<std::byte>> sent(static_cast<size_t>(n));
  const size_t send_bytes = first.kind == Kind::reduce_scatter ? bytes * static_cast<size_t>(n) : bytes;
  for (int r = 0; r < n; ++r)
    if (first.kind != Kind::broadcast || r == first.root)
      sent[static_cast<size_t>(r)].assign(m.posted[r].send, m.posted[r].send + send_bytes);
  const rt::ReduceOp op = first.op == cu::kNcclMax ? rt::ReduceOp::max : rt::ReduceOp::sum;
  std::vector<const std::byte*> parts(static_cast<size_t>(n));
  for (int q = 0; q < n; ++q) {
    std::byte* out = m.posted[q].recv;
    switch (first.kind) {
      case Kind::all_reduce:
      case Kind::reduce_scatter: {
        const size_t at = first.kind == Kind::reduce_scatter ? static_cast<size_t>(q) * bytes : 0;
        for (int r = 0; r < n; ++r) parts[static_cast<size_t>(r)] = sent[static_cast<size_t>(r)].data() + at;
        rt::comm::reduce_in_rank_order(parts, out, static_cast<int64_t>(first.count), dtype_of(first.type), op);
        break;
      }
      case Kind::all_gather:
        for (int r = 0; r < n; ++r) std::memcpy(out + static_cast<size_t>(r) * bytes, sent[static_cast<size_t>(r)].data(), bytes);
        break;
      case Kind::broadcast:
        std::memcpy(out, sent[static_cast<size_t>(first.root)].data(), bytes);
        break;
    }
  }
}

// The call's own checks: a live, initialized communicator.
inline ncclResult_t usable(const std::shared_ptr<Comm>& c) {
  if (!c || c->aborted || c->destroyed) return cu::kNcclInvalidArgument;
  if (c->clique->joined < c->clique->nranks) return cu::kNcclInvalidUsage;
  return cu::kNcclSuccess;
}
inline ncclResult_t accepted(const std::shared_ptr<Comm>& c) {
  ++fake_nccl().calls;
  if (fake_nccl().in_progress_polls <= 0) return cu::kNcclSuccess;
  c->pending_polls = fake_nccl().in_progress_polls;
  return cu::kNcclInProgress;
}

// A collective as a stream operation.
inline fake_detail::StreamOp collective_op(std::shared_ptr<Comm> c, Posted mine) {
  return [c, mine, seq = int64_t{-1}]() mutable {
    if (c->aborted) return true;
    if (fake_nccl().stall_rank == c->rank) return false;
    Clique& cl = *c->clique;
    if (seq < 0) {
      seq = c->next_seq++;
      cl.meetings[seq].posted[c->rank] = mine;
    }
    Meeting& m = cl.meetings[seq];
    if (!m.done) {
      if (static_cast<int>(m.posted.size()) < cl.nranks) return false;
      meet(cl, m);
      m.done = true;
    }
    if (++m.finished == cl.nranks) cl.meetings.erase(seq);
    return true;
  };
}

// Point to point: a rank's sends and receives (one call, or a group's).
struct Transfer {
  bool send = true;
  std::byte* data = nullptr;
  size_t bytes = 0;
  int peer = 0;
};
inline fake_detail::StreamOp transfer_op(std::shared_ptr<Comm> c, std::vector<Transfer> transfers) {
  return [c, transfers, posted = std::vector<std::shared_ptr<Message>>(), done = std::vector<bool>()]() mutable {
    if (c->aborted) return true;
    if (fake_nccl().stall_rank == c->rank) return false;
    Clique& cl = *c->clique;
    if (done.empty()) {
      done.assign(transfers.size(), false);
      for (const Transfer& t : transfers)
        if (t.send) {
          posted.push_back(std::make_shared<Message>(Message{t.data, t.bytes, false}));
          cl.channels[{c->rank, t.peer}].push_back(posted.back());
        }
    }
    bool all = true;
    for (size_t i = 0; i < transfers.size(); ++i) {
      const Transfer& t = transfers[i];
      if (t.send || done[i]) continue;
      auto& channel = cl.channels[{t.peer, c->rank}];
      if (channel.empty()) {
        all = false;
        continue;
      }
      const std::shared_ptr<Message> m = channel.front();
      if (m->bytes != t.bytes) {
        cl.error = cu::kNcclInvalidUsage;
        cl.error_text = "fake NCCL: a receive of " + std::to_string(t.bytes) + " bytes met a send of " +
                        std::to_string(m->bytes);
      }
      std::memcpy(t.data, m->data, std::min(m->bytes, t.bytes));
      m->received = true;
      channel.pop_front();
      done[i] = true;
    }
    for (const auto& m : posted) all = all && m->received;
    return all;
  };
}

// This thread's open group: its transfers, per communicator and stream.
struct Group {
  int depth = 0;
  std::shared_ptr<Comm> comm;
  cu::CUstream stream = nullptr;
  std::vector<Transfer> transfers;
  bool mixed = false;  // several communicators or streams: not what the fake supports
};
inline Group& group() {
  thread_local Group g;
  return g;
}

inline ncclResult_t post_transfer(cu::ncclComm_t comm, Transfer t, cu::CUstream stream) {
  auto lock = device_lock();
  const std::shared_ptr<Comm> c = comm_of(comm);
  if (const ncclResult_t r = usable(c); r != cu::kNcclSuccess) return r;
  if (t.peer < 0 || t.peer >= c->clique->nranks) return cu::kNcclInvalidArgument;
  Group& g = group();
  if (g.depth > 0) {
    if (g.transfers.empty()) g.comm = c, g.stream = stream;
    g.mixed = g.mixed || g.comm != c || g.stream != stream;
    g.transfers.push_back(t);
    return cu::kNcclSuccess;
  }
  fake_detail::enqueue_op(stream, transfer_op(c, {t}));
  return accepted(c);
}

inline ncclResult_t post_collective(cu::ncclComm_t comm, Posted p, cu::CUstream stream) {
  auto lock = device_lock();
  const std::shared_ptr<Comm> c = comm_of(comm);
  if (const ncclResult_t r = usable(c); r != cu::kNcclSuccess) return r;
  if (group().depth > 0) return cu::kNcclInvalidUsage;  // the executor groups only sends and receives
  fake_detail::enqueue_op(stream, collective_op(c, p));
  return accepted(c);
}

}  // namespace fake_nccl_detail

inline void FakeNccl::reset() {
  auto lock = fake_detail::device_lock();
  *this = FakeNccl();
  fake_nccl_detail::state().cliques.clear();
  fake_nccl_detail::state().comms.clear();
}

inline const cu::Nccl& fake_nccl_library() {
  using namespace fake_nccl_detail;
  static const cu::Nccl n = [] {
    cu::Nccl n;
    n.library = "fake NCCL";
    n.version = fake_nccl().version;
    n.ncclGetVersion = [](int* v) -> ncclResult_t { return *v = fake_nccl().version, cu::kNcclSuccess; };
    n.ncclGetUniqueId = [](cu::ncclUniqueId* id) -> ncclResult_t {
      auto lock = device_lock();
      *id = {};
      std::snprintf(id->internal, sizeof id->internal, "fake-nccl-%lld", static_cast<long long>(++state().ids));
      return cu::kNcclSuccess;
    };
    n.ncclCommInitRankConfig = [](cu::ncclComm_t* comm, int nranks, cu::ncclUniqueId id, int rank,
                                  cu::NcclConfig* config) -> ncclResult_t {
      auto lock = device_lock();
      if (!config || config->magic != 0xcafebeef || config->size < offsetof(cu::NcclConfig, netName) ||
          config->version < 21400)
        return cu::kNcclInvalidArgument;
      if (config->blocking != 0) return cu::kNcclInvalidUsage;  // only what the executor makes
      std::shared_ptr<Clique>& cl = state().cliques[std::string(id.internal, strnlen(id.internal, sizeof id.internal))];
      if (!cl) cl = std::make_shared<Clique>(), cl->nranks = nranks;
      if (cl->nranks != nranks || rank < 0 || rank >= nranks) return cu::kNcclInvalidArgument;
      ++cl->joined;
      auto c = std::make_shared<Comm>();
      c->clique = cl;
      c->rank = rank;
      state().comms.push_back(c);
      ++fake_nccl().comms_made;
      *comm = reinterpret_cast<cu::ncclComm_t>(c.get());
      return cu::kNcclInProgress;
    };
    n.ncclCommDestroy = [](cu::ncclComm_t comm) -> ncclResult_t {
      auto lock = device_lock();
      const std::shared_ptr<Comm> c = comm_of(comm);
      if (!c || c->aborted || c->destroyed) return cu::kNcclInvalidArgument;
      c->destroyed = true;
      ++fake_nccl().comms_destroyed;
      return cu::kNcclSuccess;
    };
    n.ncclCommAbort = [](cu::ncclComm_t comm) -> ncclResult_t {
      auto lock = device_lock();
      const std::shared_ptr<Comm> c = comm_of(comm);
      if (!c || c->aborted || c->destroyed) return cu::kNcclInvalidArgument;
      c->aborted = true;
      ++fake_nccl().comms_aborted;
      return cu::kNcclSuccess;
    };
    n.ncclCommGetAsyncError = [](cu::ncclComm_t comm, ncclResult_t* s) -> ncclResult_t {
      auto lock = device_lock();
      const std::shared_ptr<Comm> c = comm_of(comm);
      if (!c || c->aborted || c->destroyed) return cu::kNcclInvalidArgument;
      if (c->clique->error != cu::kNcclSuccess) *s = c->clique->error;
      else if (fake_nccl().async_error != cu::kNcclSuccess) *s = fake_nccl().async_error;
      else if (c->clique->joined < c->clique->nranks) *s = cu::kNcclInProgress;
      else if (c->pending_polls > 0) --c->pending_polls, *s = cu::kNcclInProgress;
      else *s = cu::kNcclSuccess;
      return cu::kNcclSuccess;
    };
    n.ncclAllReduce = [](const void* send, void* recv, size_t count, int type, int op, cu::ncclComm_t comm,
                         cu::CUstream stream) -> ncclResult_t {
      return post_collective(comm, {Kind::all_reduce, static_cast<const std::byte*>(send), static_cast<std::byte*>(recv),
                                    count, type, op, 0},
                             stream);
    };
    n.ncclAllGather = [](const void* send, void* recv, size_t count, int type, cu::ncclComm_t comm,
                         cu::CUstream stream) -> ncclResult_t {
      return post_collective(comm, {Kind::all_gather, static_cast<const std::byte*>(send), static_cast<std::byte*>(recv),
                                    count, type, 0, 0},
                             stream);
    };
    n.ncclReduceScatter = [](const void* send, void* recv, size_t count, int type, int op, cu::ncclComm_t comm,
                             cu::CUstream stream) -> ncclResult_t {
      return post_collective(comm, {Kind::reduce_scatter, static_cast<const std::byte*>(send),
                                    static_cast<std::byte*>(recv), count, type, op, 0},
                             stream);
    };
    n.ncclBroadcast = [](const void* send, void* recv, size_t count, int type, int root, cu::ncclComm_t comm,
                         cu::CUstream stream) -> ncclResult_t {
      return post_collective(comm, {Kind::broadcast, static_cast<const std::byte*>(send), static_cast<std::byte*>(recv),
                                    count, type, 0, root},
                             stream);
    };
    n.ncclSend = [](const void* send, size_t count, int type, int peer, cu::ncclComm_t comm,
                    cu::CUstream stream) -> ncclResult_t {
      return post_transfer(comm, {true, const_cast<std::byte*>(static_cast<const std::byte*>(send)),
                                  count * type_size(type), peer},
                           stream);
    };
    n.ncclRecv = [](void* recv, size_t count, int type, int peer, cu::ncclComm_t comm,
                    cu::CUstream stream) -> ncclResult_t {
      return post_transfer(comm, {false, static_cast<std::byte*>(recv), count * type_size(type), peer}, stream);
    };
    n.ncclGroupStart = []() -> ncclResult_t {
      ++group().depth;
      return cu::kNcclSuccess;
    };
    n.ncclGroupEnd = []() -> ncclResult_t {
      auto lock = device_lock();
      Group& g = group();
      if (g.depth == 0) return cu::kNcclInvalidUsage;
      if (--g.depth > 0 || g.transfers.empty()) return cu::kNcclSuccess;
      Group done = std::move(g);
      g = Group();
      if (done.mixed) return cu::kNcclInvalidUsage;
      fake_detail::enqueue_op(done.stream, transfer_op(done.comm, std::move(done.transfers)));
      return accepted(done.comm);
    };
    n.ncclGetErrorString = [](ncclResult_t r) -> const char* {
      switch (r) {
        case cu::kNcclSuccess: return "no error";
        case cu::kNcclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
        case cu::kNcclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
        case cu::kNcclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
        case cu::kNcclRemoteError: return "remote process exited or there was a network error";
        case cu::kNcclInProgress: return "NCCL operation in progress";
        default: return "unknown result code";
      }
    };
    n.ncclGetLastError = [](cu::ncclComm_t comm) -> const char* {
      auto lock = device_lock();
      thread_local std::string text;
      const std::shared_ptr<Comm> c = comm_of(comm);
      text = c && !c->clique->error_text.empty() ? c->clique->error_text : fake_nccl().last_error;
      return text.c_str();
    };
    return n;
  }();
  return n;
}

}  // namespace mlc::testing
