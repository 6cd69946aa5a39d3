#include "runtime/host_gpu/opencl_launcher.h"

#include <algorithm>
#include <atomic>
#include <limits>

#include "runtime/host_gpu/host_gpu_target.h"
#include "runtime/index_check.h"

namespace mlc::rt {

namespace {

// kir::kIndexOutOfRange (compiler/kernel_ir.h), which runtime/ cannot include.
constexpr int kStatusIndexOutOfRange = 1;

std::atomic<int64_t> g_created{0}, g_released{0};

}  // namespace

HostGpuBufferCounts host_gpu_argument_buffers() {
  const int64_t released = g_released.load(std::memory_order_relaxed);
  const int64_t created = g_created.load(std::memory_order_relaxed);
  return {created, created - released};
}

Expected<std::unique_ptr<OpenClLauncher>> OpenClLauncher::create(const Executable& e,
                                                                 std::shared_ptr<const HostGpuCode> code) {
  std::unique_ptr<OpenClLauncher> l(new OpenClLauncher);
  l->function_ = e.function;
  l->scratch_offset_ = e.scratch_offset;
  if (e.kernels.empty()) return l;
  l->code_ = std::move(code);
  for (const KernelInfo& k : e.kernels)
    if (!l->code_ || k.object >= static_cast<int>(l->code_->programs.size()))
      return make_error("function '" + e.function + "': kernel '" + k.name + "' has no loaded code");
  const ocl::Device& d = *l->code_->device;
  MLC_TRY(l->queue_, d.make_queue());
  for (const KernelInfo& k : e.kernels) {
    const std::string& symbol = l->code_->symbols[static_cast<size_t>(k.object)];
    const std::string at = "host-gpu: function '" + e.function + "': kernel '" + k.name + "' (" + symbol + ")";
    MLC_TRY(ocl::Kernel kernel, d.make_kernel(l->code_->programs[static_cast<size_t>(k.object)].get(), symbol));
    const GpuLaunch& g = k.launch;
    // At least one block of one thread: runtime/verify_executable.h checked it.
    if (static_cast<size_t>(g.block) > d.max_work_group_size() ||
        g.grid > std::numeric_limits<int64_t>::max() / g.block)
      return make_error(at + ": launches " + std::to_string(g.grid) + " blocks of " + std::to_string(g.block) +
                        " threads; OpenCL device '" + d.name() + "' runs blocks of at most " +
                        std::to_string(d.max_work_group_size()));
    size_t required[3] = {0, 0, 0};
    if (cl_int err = clGetKernelWorkGroupInfo(kernel.get(), d.id(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof required,
                                              required, nullptr);
        err != CL_SUCCESS)
      return ocl::call_error("kernel " + symbol + ": clGetKernelWorkGroupInfo", err);
    if (required[0] != 0 && (required[0] != static_cast<size_t>(g.block) || required[1] != 1 || required[2] != 1))
      return make_error(at + ": its code requires blocks of " + std::to_string(required[0]) + "x" +
                        std::to_string(required[1]) + "x" + std::to_string(required[2]) +
                        " threads, its launch has blocks of " + std::to_string(g.block));
    cl_uint args = 0;
    if (cl_int err = clGetKernelInfo(kernel.get(), CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr); err != CL_SUCCESS)
      return ocl::call_error("kernel " + symbol + ": clGetKernelInfo", err);
    const size_t buffers = k.types.size();
    const size_t expected = 2 * buffers + 1 + (g.two_phase() ? 3 : 0);
    if (args != expected)
      return make_error(at + ": takes " + std::to_string(args) + " arguments, expected " + std::to_string(expected) +
                        " (a buffer and an offset for each of its " + std::to_string(buffers) + " buffers, " +
                        (g.two_phase() ? "a buffer and an offset for the scratch, the status word and the phase)"
                                       : "then the status word)"));
    l->kernels_.push_back(std::move(kernel));
  }
  l->status_ = std::make_unique<int>(0);
  MLC_TRY(l->status_mem_, d.wrap_host(reinterpret_cast<std::byte*>(l->status_.get()), sizeof(int), l->queue_.get()));
  cl_int err = CL_SUCCESS;
  l->empty_mem_.reset(clCreateBuffer(d.context(), CL_MEM_READ_WRITE, 64, nullptr, &err));
  if (err != CL_SUCCESS) return ocl::call_error("clCreateBuffer", err);
  l->bound_.reserve(e.args.size());
  l->cache_.reserve(e.args.size() + kHostGpuSpareArgumentBuffers + 1);
  return l;
}

OpenClLauncher::~OpenClLauncher() { g_released.fetch_add(static_cast<int64_t>(cache_.size()), std::memory_order_relaxed); }

Status OpenClLauncher::bind(HostRegion arena, std::span<const HostRegion> args) {
  if (kernels_.empty()) return {};
  const ocl::Device& d = *code_->device;
  if (arena.data != arena_.data) {
    MLC_TRY(arena_mem_, d.wrap_host(arena.data, static_cast<size_t>(arena.bytes), queue_.get()));
    arena_ = {arena.data, arena.bytes, arena_mem_.get()};
  }
  ++binds_;
  bound_.clear();
  for (const HostRegion& r : args) {
    if (!r.data || r.bytes <= 0) continue;
    auto it = std::find_if(cache_.begin(), cache_.end(),
                           [&](const Wrapped& w) { return w.data == r.data && w.bytes == r.bytes; });
    if (it == cache_.end()) {
      MLC_TRY(ocl::Mem mem, d.wrap_host(r.data, static_cast<size_t>(r.bytes), queue_.get()));
      g_created.fetch_add(1, std::memory_order_relaxed);
      cache_.push_back({r.data, r.bytes, std::move(mem), 0});
      it = cache_.end() - 1;
    }
    it->bound_at = binds_;
    bound_.push_back({it->data, it->bytes, it->mem.get()});
  }
  // Beyond the spares, release the buffers bound longest ago.
  const size_t current = static_cast<size_t>(
      std::count_if(cache_.begin(), cache_.end(), [&](const Wrapped& w) { return w.bound_at == binds_; }));
  while (cache_.size() > current + kHostGpuSpareArgumentBuffers) {
    auto oldest = std::min_element(cache_.begin(), cache_.end(),
                                   [](const Wrapped& a, const Wrapped& b) { return a.bound_at < b.bound_at; });
    cache_.erase(oldest);
    g_released.fetch_add(1, std::memory_order_relaxed);
  }
  return {};
}

bool OpenClLauncher::resolve(const std::byte* p, int64_t bytes, cl_mem& mem, cl_long& offset) const {
  const auto at = reinterpret_cast<uintptr_t>(p);
  auto inside = [&](const Bound& b) {
    const auto begin = reinterpret_cast<uintptr_t>(b.data);
    if (!b.mem || at < begin || bytes > b.bytes || at - begin > static_cast<uintptr_t>(b.bytes - bytes)) return false;
    mem = b.mem;
    offset = static_cast<cl_long>(at - begin);
    return true;
  };
  if (inside(arena_)) return true;
  for (const Bound& b : bound_)
    if (inside(b)) return true;
  return false;
}

Status OpenClLauncher::launch(size_t kernel, const KernelInfo& k, std::byte* const* buffers, size_t n) {
  cl_kernel cl = kernels_[kernel].get();
  auto failed = [&](const std::string& what, cl_int err) {
    return ocl::call_error("kernel '" + k.name + "' (" + code_->symbols[static_cast<size_t>(k.object)] + "): " + what, err);
  };
  auto set_arg = [&](cl_uint arg, size_t size, const void* value) -> Status {
    if (cl_int err = clSetKernelArg(cl, arg, size, value); err != CL_SUCCESS)
      return failed("clSetKernelArg(" + std::to_string(arg) + ")", err);
    return {};
  };
  for (size_t i = 0; i < n; ++i) {
    const int64_t bytes = k.types[i].num_bytes();
    cl_mem mem = empty_mem_.get();
    cl_long offset = 0;
    if (bytes > 0 && !resolve(buffers[i], bytes, mem, offset))
      return make_error("mlc internal error: host-gpu: function '" + function_ + "': kernel '" + k.name + "' buffer " +
                        std::to_string(i) + " (" + std::to_string(bytes) +
                        " bytes) lies neither in the arena nor in an argument's tensor");
    MLC_CHECK_OK(set_arg(static_cast<cl_uint>(2 * i), sizeof mem, &mem));
    MLC_CHECK_OK(set_arg(static_cast<cl_uint>(2 * i + 1), sizeof offset, &offset));
  }
  const GpuLaunch& g = k.launch;
  auto arg = static_cast<cl_uint>(2 * n);
  if (g.two_phase()) {  // the scratch region's first scratch_bytes bytes (runtime/executable.h)
    cl_mem mem = nullptr;
    cl_long offset = 0;
    if (!resolve(arena_.data + scratch_offset_, g.scratch_bytes, mem, offset))
      return make_error("mlc internal error: host-gpu: function '" + function_ + "': kernel '" + k.name +
                        "': its scratch (" + std::to_string(g.scratch_bytes) + " bytes) lies outside the arena");
    MLC_CHECK_OK(set_arg(arg++, sizeof mem, &mem));
    MLC_CHECK_OK(set_arg(arg++, sizeof offset, &offset));
  }
  cl_mem status = status_mem_.get();
  MLC_CHECK_OK(set_arg(arg++, sizeof status, &status));
  *status_ = 0;
  // One launch, or phase 0 on `grid` blocks then phase 1 on `combine_grid`;
  // the queue runs them in order.
  const size_t local = static_cast<size_t>(g.block);
  for (cl_long phase = 0; phase < (g.two_phase() ? 2 : 1); ++phase) {
    if (g.two_phase()) MLC_CHECK_OK(set_arg(arg, sizeof phase, &phase));
    const size_t global = static_cast<size_t>(phase == 0 ? g.grid : g.combine_grid) * local;
    if (cl_int err = clEnqueueNDRangeKernel(queue_.get(), cl, 1, nullptr, &global, &local, 0, nullptr, nullptr);
        err != CL_SUCCESS)
      return failed("clEnqueueNDRangeKernel", err);
  }
  if (cl_int err = clFinish(queue_.get()); err != CL_SUCCESS) return failed("clFinish", err);
  const int status_word = *status_;
  if (status_word == kStatusIndexOutOfRange) return index_out_of_range(k, buffers);
  if (status_word != 0)
    return make_error("mlc internal error: host-gpu: kernel '" + k.name + "' set its status word to " +
                      std::to_string(status_word) + " (expected 0, or 1 for an index out of range)");
  return {};
}

}  // namespace mlc::rt
