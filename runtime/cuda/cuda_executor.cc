#include "runtime/cuda/cuda_executor.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string_view>

#include "ir/diagnostics.h"
#include "ir/op_table.h"
#include "runtime/index_check.h"

namespace mlc::rt::cuda {

namespace {

int64_t round_up(int64_t n, int64_t to) { return (n + to - 1) / to * to; }

}  // namespace

std::string memory_size_name(int64_t bytes) {
  char s[64];
  if (bytes >= (int64_t{1} << 30))
    std::snprintf(s, sizeof s, "%.1f GiB", static_cast<double>(bytes) / (1 << 30));
  else if (bytes >= (int64_t{1} << 20))
    std::snprintf(s, sizeof s, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else if (bytes >= 1024)
    std::snprintf(s, sizeof s, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else
    std::snprintf(s, sizeof s, "%lld bytes", static_cast<long long>(bytes));
  return s;
}

Error CudaExecutor::at(size_t instruction, const std::string& message) const {
  return error_at(exe_->instructions[instruction].loc, "function '" + exe_->function + "': " + message);
}

Expected<std::unique_ptr<CudaExecutor>> CudaExecutor::create(std::shared_ptr<const Executable> exe,
                                                             std::shared_ptr<const CudaCode> code,
                                                             const CudaDevice& device, CudaExecutorOptions options) {
  std::unique_ptr<CudaExecutor> x(new CudaExecutor(device));
  x->exe_ = std::move(exe);
  x->code_ = std::move(code);
  x->options_ = options;
  const Executable& e = *x->exe_;
  // What this target cannot run is refused before anything is allocated.
  bool gemms = false, collectives = false;
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const Instruction& ins = e.instructions[i];
    switch (ins.kind) {
      case InstrKind::collective:
        collectives = true;
        break;
      case InstrKind::reference:
        return x->at(i, std::string(ins.op ? op_name(ins.op->code) : std::string_view(ins.name)) +
                            ": a reference kernel, which the cuda target does not run (a compiled step has none)");
      case InstrKind::kernel: {
        const KernelInfo& k = e.kernels[static_cast<size_t>(ins.kernel)];
        if (!x->code_ || k.object < 0 || static_cast<size_t>(k.object) >= x->code_->functions.size())
          return x->at(i, "kernel " + k.name + " has no loaded code");
        // Its launch is within CUDA's limits: runtime/verify_executable.h checked it.
        break;
      }
      case InstrKind::gemm:
        gemms = true;
        break;
      case InstrKind::copy:
        break;
    }
  }
  if (gemms && !options.cublaslt)
    return make_error("mlc internal error: function '" + e.function + "' has gemms and no cuBLASLt was given");
  MLC_CHECK_OK(device.make_current());
  MLC_CHECK_OK(x->cu_.check(x->cu_.cuStreamCreate(&x->stream_, kStreamNonBlocking), "cuda: cuStreamCreate"));
  int64_t io_bytes = 0;
  MLC_CHECK_OK(x->allocate(io_bytes));
  // Zeros (as the CPU's arena starts), then the constants, once.
  const CudaDriver& cu = x->cu_;
  const int64_t arena_alloc = std::max(kGpuArenaAlignment, round_up(e.arena_bytes, kGpuArenaAlignment));
  MLC_CHECK_OK(cu.check(cu.cuMemsetD32Async(x->arena_, 0, static_cast<size_t>(arena_alloc / 4), x->stream_),
                        "cuda: cuMemsetD32Async(arena)"));
  MLC_CHECK_OK(cu.check(cu.cuMemsetD32Async(x->io_, 0, static_cast<size_t>(io_bytes / 4), x->stream_),
                        "cuda: cuMemsetD32Async(arguments)"));
  x->pending_.assign(e.args.size(), nullptr);
  x->set_slot_addresses();
  MLC_CHECK_OK(x->prepare_instructions());
  MLC_CHECK_OK(x->prepare_results());
  if (collectives) {
    MLC_TRY(x->collectives_, CudaCollectives::create(cu, e, x->slot_addr_,
                                                     options.nccl_loader));
  }
  for (const ConstantData& c : e.constants)
    if (!c.bytes.empty())
      MLC_CHECK_OK(cu.check(cu.cuMemcpyHtoDAsync(x->slot_addr_[static_cast<size_t>(c.slot)], c.bytes.data(),
                                                 c.bytes.size(), x->stream_),
                            "cuda: cuMemcpyHtoDAsync(constants)"));
  MLC_CHECK_OK(x->synchronize("uploading the constants"));
  return x;
}

int64_t CudaExecutor::layout_arguments() {
  const Executable& e = *exe_;
  int64_t bytes = 0;
  arg_offset_.assign(e.args.size(), -1);
  for (size_t a = 0; a < e.args.size(); ++a) {
    if (!copy_.empty() && copy_[a]) continue;  // on its device copy
    arg_offset_[a] = bytes;
    bytes += round_up(e.slots[static_cast<size_t>(e.args[a].slot)].type.num_bytes(), kGpuArenaAlignment);
  }
  status_offset_ = bytes;
  const int64_t words = std::max<int64_t>(1, static_cast<int64_t>(e.instructions.size()));
  return round_up(status_offset_ + 4 * words, kGpuArenaAlignment);
}

Status CudaExecutor::allocate_device(CUdeviceptr& p, int64_t bytes, const char* what) {
  if (const CUresult r = cu_.cuMemAlloc(&p, static_cast<size_t>(bytes)); r != kCudaSuccess) {
    p = 0;
    return make_error("function '" + exe_->function + "': " +
                      cu_.error_text(std::string("cuMemAlloc(") + what + ", " + memory_size_name(bytes) + ") on " +
                                         dev_.label(),
                                     r));
  }
  return {};
}

Status CudaExecutor::allocate(int64_t& io_bytes) {
  const Executable& e = *exe_;
  const int64_t arena = std::max(kGpuArenaAlignment, round_up(e.arena_bytes, kGpuArenaAlignment));
  io_bytes = layout_arguments();
  const bool gemms = std::any_of(e.instructions.begin(), e.instructions.end(),
                                 [](const Instruction& i) { return i.kind == InstrKind::gemm; });
  const int64_t workspace = gemms ? static_cast<int64_t>(kGemmWorkspaceBytes) : 0;
  const int64_t need = arena + io_bytes + workspace;
  size_t free = 0, total = 0;
  MLC_CHECK_OK(cu_.check(cu_.cuMemGetInfo(&free, &total), "cuda: cuMemGetInfo on " + dev_.label()));
  if (need > static_cast<int64_t>(free))
    return make_error("function '" + e.function + "': needs " + memory_size_name(need) + " of GPU memory (arena " +
                      memory_size_name(arena) + ", arguments " + memory_size_name(io_bytes) +
                      (gemms ? ", GEMM workspace " + memory_size_name(workspace) : std::string()) + "), " +
                      memory_size_name(static_cast<int64_t>(free)) + " free on " + dev_.label());
  MLC_CHECK_OK(allocate_device(arena_, arena, "arena"));
  MLC_CHECK_OK(allocate_device(io_, io_bytes, "arguments"));
  if (workspace) MLC_CHECK_OK(allocate_device(workspace_, workspace, "GEMM workspace"));
  status_ = io_ + static_cast<CUdeviceptr>(status_offset_);
  return allocate_staging();
}

Status CudaExecutor::allocate_staging() {
  if (staging_) cu_.cuMemFreeHost(staging_);
  staging_ = nullptr;
  if (status_offset_ == 0) return {};
  void* p = nullptr;
  if (const CUresult r = cu_.cuMemHostAlloc(&p, static_cast<size_t>(status_offset_), 0); r != kCudaSuccess)
    return make_error("function '" + exe_->function + "': " +
                      cu_.error_text("cuMemHostAlloc(" + memory_size_name(status_offset_) + " for the arguments)", r));
  staging_ = static_cast<std::byte*>(p);
  return {};
}

bool CudaExecutor::run_on_device_tensors(DeviceTensors* tensors) {
  if (!tensors || tensors->target() != kCudaTarget) return false;
  tensors_ = tensors;
  return true;
}

bool CudaExecutor::bound_to(std::span<Tensor* const> args) {
  if (!tensors_) return true;
  if (copy_.empty()) return tensors_->empty();
  for (size_t a = 0; a < args.size(); ++a) {
    DeviceTensors::Copy* c = tensors_->find(args[a]);
    if (c != copy_[a]) return false;
  }
  return true;
}

Status CudaExecutor::bind(std::span<Tensor* const> args) {
  copy_.assign(args.size(), nullptr);
  for (size_t a = 0; a < args.size(); ++a) copy_[a] = tensors_->find(args[a]);
  // The arguments' buffers again, for those not kept alone, with the status
  // words after them; every address that held an argument's changes.
  MLC_CHECK_OK(cu_.check(cu_.cuStreamSynchronize(stream_), "cuda: cuStreamSynchronize"));
  if (graph_exec_) cu_.cuGraphExecDestroy(graph_exec_);
  graph_exec_ = nullptr;
  const int64_t io_bytes = layout_arguments();
  if (io_) cu_.cuMemFree(io_);
  io_ = 0;
  MLC_CHECK_OK(allocate_device(io_, io_bytes, "arguments"));
  status_ = io_ + static_cast<CUdeviceptr>(status_offset_);
  MLC_CHECK_OK(allocate_staging());
  set_slot_addresses();
  MLC_CHECK_OK(prepare_instructions());
  if (collectives_) collectives_->set_addresses(slot_addr_);
  for (Download& d : downloads_) d.from = slot_addr_[static_cast<size_t>(d.slot)];
  return {};
}

void CudaExecutor::set_slot_addresses() {
  const Executable& e = *exe_;
  slot_addr_.assign(e.slots.size(), 0);
  for (size_t s = 0; s < e.slots.size(); ++s) {
    const Slot& slot = e.slots[s];
    CUdeviceptr base = arena_;
    if (slot.arg >= 0) {
      const auto a = static_cast<size_t>(slot.arg);
      base = !copy_.empty() && copy_[a] ? static_cast<CUdeviceptr>(copy_[a]->address)
                                        : io_ + static_cast<CUdeviceptr>(arg_offset_[a]);
    }
    slot_addr_[s] = base + static_cast<CUdeviceptr>(slot.offset);
  }
}

Status CudaExecutor::prepare_instructions() {
  const Executable& e = *exe_;
  const size_t n = e.instructions.size();
  launch_.clear();
  launch_.resize(n);
  gemm_.clear();
  gemm_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = e.instructions[i];
    if (ins.kind == InstrKind::kernel) {
      const KernelInfo& k = e.kernels[static_cast<size_t>(ins.kernel)];
      KernelLaunch& L = launch_[i];
      L.function = code_->functions[static_cast<size_t>(k.object)];
      L.grid = static_cast<unsigned>(k.launch.grid);
      L.block = static_cast<unsigned>(k.launch.block);
      L.combine_grid = static_cast<unsigned>(k.launch.combine_grid);
      for (int s : ins.operands) L.values.push_back(slot_addr_[static_cast<size_t>(s)]);
      L.values.push_back(slot_addr_[static_cast<size_t>(ins.result)]);
      for (int s : ins.more_results) L.values.push_back(slot_addr_[static_cast<size_t>(s)]);
      if (k.launch.two_phase()) L.values.push_back(arena_ + static_cast<CUdeviceptr>(e.scratch_offset));
      L.values.push_back(status_ + 4 * i);
      for (CUdeviceptr& v : L.values) L.params.push_back(&v);
      if (k.launch.two_phase()) {  // then the phase (runtime/executable.h GpuLaunch)
        L.combine_params = L.params;
        L.params.push_back(&L.phase[0]);
        L.combine_params.push_back(&L.phase[1]);
      }
    } else if (ins.kind == InstrKind::gemm) {
      const CublasLt& lt = *options_.cublaslt;
      if (!lt_handle_) MLC_CHECK_OK(lt.check(lt.cublasLtCreate(&lt_handle_), "cuda: cublasLtCreate on " + dev_.label()));
      GemmAddresses addresses{slot_addr_[static_cast<size_t>(ins.operands[0])],
                              slot_addr_[static_cast<size_t>(ins.operands[1])],
                              slot_addr_[static_cast<size_t>(ins.result)]};
      // An epilogue's operand and result (runtime/executable.h GemmEpilogue).
      if (epilogue_operands(ins.gemm.epilogue)) addresses.extra = slot_addr_[static_cast<size_t>(ins.operands[2])];
      if (!ins.more_results.empty()) addresses.more = slot_addr_[static_cast<size_t>(ins.more_results[0])];
      Expected<std::unique_ptr<CublasLtGemm>> g =
          CublasLtGemm::create(cu_, lt, lt_handle_, ins.gemm, addresses, kGemmWorkspaceBytes, options_.allow_tf32);
      if (!g.ok()) return at(i, g.error().message);
      gemm_[i] = std::move(g).value();
    } else if (ins.kind == InstrKind::copy) {
      // Overlapping but distinct ranges have no defined device copy.
      const CUdeviceptr from = slot_addr_[static_cast<size_t>(ins.operands[0])];
      const CUdeviceptr to = slot_addr_[static_cast<size_t>(ins.result)];
      const auto bytes = static_cast<CUdeviceptr>(e.slots[static_cast<size_t>(ins.result)].type.num_bytes());
      if (from != to && from < to + bytes && to < from + bytes)
        return at(i, "mlc internal error: copy " + ins.name + " between overlapping buffers");
    }
  }
  return {};
}

Status CudaExecutor::prepare_results() {
  const Executable& e = *exe_;
  updated_args_ = updated_arguments(e);
  int64_t host_bytes = 0;
  std::vector<int64_t> offset(e.results.size(), -1);
  for (size_t k = 0; k < e.results.size(); ++k) {
    const ResultSpec& r = e.results[k];
    if (e.slots[static_cast<size_t>(r.slot)].arg >= 0) continue;
    offset[k] = host_bytes;
    host_bytes += round_up(e.slots[static_cast<size_t>(r.slot)].type.num_bytes(), 64);
  }
  const int64_t status_offset = host_bytes;
  host_bytes += 4 * std::max<int64_t>(1, static_cast<int64_t>(e.instructions.size()));
  void* p = nullptr;
  if (const CUresult r = cu_.cuMemHostAlloc(&p, static_cast<size_t>(host_bytes), 0); r != kCudaSuccess)
    return make_error("function '" + e.function + "': " +
                      cu_.error_text("cuMemHostAlloc(" + memory_size_name(host_bytes) + " for the results)", r));
  host_ = static_cast<std::byte*>(p);
  status_host_ = reinterpret_cast<int*>(host_ + status_offset);
  for (size_t k = 0; k < e.results.size(); ++k) {
    const ResultSpec& r = e.results[k];
    const Slot& slot = e.slots[static_cast<size_t>(r.slot)];
    result_arg_.push_back(slot.arg);
    if (slot.arg >= 0) {
      results_.push_back(Tensor::view(slot.type, nullptr));  // the caller's tensor, bound by run
      continue;
    }
    std::byte* to = host_ + offset[k];
    results_.push_back(Tensor::view(slot.type, to));
    downloads_.push_back({slot_addr_[static_cast<size_t>(r.slot)], to, static_cast<size_t>(slot.type.num_bytes()), r.slot});
  }
  return {};
}

CudaExecutor::~CudaExecutor() {
  if (!stream_) return;  // nothing was made
  (void)dev_.make_current();
  cu_.cuStreamSynchronize(stream_);
  collectives_.reset();
  if (graph_exec_) cu_.cuGraphExecDestroy(graph_exec_);
  for (CUevent ev : events_) cu_.cuEventDestroy(ev);
  gemm_.clear();
  if (lt_handle_) options_.cublaslt->cublasLtDestroy(lt_handle_);
  if (host_) cu_.cuMemFreeHost(host_);
  if (staging_) cu_.cuMemFreeHost(staging_);
  for (CUdeviceptr p : {arena_, io_, workspace_})
    if (p) cu_.cuMemFree(p);
  cu_.cuStreamDestroy(stream_);
}

Status CudaExecutor::upload(std::span<Tensor* const> args) {
  for (size_t a = 0; a < args.size(); ++a) {
    const int64_t n = args[a]->num_bytes();
    DeviceTensors::Copy* kept = copy_.empty() ? nullptr : copy_[a];
    if (kept && !kept->host_newer) continue;  // the device copy is current
    if (n == 0) continue;
    // A kept tensor's rare upload comes from its own (pageable) memory; the
    // others go through the pinned staging buffer, so the copy is
    // asynchronous (the stream is idle: the last run was waited for).
    const std::byte* from = args[a]->bytes();
    CUdeviceptr to = 0;
    if (kept) {
      to = static_cast<CUdeviceptr>(kept->address);
    } else {
      to = io_ + static_cast<CUdeviceptr>(arg_offset_[a]);
      std::memcpy(staging_ + arg_offset_[a], from, static_cast<size_t>(n));
      from = staging_ + arg_offset_[a];
    }
    const CUresult r = cu_.cuMemcpyHtoDAsync(to, from, static_cast<size_t>(n), stream_);
    if (r == kCudaSuccess && kept) kept->host_newer = false;
    if (r != kCudaSuccess)
      return make_error("function '" + exe_->function + "': argument " + std::to_string(a) + " '" +
                        exe_->args[a].name + "': " + cu_.error_text("cuMemcpyHtoDAsync", r));
  }
  return {};
}

Status CudaExecutor::upload_staged() {
  const Executable& e = *exe_;
  for (size_t a = 0; a < e.args.size(); ++a) {
    if (arg_offset_[a] < 0) continue;  // kept: on its device copy
    const auto n = static_cast<size_t>(e.slots[static_cast<size_t>(e.args[a].slot)].type.num_bytes());
    if (n == 0) continue;
    MLC_CHECK_OK(cu_.check(cu_.cuMemcpyHtoDAsync(io_ + static_cast<CUdeviceptr>(arg_offset_[a]), staging_ + arg_offset_[a],
                                                 n, stream_),
                           "cuda: cuMemcpyHtoDAsync(argument " + std::to_string(a) + ")"));
  }
  return {};
}

Status CudaExecutor::synchronize(std::string_view after) {
  const CUresult r = cu_.cuStreamSynchronize(stream_);
  if (r == kCudaSuccess) return {};
  std::string hint = graph_exec_ && !profile_
                         ? "; the step ran as a CUDA graph, which hides the failing instruction: rerun with "
                           "--no-graph and CUDA_LAUNCH_BLOCKING=1 to name it"
                         : "; rerun with CUDA_LAUNCH_BLOCKING=1 to name the failing instruction";
  return make_error("function '" + exe_->function + "': " + dev_.label() + ", " + std::string(after) + ": " +
                    cu_.error_text("cuStreamSynchronize", r) + hint);
}

Status CudaExecutor::enqueue(size_t i) {
  const Executable& e = *exe_;
  const Instruction& ins = e.instructions[i];
  switch (ins.kind) {
    case InstrKind::kernel: {
      KernelLaunch& L = launch_[i];
      // A two-phase kernel: phase 0, then phase 1 after it on the stream.
      CUresult r = cu_.cuLaunchKernel(L.function, L.grid, 1, 1, L.block, 1, 1, 0, stream_, L.params.data(), nullptr);
      if (r == kCudaSuccess && L.combine_grid > 0)
        r = cu_.cuLaunchKernel(L.function, L.combine_grid, 1, 1, L.block, 1, 1, 0, stream_, L.combine_params.data(),
                               nullptr);
      if (r == kCudaSuccess) return {};
      const KernelInfo& k = e.kernels[static_cast<size_t>(ins.kernel)];
      return at(i, "kernel " + k.name + (k.origin.empty() ? "" : " (" + k.origin + ")") + " on " + dev_.label() +
                       ": " + cu_.error_text("cuLaunchKernel", r));
    }
    case InstrKind::gemm: {
      const CUdeviceptr c = slot_addr_[static_cast<size_t>(ins.result)];
      if (ins.gemm.updates()) {
        const CUdeviceptr x = slot_addr_[static_cast<size_t>(ins.operands[2])];
        const auto bytes = static_cast<size_t>(e.slots[static_cast<size_t>(ins.result)].type.num_bytes());
        if (x != c && bytes)
          if (const CUresult r = cu_.cuMemcpyDtoDAsync(c, x, bytes, stream_); r != kCudaSuccess)
            return at(i, ins.name + ": " + cu_.error_text("cuMemcpyDtoDAsync", r));
      }
      Status s = gemm_[i]->run(stream_, slot_addr_[static_cast<size_t>(ins.operands[0])],
                               slot_addr_[static_cast<size_t>(ins.operands[1])], c, workspace_);
      if (!s) return at(i, s.error().message);
      return {};
    }
    case InstrKind::copy: {
      const CUdeviceptr from = slot_addr_[static_cast<size_t>(ins.operands[0])];
      const CUdeviceptr to = slot_addr_[static_cast<size_t>(ins.result)];
      const auto bytes = static_cast<size_t>(e.slots[static_cast<size_t>(ins.result)].type.num_bytes());
      if (!bytes || from == to) return {};
      if (const CUresult r = cu_.cuMemcpyDtoDAsync(to, from, bytes, stream_); r != kCudaSuccess)
        return at(i, ins.name + ": " + cu_.error_text("cuMemcpyDtoDAsync", r));
      return {};
    }
    case InstrKind::collective:
      return collectives_->enqueue(i, stream_, capturing_);
    case InstrKind::reference:
      break;
  }
  return at(i, "mlc internal error: an instruction the cuda target refused at creation");
}

Status CudaExecutor::enqueue_list(size_t end) {
  const size_t words = std::max<size_t>(1, exe_->instructions.size());
  MLC_CHECK_OK(cu_.check(cu_.cuMemsetD32Async(status_, 0, words, stream_), "cuda: cuMemsetD32Async(status words)"));
  for (size_t i = 0; i < end; ++i) MLC_CHECK_OK(enqueue(i));
  return {};
}

Status CudaExecutor::enqueue_profiled() {
  const size_t n = exe_->instructions.size();
  const size_t words = std::max<size_t>(1, n);
  MLC_CHECK_OK(cu_.check(cu_.cuMemsetD32Async(status_, 0, words, stream_), "cuda: cuMemsetD32Async(status words)"));
  MLC_CHECK_OK(cu_.check(cu_.cuEventRecord(events_[0], stream_), "cuda: cuEventRecord"));
  for (size_t i = 0; i < n; ++i) {
    MLC_CHECK_OK(enqueue(i));
    MLC_CHECK_OK(cu_.check(cu_.cuEventRecord(events_[i + 1], stream_), "cuda: cuEventRecord"));
  }
  return {};
}

Status CudaExecutor::capture_graph() {
  MLC_CHECK_OK(cu_.check(cu_.cuStreamBeginCapture(stream_, kCaptureModeThreadLocal),
                         "cuda: cuStreamBeginCapture on " + dev_.label()));
  capturing_ = true;
  Status listed = enqueue_list(exe_->instructions.size());
  capturing_ = false;
  CUgraph graph = nullptr;
  // Ended even after a failure, so that the stream leaves capture mode.
  const CUresult ended = cu_.cuStreamEndCapture(stream_, &graph);
  if (!listed) {
    if (graph) cu_.cuGraphDestroy(graph);
    return listed;
  }
  MLC_CHECK_OK(cu_.check(ended, "cuda: cuStreamEndCapture on " + dev_.label()));
  const CUresult r = cu_.cuGraphInstantiateWithFlags(&graph_exec_, graph, 0);
  cu_.cuGraphDestroy(graph);
  if (r != kCudaSuccess) {
    graph_exec_ = nullptr;
    return cu_.error("function '" + exe_->function + "': cuGraphInstantiateWithFlags on " + dev_.label(), r);
  }
  return {};
}

void CudaExecutor::enable_profiling() {
  profile_ = std::make_unique<ExecutionProfile>();
  profile_->calls.assign(exe_->instructions.size(), 0);
  profile_->ns.assign(exe_->instructions.size(), 0);
  // The events, once; a failure to make them is the next run's error.
  if (events_.empty() && dev_.make_current().ok())
    for (size_t i = 0; i <= exe_->instructions.size(); ++i) {
      CUevent ev = nullptr;
      if (cu_.cuEventCreate(&ev, kEventDefault) != kCudaSuccess) break;
      events_.push_back(ev);
    }
}

Status CudaExecutor::add_profile() {
  ExecutionProfile& p = *profile_;
  int64_t before = 0;  // ns from events_[0] to events_[i]
  for (size_t i = 0; i < p.ns.size(); ++i) {
    float ms = 0;
    MLC_CHECK_OK(cu_.check(cu_.cuEventElapsedTime(&ms, events_[0], events_[i + 1]), "cuda: cuEventElapsedTime"));
    const int64_t t = std::max(before, static_cast<int64_t>(std::llround(static_cast<double>(ms) * 1e6)));
    p.ns[i] += t - before;
    ++p.calls[i];
    before = t;
  }
  p.run_ns += before;
  ++p.runs;
  return {};
}

Error CudaExecutor::index_error(size_t instruction) {
  const Executable& e = *exe_;
  const KernelInfo& k = e.kernels[static_cast<size_t>(e.instructions[instruction].kernel)];
  // Collectives before it would wait for peers that do not run them again.
  if (collectives_ && collectives_->communicates_before(instruction)) {
    const std::string origin = k.origin.empty() ? "" : " (" + k.origin + ")";
    return at(instruction, "kernel " + k.name + origin +
                               ": an index out of range (the step's collectives before this kernel cannot run "
                               "again alone to find which; run on the CPU to name it)");
  }
  // Run the list again up to the kernel: the run's own uploads (still in the
  // staging buffer; the caller may have refilled its tensors since start)
  // give it the same indices, which are then read back.
  Status s = upload_staged();
  if (s) s = enqueue_list(instruction);
  std::vector<std::vector<std::byte>> copies(k.types.size());
  std::vector<const std::byte*> buffers(k.types.size(), nullptr);
  for (const IndexCheck& c : k.index_checks) {
    const auto input = static_cast<size_t>(c.input);
    if (!s || buffers[input]) continue;
    copies[input].resize(static_cast<size_t>(k.types[input].num_bytes()));
    buffers[input] = copies[input].data();
    if (copies[input].empty()) continue;
    if (const CUresult r = cu_.cuMemcpyDtoHAsync(copies[input].data(), launch_[instruction].values[input],
                                                 copies[input].size(), stream_);
        r != kCudaSuccess)
      s = cu_.error("cuda: cuMemcpyDtoHAsync(kernel " + k.name + "'s indices)", r);
  }
  const Status synced = synchronize("reading the indices of kernel " + k.name);
  if (!s) return s.take_error();
  if (!synced.ok()) return synced.error();
  return index_out_of_range(k, buffers.data());
}

Status CudaExecutor::run(std::span<Tensor* const> args) {
  MLC_CHECK_OK(start(args));
  return finish();
}

Status CudaExecutor::start(std::span<Tensor* const> args) {
  const Executable& e = *exe_;
  const size_t n = e.instructions.size();
  if (started_) return make_error("mlc internal error: function '" + e.function + "' started twice");
  MLC_CHECK_OK(dev_.make_current());
  if (!bound_to(args)) MLC_CHECK_OK(bind(args));
  if (collectives_) MLC_CHECK_OK(collectives_->bind(world_));
  if (profile_ && events_.size() != n + 1)
    return make_error("function '" + e.function + "': cuda: cuEventCreate failed for profiling on " + dev_.label());
  // The graph is captured before this run's uploads are enqueued: it holds the
  // list alone, replayed after them.
  if (!profile_ && options_.graph && runs_ >= 1 && !graph_exec_ && !capture_graph().ok())
    options_.graph = false;  // a capture the driver or cuBLASLt refuses: every run launches eagerly
  const bool graph = !profile_ && graph_exec_;
  Status listed = upload(args);
  if (listed) {
    if (profile_)
      listed = enqueue_profiled();
    else if (graph)
      listed = cu_.check(cu_.cuGraphLaunch(graph_exec_, stream_),
                         "function '" + e.function + "': cuGraphLaunch on " + dev_.label());
    else
      listed = enqueue_list(n);
  }
  if (listed)
    listed = cu_.check(cu_.cuMemcpyDtoHAsync(status_host_, status_, 4 * std::max<size_t>(1, n), stream_),
                       "cuda: cuMemcpyDtoHAsync(status words)");
  if (!listed) {
    (void)cu_.cuStreamSynchronize(stream_);
    return listed;
  }
  std::copy(args.begin(), args.end(), pending_.begin());
  started_ = true;
  return {};
}

Status CudaExecutor::finish() {
  if (!started_) return {};
  started_ = false;
  const Executable& e = *exe_;
  const size_t n = e.instructions.size();
  const std::span<Tensor* const> args(pending_);
  MLC_CHECK_OK(dev_.make_current());
  if (collectives_)
    if (Status waited = collectives_->wait(stream_); !waited) {
      (void)cu_.cuStreamSynchronize(stream_);
      return waited;
    }
  const Status ran = synchronize("running the instructions");
  // Updated even by a failing run (its updated arguments may hold partial values).
  for (int a : updated_args_)
    if (!copy_.empty() && copy_[static_cast<size_t>(a)]) copy_[static_cast<size_t>(a)]->device_newer = true;
  MLC_CHECK_OK(ran);
  ++runs_;
  if (profile_) MLC_CHECK_OK(add_profile());
  for (size_t i = 0; i < n; ++i)
    if (status_host_[i] != 0) {
      if (e.instructions[i].kind != InstrKind::kernel)
        return at(i, "mlc internal error: the status word of a " + std::string(instr_kind_name(e.instructions[i].kind)) +
                         " instruction is set");
      return index_error(i);
    }
  for (int a : updated_args_) {
    Tensor& t = *args[static_cast<size_t>(a)];
    if (t.num_bytes() == 0 || (!copy_.empty() && copy_[static_cast<size_t>(a)])) continue;
    MLC_CHECK_OK(cu_.check(cu_.cuMemcpyDtoHAsync(t.bytes(), io_ + static_cast<CUdeviceptr>(arg_offset_[static_cast<size_t>(a)]),
                                                 static_cast<size_t>(t.num_bytes()), stream_),
                           "cuda: cuMemcpyDtoHAsync(argument " + std::to_string(a) + ")"));
  }
  for (const Download& d : downloads_)
    if (d.bytes)
      MLC_CHECK_OK(cu_.check(cu_.cuMemcpyDtoHAsync(d.to, d.from, d.bytes, stream_), "cuda: cuMemcpyDtoHAsync(result)"));
  MLC_CHECK_OK(synchronize("downloading the results"));
  for (size_t k = 0; k < results_.size(); ++k)
    if (const int a = result_arg_[k]; a >= 0)
      results_[k].rebind(args[static_cast<size_t>(a)]->bytes() + e.slots[static_cast<size_t>(e.results[k].slot)].offset);
  return {};
}

}  // namespace mlc::rt::cuda
