#include "runtime/cuda/cuda_collectives.h"

#include <algorithm>
#include <thread>

#include "ir/diagnostics.h"
#include "runtime/collective_run.h"
#include "runtime/cuda/chunk_rows.h"

namespace mlc::rt::cuda {

namespace {

using Clock = NcclWorld::Clock;

int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

void* ptr(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// Whether the rank chunks along d of a tensor of `shape` are contiguous
// (every dim before d is 1): chunk_rows(...).contiguous() for any n.
bool contiguous(const Shape& shape, int64_t d) {
  for (int64_t i = 0; i < d; ++i)
    if (shape[static_cast<size_t>(i)] != 1) return false;
  return true;
}

// The scratch bytes instruction `c` needs (its chunks staged), before the
// group's size is known: it does not depend on it.
int64_t scratch_bytes(const CollectiveParams& c, const TensorType& in, const TensorType& out) {
  switch (c.kind) {
    case CollectiveKind::all_gather: return contiguous(out.shape, c.dim) ? 0 : out.num_bytes();
    case CollectiveKind::reduce_scatter: return contiguous(in.shape, c.dim) ? 0 : in.num_bytes();
    case CollectiveKind::all_to_all:
      if (c.split_dim == c.concat_dim) return 0;
      return (contiguous(in.shape, c.split_dim) ? 0 : round_up(in.num_bytes(), kGpuArenaAlignment)) +
             (contiguous(out.shape, c.concat_dim) ? 0 : out.num_bytes());
    default: return 0;
  }
}

}  // namespace

Expected<std::unique_ptr<CudaCollectives>> CudaCollectives::create(const CudaDriver& cu,
                                                                   const Executable& exe,
                                                                   std::span<const CUdeviceptr> slot_addr,
                                                                   NcclLoader nccl) {
  std::unique_ptr<CudaCollectives> x(new CudaCollectives(cu));
  x->exe_ = &exe;
  x->load_nccl_ = std::move(nccl);
  x->plan_of_.assign(exe.instructions.size(), -1);
  int64_t scratch = 0;
  for (size_t i = 0; i < exe.instructions.size(); ++i) {
    const Instruction& ins = exe.instructions[i];
    if (ins.kind != InstrKind::collective) continue;
    Planned p;
    p.instruction = i;
    p.c = &ins.collective;
    p.out = slot_addr[static_cast<size_t>(ins.result)];
    p.out_type = exe.slots[static_cast<size_t>(ins.result)].type;
    p.in_type = TensorType{p.out_type.dtype, {}};
    if (!ins.operands.empty()) {
      p.in = slot_addr[static_cast<size_t>(ins.operands[0])];
      p.in_type = exe.slots[static_cast<size_t>(ins.operands[0])].type;
    }
    const CollectiveKind k = ins.collective.kind;
    p.nccl = k != CollectiveKind::shard_slice &&
             !(k == CollectiveKind::all_to_all && ins.collective.split_dim == ins.collective.concat_dim);
    scratch = std::max(scratch, scratch_bytes(ins.collective, p.in_type, p.out_type));
    x->plan_of_[i] = static_cast<int>(x->plans_.size());
    if (p.nccl) x->ordered_.push_back(x->plans_.size());
    x->plans_.push_back(std::move(p));
  }
  if (x->ordered_.empty()) return x;
  MLC_CHECK_OK(cu.check(cu.cuStreamCreate(&x->comm_, kStreamNonBlocking), "cuda: cuStreamCreate(collectives)"));
  auto event = [&](CUevent& e) { return cu.check(cu.cuEventCreate(&e, kEventDisableTiming), "cuda: cuEventCreate"); };
  MLC_CHECK_OK(event(x->end_));
  for (size_t k : x->ordered_) {
    Planned& p = x->plans_[k];
    for (CUevent* e : {&p.fork, &p.join, &p.started, &p.finished}) MLC_CHECK_OK(event(*e));
  }
  if (scratch > 0)
    if (const CUresult r = cu.cuMemAlloc(&x->scratch_, static_cast<size_t>(scratch)); r != kCudaSuccess) {
      x->scratch_ = 0;
      return make_error("function '" + exe.function + "': " +
                        cu.error_text("cuMemAlloc(collectives' scratch, " + std::to_string(scratch) + " bytes)", r));
    }
  return x;
}

void CudaCollectives::set_addresses(std::span<const CUdeviceptr> slot_addr) {
  for (Planned& p : plans_) {
    const Instruction& ins = exe_->instructions[p.instruction];
    p.out = slot_addr[static_cast<size_t>(ins.result)];
    if (!ins.operands.empty()) p.in = slot_addr[static_cast<size_t>(ins.operands[0])];
  }
}

CudaCollectives::~CudaCollectives() {
  if (comm_) cu_.cuStreamSynchronize(comm_);
  world_.reset();  // the communicators, once nothing of theirs is queued
  for (const Planned& p : plans_)
    for (CUevent e : {p.fork, p.join, p.started, p.finished})
      if (e) cu_.cuEventDestroy(e);
  if (end_) cu_.cuEventDestroy(end_);
  if (scratch_) cu_.cuMemFree(scratch_);
  if (comm_) cu_.cuStreamDestroy(comm_);
}

std::string CudaCollectives::tag(const Planned& p) const {
  return p.c->tag.empty() ? std::string(collective_kind_name(p.c->kind)) : p.c->tag;
}

const char* CudaCollectives::nccl_call(const Planned& p) const {
  switch (p.c->kind) {
    case CollectiveKind::all_reduce: return "ncclAllReduce";
    case CollectiveKind::all_gather: return "ncclAllGather";
    case CollectiveKind::reduce_scatter: return "ncclReduceScatter";
    case CollectiveKind::all_to_all: return "ncclGroupEnd (all_to_all's sends and receives)";
    case CollectiveKind::collective_broadcast: return "ncclBroadcast";
    case CollectiveKind::send: return "ncclSend";
    case CollectiveKind::recv: return "ncclRecv";
    case CollectiveKind::shard_slice: break;
  }
  return "NCCL";
}

bool CudaCollectives::communicates_before(size_t instruction) const {
  return !ordered_.empty() && plans_[ordered_.front()].instruction < instruction;
}

Status CudaCollectives::bind(World* world) {
  if (!bound_) {
    bound_ = true;
    if (Status s = bind_once(world); !s) bind_error_ = s.take_error();
  }
  if (bind_error_) return *bind_error_;
  // After an abort nothing may use the communicators, a captured graph included.
  if (world_)
    if (Status s = world_->check(); !s) return make_error(tag(plans_[ordered_.front()]) + ": " + s.error().message);
  return {};
}

Status CudaCollectives::bind_once(World* world) {
  for (Planned& p : plans_) {
    const Instruction& ins = exe_->instructions[p.instruction];
    if (!world)
      return error_at(ins.loc, std::string(collective_kind_name(p.c->kind)) +
                                   ": runs only on a device mesh (the program was started without a communicator)");
    MLC_TRY(p.axis, collective_axis(*p.c, world->mesh()));
    const Group& group = world->axis_group(p.axis);
    p.n = group.size();
    p.group_rank = group.rank();
    const Tensor in = Tensor::view(p.in_type, nullptr), out = Tensor::view(p.out_type, nullptr);
    const Tensor* operands[] = {&in};
    MLC_CHECK_OK(check_collective(*p.c, p.n, std::span<const Tensor* const>(operands, ins.operands.size()), out));
    const bool reduces = p.c->kind == CollectiveKind::all_reduce || p.c->kind == CollectiveKind::reduce_scatter;
    if (reduces && !nccl_reduce_type(p.out_type.dtype))
      return make_error(tag(p) + ": cannot reduce bool tensors (reduce i32 instead)");
  }
  if (ordered_.empty()) return {};
  const std::string first = tag(plans_[ordered_.front()]);
  Expected<const Nccl*> nccl = load_nccl_();
  if (!nccl.ok()) return make_error(first + ": " + nccl.error().message);
  Expected<std::unique_ptr<NcclWorld>> made = NcclWorld::create(**nccl, *world);
  if (!made.ok()) return make_error(first + ": " + made.error().message);
  world_ = std::move(made).value();
  return {};
}

Status CudaCollectives::copy_rows(CUdeviceptr dst, int64_t dst_pitch, CUdeviceptr src, int64_t src_pitch,
                                  int64_t width, int64_t rows, CUstream stream, const Planned& p) {
  if (width == 0 || rows == 0) return {};
  auto failed = [&](const char* call, CUresult r) { return make_error(tag(p) + ": " + cu_.error_text(call, r)); };
  if (rows == 1 || (dst_pitch == width && src_pitch == width)) {
    if (const CUresult r = cu_.cuMemcpyDtoDAsync(dst, src, static_cast<size_t>(width * rows), stream); r != kCudaSuccess)
      return failed("cuMemcpyDtoDAsync", r);
    return {};
  }
  if (dst_pitch <= kMaxCopyPitch && src_pitch <= kMaxCopyPitch) {
    const CudaMemcpy2D copy = device_copy_2d(dst, dst_pitch, src, src_pitch, width, rows);
    if (const CUresult r = cu_.cuMemcpy2DAsync(&copy, stream); r != kCudaSuccess) return failed("cuMemcpy2DAsync", r);
    return {};
  }
  // Rows too far apart for one 2D copy: one copy per row.
  for (int64_t r = 0; r < rows; ++r)
    if (const CUresult e = cu_.cuMemcpyDtoDAsync(dst + static_cast<CUdeviceptr>(r * dst_pitch),
                                                 src + static_cast<CUdeviceptr>(r * src_pitch),
                                                 static_cast<size_t>(width), stream);
        e != kCudaSuccess)
      return failed("cuMemcpyDtoDAsync", e);
  return {};
}

Status CudaCollectives::call(const Planned& p, const char* name, ncclResult_t r, Clock::time_point since) {
  return world_->settle(p.axis, r, name, tag(p), since);
}

Status CudaCollectives::run_local(const Planned& p, CUstream compute) {
  const int64_t e = dtype_size(p.out_type.dtype);
  if (p.c->kind == CollectiveKind::shard_slice) {
    const ChunkRows rows = chunk_rows(p.in_type.shape, e, p.c->dim, p.n);
    return copy_rows(p.out, rows.width, p.in + static_cast<CUdeviceptr>(rows.offset(p.group_rank)), rows.pitch,
                     rows.width, rows.rows, compute, p);
  }
  if (p.in == p.out) return {};  // all_to_all within one dim: the operand itself
  return copy_rows(p.out, 0, p.in, 0, p.out_type.num_bytes(), 1, compute, p);
}

Status CudaCollectives::run_nccl(const Planned& p) {
  const Nccl& n = world_->nccl();
  const ncclComm_t comm = world_->comm(p.axis);
  const CollectiveParams& c = *p.c;
  const int64_t e = dtype_size(p.out_type.dtype);
  const auto bytes = [](const TensorType& t) { return static_cast<size_t>(t.num_bytes()); };
  const Clock::time_point since = Clock::now();
  switch (c.kind) {
    case CollectiveKind::all_reduce:
      return call(p, "ncclAllReduce",
                  n.ncclAllReduce(ptr(p.in), ptr(p.out), static_cast<size_t>(p.out_type.num_elements()),
                                  *nccl_reduce_type(p.out_type.dtype), c.reduce_max ? kNcclMax : kNcclSum, comm, comm_),
                  since);
    case CollectiveKind::all_gather: {
      const ChunkRows rows = chunk_rows(p.out_type.shape, e, c.dim, p.n);
      const CUdeviceptr gathered = rows.contiguous() ? p.out : scratch_;
      MLC_CHECK_OK(call(p, "ncclAllGather",
                        n.ncclAllGather(ptr(p.in), ptr(gathered), bytes(p.in_type), kNcclUint8, comm, comm_), since));
      if (rows.contiguous()) return {};
      const int64_t chunk = p.in_type.num_bytes();
      for (int64_t r = 0; r < p.n; ++r)
        MLC_CHECK_OK(copy_rows(p.out + static_cast<CUdeviceptr>(rows.offset(r)), rows.pitch,
                               gathered + static_cast<CUdeviceptr>(r * chunk), rows.width, rows.width, rows.rows,
                               comm_, p));
      return {};
    }
    case CollectiveKind::reduce_scatter: {
      const ChunkRows rows = chunk_rows(p.in_type.shape, e, c.dim, p.n);
      CUdeviceptr chunks = p.in;
      if (!rows.contiguous()) {
        chunks = scratch_;
        const int64_t chunk = p.out_type.num_bytes();
        for (int64_t r = 0; r < p.n; ++r)
          MLC_CHECK_OK(copy_rows(chunks + static_cast<CUdeviceptr>(r * chunk), rows.width,
                                 p.in + static_cast<CUdeviceptr>(rows.offset(r)), rows.pitch, rows.width, rows.rows,
                                 comm_, p));
      }
      return call(p, "ncclReduceScatter",
                  n.ncclReduceScatter(ptr(chunks), ptr(p.out), static_cast<size_t>(p.out_type.num_elements()),
                                      *nccl_reduce_type(p.out_type.dtype), kNcclSum, comm, comm_),
                  since);
    }
    case CollectiveKind::all_to_all: {
      const ChunkRows split = chunk_rows(p.in_type.shape, e, c.split_dim, p.n);
      const ChunkRows concat = chunk_rows(p.out_type.shape, e, c.concat_dim, p.n);
      const int64_t chunk = p.in_type.num_bytes() / p.n;
      CUdeviceptr send = p.in, recv = p.out;
      CUdeviceptr free = scratch_;
      if (!split.contiguous()) {
        send = free;
        free += static_cast<CUdeviceptr>(round_up(p.in_type.num_bytes(), kGpuArenaAlignment));
        for (int64_t r = 0; r < p.n; ++r)
          MLC_CHECK_OK(copy_rows(send + static_cast<CUdeviceptr>(r * chunk), split.width,
                                 p.in + static_cast<CUdeviceptr>(split.offset(r)), split.pitch, split.width,
                                 split.rows, comm_, p));
      }
      if (!concat.contiguous()) recv = free;
      // Every call of the group is made, even after one fails, so that the group is closed.
      ncclResult_t first = n.ncclGroupStart();
      if (first == kNcclSuccess)
        for (int64_t r = 0; r < p.n; ++r) {
          const auto at = static_cast<CUdeviceptr>(r * chunk);
          for (ncclResult_t s : {n.ncclSend(ptr(send + at), static_cast<size_t>(chunk), kNcclUint8, static_cast<int>(r),
                                            comm, comm_),
                                 n.ncclRecv(ptr(recv + at), static_cast<size_t>(chunk), kNcclUint8, static_cast<int>(r),
                                            comm, comm_)})
            if (first == kNcclSuccess && s != kNcclSuccess && s != kNcclInProgress) first = s;
        }
      const ncclResult_t ended = n.ncclGroupEnd();
      MLC_CHECK_OK(call(p, first == kNcclSuccess ? "ncclGroupEnd" : "ncclSend/ncclRecv",
                        first == kNcclSuccess ? ended : first, since));
      if (concat.contiguous()) return {};
      for (int64_t r = 0; r < p.n; ++r)
        MLC_CHECK_OK(copy_rows(p.out + static_cast<CUdeviceptr>(concat.offset(r)), concat.pitch,
                               recv + static_cast<CUdeviceptr>(r * chunk), concat.width, concat.width, concat.rows,
                               comm_, p));
      return {};
    }
    case CollectiveKind::collective_broadcast:
      return call(p, "ncclBroadcast",
                  n.ncclBroadcast(ptr(p.in), ptr(p.out), bytes(p.out_type), kNcclUint8, static_cast<int>(c.peer), comm,
                                  comm_),
                  since);
    case CollectiveKind::send:
      if (p.in != p.out) MLC_CHECK_OK(copy_rows(p.out, 0, p.in, 0, p.out_type.num_bytes(), 1, comm_, p));
      return call(p, "ncclSend",
                  n.ncclSend(ptr(p.in), bytes(p.in_type), kNcclUint8, static_cast<int>(c.peer), comm, comm_), since);
    case CollectiveKind::recv:
      return call(p, "ncclRecv",
                  n.ncclRecv(ptr(p.out), bytes(p.out_type), kNcclUint8, static_cast<int>(c.peer), comm, comm_), since);
    case CollectiveKind::shard_slice: break;
  }
  return make_error("mlc internal error: " + tag(p) + " is no NCCL collective");
}

Status CudaCollectives::enqueue(size_t instruction, CUstream compute, bool capturing) {
  const Planned& p = plans_[static_cast<size_t>(plan_of_[instruction])];
  if (!p.nccl) return run_local(p, compute);
  // Every rank of the group has the same sizes: all skip an empty one.
  if (p.out_type.num_bytes() == 0 && p.in_type.num_bytes() == 0) return {};
  if (Status s = world_->check(); !s) return make_error(tag(p) + ": " + s.error().message);
  const unsigned marker = capturing ? kEventRecordExternal : kEventRecordDefault;
  auto check = [&](CUresult r, const char* what) -> Status {
    if (r == kCudaSuccess) return {};
    return make_error(tag(p) + ": " + cu_.error_text(what, r));
  };
  MLC_CHECK_OK(check(cu_.cuEventRecord(p.fork, compute), "cuEventRecord"));
  MLC_CHECK_OK(check(cu_.cuStreamWaitEvent(comm_, p.fork, kEventWaitDefault), "cuStreamWaitEvent"));
  MLC_CHECK_OK(check(cu_.cuEventRecordWithFlags(p.started, comm_, marker), "cuEventRecordWithFlags"));
  MLC_CHECK_OK(run_nccl(p));
  MLC_CHECK_OK(check(cu_.cuEventRecordWithFlags(p.finished, comm_, marker), "cuEventRecordWithFlags"));
  MLC_CHECK_OK(check(cu_.cuEventRecord(p.join, comm_), "cuEventRecord"));
  return check(cu_.cuStreamWaitEvent(compute, p.join, kEventWaitDefault), "cuStreamWaitEvent");
}

Status CudaCollectives::wait(CUstream compute) {
  if (!world_) return {};
  MLC_CHECK_OK(cu_.check(cu_.cuEventRecord(end_, compute), "cuda: cuEventRecord"));
  size_t k = 0;  // ordered_[k]: the first collective not seen to have ended
  std::optional<Clock::time_point> started;
  auto pause = std::chrono::microseconds(2);
  for (;;) {
    const CUresult done = cu_.cuEventQuery(end_);
    while (k < ordered_.size() && cu_.cuEventQuery(plans_[ordered_[k]].finished) != kCudaErrorNotReady) {
      ++k;
      started.reset();
    }
    // An asynchronous error is the first unfinished collective's (the last's if all finished).
    const Planned& p = plans_[ordered_[std::min(k, ordered_.size() - 1)]];
    MLC_CHECK_OK(world_->check_async(nccl_call(p), tag(p)));
    // A driver error is the stream's: the executor's wait for it reports it.
    if (done != kCudaErrorNotReady) return {};
    // The clock of the first unfinished collective runs from its start; after
    // the last one, from when it was seen to end.
    if (!started) {
      if (k == ordered_.size() || cu_.cuEventQuery(p.started) != kCudaErrorNotReady) started = Clock::now();
    } else if (Clock::now() - *started > world_->timeout()) {
      return world_->timed_out(p.axis, tag(p));
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(200));
  }
}

}  // namespace mlc::rt::cuda
