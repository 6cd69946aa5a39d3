#include "runtime/executor.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "ir/collectives.h"
#include "ir/diagnostics.h"
#include "runtime/collective_run.h"
#include "runtime/kernels/kernels.h"
#include "runtime/thread_pool.h"
#include "runtime/verify_executable.h"

namespace mlc::rt {

std::string_view instr_kind_name(InstrKind k) {
  switch (k) {
    case InstrKind::kernel: return "kernel";
    case InstrKind::gemm: return "gemm";
    case InstrKind::reference: return "reference";
    case InstrKind::copy: return "copy";
  }
  return "?";
}

// Threads for a kernel: whole rows each, and at least kMinThreadCost scalar
// evaluations per thread (about 5 us of the scalar gathers of unfold, fold and
// pooling, 1 us of a vectorized elementwise kernel), so that handing a share
// to a worker (about a microsecond; workers spin between a step's kernels)
// stays small against the work it is given.
int kernel_threads(const KernelInfo& k, int threads) {
  constexpr int64_t kMinThreadCost = 8192;
  int64_t by_cost = k.rows * k.row_cost / kMinThreadCost;
  int64_t parts = std::min<int64_t>({threads, k.rows, by_cost});
  return parts < 1 ? 1 : static_cast<int>(parts);
}

namespace {

// The memory a new allocation can get without swapping: /proc/meminfo's
// MemAvailable (free memory and what the kernel can reclaim), else the free
// pages sysconf counts, else no limit (unknown).
int64_t available_memory_bytes() {
  if (std::FILE* f = std::fopen("/proc/meminfo", "r")) {
    char line[256];
    long long kib = -1;
    while (kib < 0 && std::fgets(line, sizeof line, f))
      if (std::sscanf(line, "MemAvailable: %lld kB", &kib) != 1) kib = -1;
    std::fclose(f);
    if (kib >= 0 && kib < std::numeric_limits<int64_t>::max() / 1024) return static_cast<int64_t>(kib) * 1024;
  }
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0 && pages < std::numeric_limits<int64_t>::max() / page) return int64_t{pages} * page;
  return std::numeric_limits<int64_t>::max();
}

}  // namespace

void Executor::ArenaFree::operator()(std::byte* p) const { std::free(p); }

Expected<Executor> Executor::create(std::shared_ptr<const Executable> exe) {
  MLC_CHECK_OK(verify_executable(*exe));
  Executor x;
  x.exe_ = std::move(exe);
  const Executable& e = *x.exe_;
  x.arena_bytes_ = e.arena_bytes;
  // Refused before it is allocated (and zeroed, which touches every page).
  if (const int64_t available = available_memory_bytes(); e.arena_bytes > available)
    return make_error("function '" + e.function + "' needs an arena of " + std::to_string(e.arena_bytes) +
                      " bytes, more than the " + std::to_string(available) + " bytes of memory available");
  size_t alloc = static_cast<size_t>(std::max<int64_t>(64, (e.arena_bytes + 63) / 64 * 64));
  void* p = std::aligned_alloc(64, alloc);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, alloc);
  x.arena_.reset(static_cast<std::byte*>(p));

  x.slot_ptr_.assign(e.slots.size(), nullptr);
  x.arg_slots_.assign(e.args.size(), {});
  for (size_t s = 0; s < e.slots.size(); ++s) {
    const Slot& slot = e.slots[s];
    if (slot.arg >= 0)
      x.arg_slots_[slot.arg].push_back(static_cast<int>(s));
    else
      x.slot_ptr_[s] = x.arena_.get() + slot.offset;
  }
  for (const ConstantData& c : e.constants)
    if (!c.bytes.empty()) std::memcpy(x.slot_ptr_[c.slot], c.bytes.data(), c.bytes.size());
  x.buffers_.resize(e.instructions.size());
  // Each gemm's library (see bench/results/gemm_libs.md): libxsmm for small
  // products where it has a kernel, oneDNN for large ones, else OpenBLAS.
  x.onednn_.resize(e.instructions.size());
  x.xsmm_.resize(e.instructions.size());
  x.half_gemm_.resize(e.instructions.size());
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const Instruction& ins = e.instructions[i];
    if (ins.kind != InstrKind::gemm) continue;
    const GemmParams& p = ins.gemm;
    const blas::DotShape& d = p.shape;
    const int parts = blas::dot_threads(d, thread_pool().threads());
    // libxsmm 1.17's kernels take alpha = 1 and beta = 0 or 1 only.
    if (XsmmGemm::preferred(d, p.dtype) && !p.updates()) x.xsmm_[i] = XsmmGemm::create(d, parts);
    if (x.xsmm_[i] || !OneDnnGemm::preferred(d, p.dtype)) continue;
    Expected<OneDnnGemm> g = OneDnnGemm::create(d, parts, p.alpha, p.beta, p.dtype);
    // bf16 and f16 without a oneDNN kernel on this CPU: the interpreter's f32 path.
    if (!g && (p.dtype == DType::bf16 || p.dtype == DType::f16)) {
      x.half_gemm_[i].emplace(d, p.dtype);
      continue;
    }
    if (!g) return g.error();
    x.onednn_[i].emplace(std::move(*g));
  }
  x.views_.resize(e.instructions.size());
  x.view_ptrs_.resize(e.instructions.size());
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const Instruction& ins = e.instructions[i];
    x.buffers_[i].assign(ins.operands.size() + 1 + ins.more_results.size(), nullptr);
    if (ins.kind == InstrKind::reference) {
      for (int s : ins.operands) x.views_[i].push_back(Tensor::view(e.slots[s].type, nullptr));
      x.views_[i].push_back(Tensor::view(e.slots[ins.result].type, nullptr));
      for (size_t k = 0; k < ins.operands.size(); ++k) x.view_ptrs_[i].push_back(&x.views_[i][k]);
    }
  }
  for (const ResultSpec& r : e.results) x.results_.push_back(Tensor::view(e.slots[r.slot].type, nullptr));
  x.bound_.assign(e.args.size(), nullptr);
  x.bind({});
  return x;
}

void Executor::bind(std::span<Tensor* const> args) {
  const Executable& e = *exe_;
  for (size_t a = 0; a < args.size(); ++a) {
    bound_[a] = args[a]->bytes();
    for (int s : arg_slots_[a]) slot_ptr_[s] = bound_[a] + e.slots[s].offset;
  }
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const Instruction& ins = e.instructions[i];
    std::vector<std::byte*>& b = buffers_[i];
    const size_t n = ins.operands.size();
    for (size_t k = 0; k < n; ++k) b[k] = slot_ptr_[ins.operands[k]];
    b[n] = slot_ptr_[ins.result];
    for (size_t k = 0; k < ins.more_results.size(); ++k) b[n + 1 + k] = slot_ptr_[ins.more_results[k]];
    if (ins.kind == InstrKind::reference)
      for (size_t k = 0; k < b.size(); ++k) views_[i][k].rebind(b[k]);
  }
  for (size_t k = 0; k < results_.size(); ++k) results_[k].rebind(slot_ptr_[e.results[k].slot]);
}

Status Executor::run(std::span<Tensor* const> args) {
  const Executable& e = *exe_;
  if (args.size() != e.args.size())
    return make_error("function '" + e.function + "' expects " + std::to_string(e.args.size()) +
                      " argument" + (e.args.size() == 1 ? "" : "s") + ", got " +
                      std::to_string(args.size()));
  bool changed = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& spec = e.args[i];
    auto what = [&] { return "argument " + std::to_string(i) + (spec.name.empty() ? "" : " '" + spec.name + "'"); };
    if (!args[i]) return make_error(what() + ": no tensor given");
    const TensorType& want = e.slots[spec.slot].type;
    if (args[i]->type() != want)
      return make_error(what() + ": expected " + want.str() + ", got " + args[i]->type().str());
    changed |= args[i]->bytes() != bound_[i];
  }
  if (changed) bind(args);
  if (profile_) return run_profiled();
  for (size_t i = 0; i < e.instructions.size(); ++i) MLC_CHECK_OK(execute(e.instructions[i], i));
  return {};
}

void Executor::enable_profiling() {
  profile_ = std::make_unique<ExecutionProfile>();
  profile_->calls.assign(exe_->instructions.size(), 0);
  profile_->ns.assign(exe_->instructions.size(), 0);
}

Status Executor::run_profiled() {
  using Clock = std::chrono::steady_clock;
  const std::vector<Instruction>& list = exe_->instructions;
  ExecutionProfile& p = *profile_;
  const Clock::time_point start = Clock::now();
  Clock::time_point t = start;
  Status status;
  for (size_t i = 0; i < list.size() && status; ++i) {
    status = execute(list[i], i);
    const Clock::time_point next = Clock::now();
    p.ns[i] += std::chrono::duration_cast<std::chrono::nanoseconds>(next - t).count();
    ++p.calls[i];
    t = next;
  }
  // Counted even when an instruction failed, so that the instructions' sum
  // stays within run_ns.
  p.run_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(t - start).count();
  ++p.runs;
  return status;
}

Status Executor::execute(const Instruction& ins, size_t index) {
  const std::vector<std::byte*>& b = buffers_[index];
  switch (ins.kind) {
    case InstrKind::kernel: {
      const KernelInfo& k = exe_->kernels[ins.kernel];
      ThreadPool& pool = thread_pool();
      int parts = kernel_threads(k, pool.threads());
      if (parts <= 1) {
        k.fn(b.data(), 0, k.rows);
        return {};
      }
      auto share = [&](int t) {
        int64_t begin, end;
        split_range(k.rows, parts, t, begin, end);
        k.fn(b.data(), begin, end);
      };
      pool.parallel(parts, share);
      return {};
    }
    case InstrKind::gemm: {
      const GemmParams& g = ins.gemm;
      ThreadPool& pool = thread_pool();
      std::byte* c = b.back();
      if (g.updates() && b[2] != c) std::memcpy(c, b[2], static_cast<size_t>(exe_->slots[ins.result].type.num_bytes()));
      // A library's shares of a gemm, one per thread (OneDnnGemm: f32, bf16, f16; XsmmGemm: f32).
      auto run_shares = [&](const auto& library) {
        auto share = [&](int t) {
          library.run(t, reinterpret_cast<const float*>(b[0]), reinterpret_cast<const float*>(b[1]),
                      reinterpret_cast<float*>(c));
        };
        pool.parallel(library.parts(), share);
      };
      if (const std::optional<OneDnnGemm>& dnn = onednn_[index]) {
        run_shares(*dnn);
        return {};
      }
      if (const std::optional<XsmmGemm>& xsmm = xsmm_[index]) {
        run_shares(*xsmm);
        return {};
      }
      if (std::optional<HalfGemm>& half = half_gemm_[index]) {
        half->run(b[0], b[1], c, pool);
        return {};
      }
      const int parts = blas::dot_threads(g.shape, pool.threads());
      auto share = [&](int t) {
        if (g.dtype == DType::f64)
          blas::dot_part(g.shape, parts, t, reinterpret_cast<const double*>(b[0]),
                         reinterpret_cast<const double*>(b[1]), reinterpret_cast<double*>(c), g.alpha, g.beta);
        else
          blas::dot_part(g.shape, parts, t, reinterpret_cast<const float*>(b[0]),
                         reinterpret_cast<const float*>(b[1]), reinterpret_cast<float*>(c), g.alpha, g.beta);
      };
      pool.parallel(parts, share);
      return {};
    }
    case InstrKind::reference: {
      // A collective's errors name it (its tag has the op's location) and the ranks.
      if (world_ && uses_mesh_axis(ins.op->code))
        return run_collective(*ins.op, *world_, view_ptrs_[index], views_[index].back());
      Status st = reference_kernel(ins.op->code)(*ins.op, view_ptrs_[index], views_[index].back());
      if (!st) return error_at(ins.loc, st.error().message);
      return {};
    }
    case InstrKind::copy: {
      int64_t n = exe_->slots[ins.result].type.num_bytes();
      if (n && b[1] != b[0]) std::memmove(b[1], b[0], static_cast<size_t>(n));
      return {};
    }
  }
  return {};
}

}  // namespace mlc::rt
