#include "runtime/cpu/cpu_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>

#include "ir/diagnostics.h"
#include "runtime/collective_run.h"
#include "runtime/cpu/cpu_gemm.h"
#include "runtime/gemm_epilogue.h"
#include "runtime/kernels/kernels.h"
#include "runtime/thread_pool.h"

namespace mlc::rt {

void CpuExecutor::ArenaFree::operator()(std::byte* p) const { std::free(p); }

Expected<std::unique_ptr<CpuExecutor>> CpuExecutor::create(std::shared_ptr<const Executable> exe,
                                                           std::unique_ptr<KernelLauncher> launcher,
                                                           int64_t arena_base_alignment) {
  std::unique_ptr<CpuExecutor> x(new CpuExecutor);
  x->exe_ = std::move(exe);
  x->launcher_ = std::move(launcher);
  const Executable& e = *x->exe_;
  const int64_t align = arena_base_alignment;
  x->arena_alloc_bytes_ = std::max<int64_t>(align, (e.arena_bytes + align - 1) / align * align);
  void* p = std::aligned_alloc(static_cast<size_t>(align), static_cast<size_t>(x->arena_alloc_bytes_));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, static_cast<size_t>(x->arena_alloc_bytes_));
  x->arena_.reset(static_cast<std::byte*>(p));

  x->slot_ptr_.assign(e.slots.size(), nullptr);
  x->arg_slots_.assign(e.args.size(), {});
  for (size_t s = 0; s < e.slots.size(); ++s) {
    const Slot& slot = e.slots[s];
    if (slot.arg >= 0)
      x->arg_slots_[slot.arg].push_back(static_cast<int>(s));
    else
      x->slot_ptr_[s] = x->arena_.get() + slot.offset;
  }
  for (const ConstantData& c : e.constants)
    if (!c.bytes.empty()) std::memcpy(x->slot_ptr_[c.slot], c.bytes.data(), c.bytes.size());
  x->buffers_.resize(e.instructions.size());
  x->gemm_.resize(e.instructions.size());
  x->product_.resize(e.instructions.size());
  x->views_.resize(e.instructions.size());
  x->view_ptrs_.resize(e.instructions.size());
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const Instruction& ins = e.instructions[i];
    x->buffers_[i].assign(ins.operands.size() + 1 + ins.more_results.size(), nullptr);
    if (ins.kind == InstrKind::gemm) {
      MLC_TRY(x->gemm_[i], make_cpu_gemm(ins.gemm, thread_pool().threads()));
      if (is_half(ins.gemm.dtype) && ins.gemm.epilogue != GemmEpilogue::none)
        x->product_[i].resize(static_cast<size_t>(ins.gemm.shape.batch * ins.gemm.shape.m * ins.gemm.shape.n));
    }
    if (ins.kind == InstrKind::reference || ins.kind == InstrKind::collective) {
      for (int s : ins.operands) x->views_[i].push_back(Tensor::view(e.slots[s].type, nullptr));
      x->views_[i].push_back(Tensor::view(e.slots[ins.result].type, nullptr));
      for (size_t k = 0; k < ins.operands.size(); ++k) x->view_ptrs_[i].push_back(&x->views_[i][k]);
    }
  }
  for (const ResultSpec& r : e.results) x->results_.push_back(Tensor::view(e.slots[r.slot].type, nullptr));
  x->bound_.assign(e.args.size(), nullptr);
  x->arg_regions_.assign(e.args.size(), HostRegion{});
  MLC_CHECK_OK(x->bind({}));
  return x;
}

Status CpuExecutor::bind(std::span<Tensor* const> args) {
  const Executable& e = *exe_;
  for (size_t a = 0; a < args.size(); ++a) {
    bound_[a] = args[a]->bytes();
    arg_regions_[a] = {bound_[a], args[a]->num_bytes()};
    for (int s : arg_slots_[a]) slot_ptr_[s] = bound_[a] + e.slots[s].offset;
  }
  for (size_t i = 0; i < e.instructions.size(); ++i) {
    const Instruction& ins = e.instructions[i];
    std::vector<std::byte*>& b = buffers_[i];
    const size_t n = ins.operands.size();
    for (size_t k = 0; k < n; ++k) b[k] = slot_ptr_[ins.operands[k]];
    b[n] = slot_ptr_[ins.result];
    for (size_t k = 0; k < ins.more_results.size(); ++k) b[n + 1 + k] = slot_ptr_[ins.more_results[k]];
    if (!views_[i].empty())
      for (size_t k = 0; k < b.size(); ++k) views_[i][k].rebind(b[k]);
  }
  for (size_t k = 0; k < results_.size(); ++k) results_[k].rebind(slot_ptr_[e.results[k].slot]);
  Status st = launcher_->bind({arena_.get(), arena_alloc_bytes_}, arg_regions_);
  if (!st) std::fill(bound_.begin(), bound_.end(), nullptr);  // so that the next run binds again
  return st;
}

Status CpuExecutor::run(std::span<Tensor* const> args) {
  bool changed = false;
  for (size_t i = 0; i < args.size(); ++i) changed |= args[i]->bytes() != bound_[i];
  if (changed) MLC_CHECK_OK(bind(args));
  if (profile_) return run_profiled();
  const std::vector<Instruction>& list = exe_->instructions;
  for (size_t i = 0; i < list.size(); ++i) MLC_CHECK_OK(execute(list[i], i));
  return {};
}

void CpuExecutor::enable_profiling() {
  profile_ = std::make_unique<ExecutionProfile>();
  profile_->calls.assign(exe_->instructions.size(), 0);
  profile_->ns.assign(exe_->instructions.size(), 0);
}

Status CpuExecutor::run_profiled() {
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

Status CpuExecutor::execute(const Instruction& ins, size_t index) {
  const std::vector<std::byte*>& b = buffers_[index];
  switch (ins.kind) {
    case InstrKind::kernel:
      return launcher_->launch(static_cast<size_t>(ins.kernel), exe_->kernels[ins.kernel], b.data(), b.size());
    case InstrKind::gemm: {
      const GemmKernel& g = *gemm_[index];
      const size_t n = ins.operands.size();
      std::byte* c = b[n];
      if (ins.gemm.updates() && b[2] != c)
        std::memcpy(c, b[2], static_cast<size_t>(exe_->slots[ins.result].type.num_bytes()));
      // A bf16 or f16 gemm with an epilogue writes its f32 product apart (runtime/cpu/cpu_gemm.h).
      std::byte* product = product_[index].empty() ? c : reinterpret_cast<std::byte*>(product_[index].data());
      if (g.parts() <= 1) {
        g.run(0, b[0], b[1], product);
      } else {
        auto share = [&](int t) { g.run(t, b[0], b[1], product); };
        thread_pool().parallel(g.parts(), share);
      }
      // The epilogue (runtime/gemm_epilogue.h): its operand after a and b, its result after c.
      if (ins.gemm.epilogue != GemmEpilogue::none)
        apply_gemm_epilogue(ins.gemm, b[0], n > 2 ? b[2] : nullptr, reinterpret_cast<float*>(product), c,
                            b.size() > n + 1 ? b[n + 1] : nullptr);
      return {};
    }
    case InstrKind::collective:
      // Its errors name it (its tag has the op's location) and the ranks.
      if (!world_) return error_at(ins.loc, std::string(collective_kind_name(ins.collective.kind)) +
                                    ": runs only on a device mesh (the program was started without a communicator)");
      return run_collective(ins.collective, *world_, view_ptrs_[index], views_[index].back());
    case InstrKind::reference: {
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
