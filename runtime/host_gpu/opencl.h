// The OpenCL layer of the "host-gpu" target (runtime/host_gpu/
// host_gpu_target.h): owned OpenCL objects, the one device kernels run on,
// building kernel text, and buffers over host memory. Only runtime/host_gpu/
// includes it (and so OpenCL's headers).
//
// Contracts:
//  - Handle<T> owns one reference to an OpenCL object and releases it once.
//  - opencl_device() is the process's device: the first device whose name
//    contains $MLC_OPENCL_DEVICE where that is set, else the first CPU device
//    (PoCL's pthread device), else the first device of any kind; with its
//    context. Found once and shared while held. Errors: "host-gpu: no OpenCL
//    device found (install pocl-opencl-icd)"; a device that has no doubles
//    (cl_khr_fp64, which the kernels' prelude enables) is refused, naming it.
//  - build() compiles one kernel's OpenCL C 1.2 text with kBuildOptions;
//    a failure is "host-gpu: kernel SYMBOL: OpenCL build failed: LOG" (the
//    compiler's log). PoCL caches what it compiled (~/.cache/pocl, or
//    $POCL_CACHE_DIR), so a kernel built before builds again quickly.
//  - wrap_host() is a buffer over host memory that the device uses in place
//    (CL_MEM_USE_HOST_PTR): kernels read what the host wrote before the
//    launch, and the host reads what a kernel wrote once the queue is
//    finished, with no copy. A device that would copy instead is refused.
#pragma once

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "ir/expected.h"

namespace mlc::rt::ocl {

// Options of every kernel's build: OpenCL C 1.2, and division and square
// root correctly rounded as IEEE requires (the prelude turns FP_CONTRACT off).
inline constexpr const char* kBuildOptions = "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt";

template <class T, cl_int (*Release)(T)>
class Handle {
 public:
  Handle() = default;
  explicit Handle(T h) : h_(h) {}
  Handle(Handle&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  Handle& operator=(Handle&& o) noexcept {
    reset(std::exchange(o.h_, nullptr));
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  void reset(T h = nullptr) {
    if (h_) Release(h_);
    h_ = h;
  }
  T get() const { return h_; }
  explicit operator bool() const { return h_ != nullptr; }

 private:
  T h_ = nullptr;
};
using Context = Handle<cl_context, clReleaseContext>;
using Queue = Handle<cl_command_queue, clReleaseCommandQueue>;
using Program = Handle<cl_program, clReleaseProgram>;
using Kernel = Handle<cl_kernel, clReleaseKernel>;
using Mem = Handle<cl_mem, clReleaseMemObject>;

// "CL_INVALID_WORK_GROUP_SIZE (-54)".
std::string error_name(cl_int code);
// "host-gpu: WHAT failed: CL_... (N)".
Error call_error(std::string_view what, cl_int code);

class Device {
 public:
  cl_device_id id() const { return id_; }
  cl_context context() const { return context_.get(); }
  const std::string& name() const { return name_; }
  size_t max_work_group_size() const { return max_work_group_size_; }

  // An in-order queue of its own, for one executor.
  Expected<Queue> make_queue() const;
  Expected<Program> build(const std::string& source, const std::string& symbol) const;
  // Kernel `symbol` of a built program (a kernel object per executor: their
  // arguments are state).
  Expected<Kernel> make_kernel(cl_program program, const std::string& symbol) const;
  // [data, data + bytes) (bytes > 0) as a buffer used in place; `queue`
  // checks that it is (a map must give `data` back).
  Expected<Mem> wrap_host(std::byte* data, size_t bytes, cl_command_queue queue) const;

 private:
  friend Expected<std::shared_ptr<const Device>> opencl_device();
  Device() = default;
  cl_device_id id_ = nullptr;
  Context context_;
  std::string name_;
  size_t max_work_group_size_ = 0;
};

Expected<std::shared_ptr<const Device>> opencl_device();

}  // namespace mlc::rt::ocl
